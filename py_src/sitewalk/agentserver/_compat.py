"""The one place that picks the transport: the browser's `fetch` under Pyodide, httpx elsewhere.

As micropip's `_compat` does, the choice is made once, at import, by whether Pyodide's core is
loaded; nothing else in the client asks where it runs.
"""

from __future__ import annotations

import sys

from .transport import Transport

IN_BROWSER = "_pyodide_core" in sys.modules

DefaultTransport: type[Transport]
if IN_BROWSER:
    from ..bridge.fetch import BrowserTransport

    DefaultTransport = BrowserTransport
else:
    from .transport import HttpxTransport

    DefaultTransport = HttpxTransport

__all__ = ["IN_BROWSER", "DefaultTransport", "default_transport"]


def default_transport() -> Transport:
    """A new transport of the kind this runtime uses."""
    return DefaultTransport()
