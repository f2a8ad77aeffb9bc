"""The only code that touches the browser (`js`, `pyodide.ffi`): one module per browser API.

- `dom`: elements by id, nodes, the status line, the boot shell;
- `storage`: localStorage (small settings) and IndexedDB (drafts, answers);
- `geolocation`: one position fix as a future;
- `files`: the picked file and its metadata (hashed in the browser);
- `fetch`: the Agent Server client's streaming transport (the app makes it and hands it to the client);
- `tasks`: event listeners, proxies, async handlers whose failures are reported, waits;
- `attention`, `values`: pure rules and helpers (no `js`), tested under CPython.

The bridge is the lowest floor of the layer order (docs/architecture.md): it imports nothing of
Sitewalk but `sitewalk.base`, the pure types it shares with the layers above.

Everything else in `sitewalk` is pure Python and runs under CPython. Importing this package
itself needs no browser: the submodules are imported by name where they are used. `is_none` is
here because a JS `null` is not Python's None; `JsProxy` names a JS object as Python holds it.
"""

from .values import JsProxy, is_none, or_none

__all__ = ["JsProxy", "is_none", "or_none"]
