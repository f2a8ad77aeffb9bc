"""Precompressed siblings of the site's files: ``x.br`` (brotli, quality 11) and ``x.gz`` (gzip -9).

A static host serves them in place of ``x`` to a browser that accepts the encoding (nginx
``brotli_static``/``gzip_static``, and ``static_server.py``), so nothing is compressed per request.
Quality 11 is slow (seconds a megabyte), so results are cached by the file's sha256. A sibling is
kept only when it is smaller than the file itself (an icon already compressed gains nothing).
Without the ``brotli`` package (a dev dependency) only ``.gz`` is written, with a warning.
"""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Callable
from pathlib import Path

from sitewalk_build.digests import sha256
from sitewalk_build.errors import log

# Content-Encoding token -> the sibling's suffix, in the order a server prefers them.
ENCODINGS: tuple[tuple[str, str], ...] = (("br", ".br"), ("gzip", ".gz"))
SUFFIXES = tuple(suffix for _, suffix in ENCODINGS)


def _brotli() -> Callable[[bytes], bytes] | None:
    try:
        import brotli  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return lambda data: bytes(brotli.compress(data, quality=11))


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)  # mtime 0: same input, same bytes


def compressors() -> dict[str, Callable[[bytes], bytes]]:
    """The sibling suffixes this build can write, with their compressor."""
    found: dict[str, Callable[[bytes], bytes]] = {".gz": _gzip}
    br = _brotli()
    if br is None:
        log("warning: the brotli package is missing (pip install brotli): writing .gz siblings only")
    else:
        found = {".br": br, **found}
    return found


def _compressed(path: Path, suffix: str, compress: Callable[[bytes], bytes], cache: Path) -> Path:
    """The compressed form of ``path`` in the cache (made on a miss)."""
    cached = cache / "compressed" / (sha256(path) + suffix)
    if not cached.exists():
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(cached.name + ".tmp")
        tmp.write_bytes(compress(path.read_bytes()))
        tmp.replace(cached)
    return cached


def precompress(root: Path, files: list[str], cache: Path) -> dict[str, dict[str, int]]:
    """Write the siblings of each of ``files`` (relative to ``root``) that are smaller than it.

    Returns, per file, its size and the size of each form made (kept or not): the bench reports them.
    """
    sizes: dict[str, dict[str, int]] = {}
    available = compressors()
    for rel in files:
        path = root / rel
        raw = path.stat().st_size
        sizes[rel] = {"raw": raw}
        for suffix, compress in available.items():
            made = _compressed(path, suffix, compress, cache)
            size = made.stat().st_size
            sizes[rel][suffix.lstrip(".")] = size
            if size < raw:
                shutil.copyfile(made, path.with_name(path.name + suffix))
    return sizes


def is_sibling(name: str) -> bool:
    """A precompressed sibling (never a file of the site in its own right)."""
    return name.endswith(SUFFIXES)
