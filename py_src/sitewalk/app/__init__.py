"""The Sitewalk app in the browser: wires the session, the headless tools and the DOM view.

Entry point `main(config)` is called by web/boot.js once the packages are loaded: it builds the page's one
`App` (application.py), which owns the client, the sessions, the list, the status line and the running
inspection, and starts it.

What loads when: the modules imported here are what the first screen needs (the client, the sign-in,
the list of inspections, the form). Every feature behind a press is imported at its first use, by the
part that first needs it: the headless tools and their pydantic contracts (`device_tools.DeviceTools`),
the session machinery, the timeline and the cards (`sessions.Sessions.new`), the audit trail
(`audit_view.AuditView.show`). At a phone's CPU, importing them all cost the first screen seconds.
"""

from __future__ import annotations

from typing import Any

from ..bridge import dom
from ..bridge.fetch import BrowserTransport
from .application import App
from .config import AppConfig, server_allowed

__all__ = ["main"]


async def main(config: Any) -> None:
    """boot.js's config (a JS object, or a dict in tests) read, the server checked, then the App built and started."""
    settings = AppConfig.read(config.to_py() if hasattr(config, "to_py") else config)
    # The page's one Trusted Types policy is ours before anything else runs; it vouches for sw.js too.
    dom.claim_policy(settings.service_worker_url)
    if not server_allowed(settings):
        return
    app = App(settings, BrowserTransport())  # the app picks the browser's transport, the client speaks through it
    if settings.traces:  # device tracing (issue 27): off, its package is never imported
        _start_tracing(app)
    await app.reach_server()
    await app.start()


def _start_tracing(app: App) -> None:
    """The device's spans recorded from now on, sent to the agent server with the app's client."""
    from ..bridge import storage, tasks
    from ..bridge.boot_marks import boot_marks
    from ..tracing import start

    start(app.client.send_device_spans, tasks.spawn, boot_marks, kept=storage.LocalStorageStore())
