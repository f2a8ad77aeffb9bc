"""The rest of the stdlib (and of the pure packages), fetched the first time an import needs it; runs INSIDE Pyodide.

The build ships the stdlib modules the app imports in the boot archive and every other module in a
second archive (stdlib_split.py); likewise the pure packages' archive (one finder per rest
archive). This module is written into the boot archive as
``_sitewalk_lazy_stdlib``; boot.js calls ``install`` before anything else is imported. Its finder
sits last on ``sys.meta_path``, so it is asked only for a module nothing else found, and it answers
only for the modules the second archive holds (an optional import of a module that exists nowhere
still fails at once, without a download). The first such import fetches the archive (synchronously:
an import cannot wait), checks its sha256 and writes it to the file system; zipimport then loads
the module from it, like any other stdlib module. A module the build missed costs one download, it
never becomes a crash. Standard library only; ``fetch`` (url -> bytes) is handed in by boot.js.
"""

from __future__ import annotations

import hashlib
import sys
import zipimport
from collections.abc import Callable, Iterable
from importlib.machinery import ModuleSpec
from typing import Any


class RestOfStdlib:
    """A meta-path finder for the modules of the second stdlib archive."""

    def __init__(self, url: str, sha256: str, path: str, modules: Iterable[str], fetch: Callable[[str], Any]):
        self.url = url
        self.sha256 = sha256
        self.path = path  # where the archive is written (e.g. /lib/python314-rest.zip)
        self.modules = frozenset(modules)
        self.fetch = fetch
        self.fetched = False
        self.imported: list[str] = []  # the modules it found, in order (what the build missed)

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if fullname not in self.modules:
            return None
        self._ensure_archive()
        self.imported.append(fullname)
        parent = fullname.rpartition(".")[0]
        # zipimport finds a submodule through an importer rooted at its parent's folder in the archive
        where = self.path + ("/" + parent.replace(".", "/") + "/" if parent else "")
        return zipimport.zipimporter(where).find_spec(fullname)

    def _ensure_archive(self) -> None:
        if self.fetched:
            return
        if self._kept():
            self.fetched = True
            return
        raw = self.fetch(self.url)
        data = raw.to_bytes() if hasattr(raw, "to_bytes") else bytes(raw)
        digest = hashlib.sha256(data).hexdigest()
        if digest != self.sha256:
            raise ImportError(f"{self.url}: integrity check failed (sha256 {digest}, expected {self.sha256})")
        with open(self.path, "wb") as fh:
            fh.write(data)
        self.fetched = True


    def _kept(self) -> bool:
        """Whether boot.js already wrote the archive (kept from an earlier visit) with the right bytes."""
        try:
            with open(self.path, "rb") as fh:
                return hashlib.sha256(fh.read()).hexdigest() == self.sha256
        except OSError:
            return False


def install(url: str, sha256: str, path: str, modules: Any, fetch: Callable[[str], Any]) -> RestOfStdlib:
    """Put the finder last on sys.meta_path; ``modules`` is a list (or a JS array) of dotted names."""
    names = modules.to_py() if hasattr(modules, "to_py") else modules
    finder = RestOfStdlib(str(url), str(sha256), str(path), [str(n) for n in names], fetch)
    sys.meta_path.append(finder)
    return finder
