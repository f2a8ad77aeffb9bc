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
never becomes a crash. Standard library only; ``fetch`` (url -> bytes) and ``keep`` (url, bytes: store
the archive for the next visit, offline too) are handed in by boot.js.

Bytes that do not match the build's sha256 (a tampered host, a corrupt download, a mixed version) are
refused with `RestArchiveTampered`, a download that fails with `RestArchiveUnavailable`: neither is
written, kept or imported from, and the next import that needs the archive fetches it again. Both are
ImportErrors, so an optional import (`try: import x / except ImportError`) carries on as without the
module; they are not `SitewalkError`s because this module runs before any package can be imported.
"""

from __future__ import annotations

import hashlib
import sys
import zipimport
from collections.abc import Callable, Iterable
from importlib.machinery import ModuleSpec
from typing import Any


class RestArchiveError(ImportError):
    """A rest archive could not be used: nothing of it was written, kept or imported."""


class RestArchiveTampered(RestArchiveError):
    """The archive's bytes are not the build's (their sha256 differs from the one the build recorded)."""


class RestArchiveUnavailable(RestArchiveError):
    """The archive could not be fetched (an HTTP error, offline, a service worker that failed it)."""


class RestOfStdlib:
    """A meta-path finder for the modules of the second stdlib archive."""

    def __init__(self, url: str, sha256: str, path: str, modules: Iterable[str], fetch: Callable[[str], Any],
                 keep: Callable[[str, Any], Any] | None = None):
        self.url = url
        self.sha256 = sha256
        self.path = path  # where the archive is written (e.g. /lib/python314-rest.zip)
        self.modules = frozenset(modules)
        self.fetch = fetch
        self.keep = keep
        self.fetched = False
        self.imported: list[str] = []  # the modules it found, in order (what the build missed)

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if fullname not in self.modules:
            return None
        self._ensure_archive(fullname)
        self.imported.append(fullname)
        parent = fullname.rpartition(".")[0]
        # zipimport finds a submodule through an importer rooted at its parent's folder in the archive
        where = self.path + ("/" + parent.replace(".", "/") + "/" if parent else "")
        return zipimport.zipimporter(where).find_spec(fullname)

    def _ensure_archive(self, fullname: str) -> None:
        if self.fetched:
            return
        if self._kept():
            self.fetched = True
            return
        try:
            raw = self.fetch(self.url)
            data = raw.to_bytes() if hasattr(raw, "to_bytes") else bytes(raw)
        except Exception as exc:  # a JS error from boot.js's fetch arrives as pyodide's JsException
            raise RestArchiveUnavailable(f"{fullname}: {self.url} could not be fetched: {exc}", name=fullname) from exc
        digest = hashlib.sha256(data).hexdigest()
        if digest != self.sha256:
            raise RestArchiveTampered(f"{fullname}: {self.url}: integrity check failed (sha256 {digest}, "
                                      f"expected {self.sha256})", name=fullname)
        with open(self.path, "wb") as fh:
            fh.write(data)
        self.fetched = True
        if self.keep is not None:
            self.keep(self.url, raw)  # only bytes that passed the check are kept for the next visit


    def _kept(self) -> bool:
        """Whether boot.js already wrote the archive (kept from an earlier visit) with the right bytes."""
        try:
            with open(self.path, "rb") as fh:
                return hashlib.sha256(fh.read()).hexdigest() == self.sha256
        except OSError:
            return False


def install(url: str, sha256: str, path: str, modules: Any, fetch: Callable[[str], Any],
            keep: Callable[[str, Any], Any] | None = None) -> RestOfStdlib:
    """Put the finder last on sys.meta_path; ``modules`` is a list (or a JS array) of dotted names."""
    names = modules.to_py() if hasattr(modules, "to_py") else modules
    finder = RestOfStdlib(str(url), str(sha256), str(path), [str(n) for n in names], fetch, keep)
    sys.meta_path.append(finder)
    return finder
