"""The only code that touches the browser (`js`, `pyodide.ffi`): one module per browser API.

- `dom`: elements by id, nodes, the status line, the boot shell;
- `storage`: localStorage (small settings) and IndexedDB (drafts, answers);
- `geolocation`: one position fix as a future;
- `files`: the picked file and its metadata (hashed in the browser);
- `fetch`: the Agent Server client's streaming transport;
- `tasks`: event listeners, proxies, async handlers whose failures are reported, waits.

Everything else in `sitewalk` is pure Python and runs under CPython. Importing this package
itself needs no browser: the submodules are imported by name where they are used. `is_none` is
here because a JS `null` is not Python's None.
"""

from .values import is_none, or_none

__all__ = ["is_none", "or_none"]
