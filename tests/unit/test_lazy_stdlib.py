"""The finder of the rest of the stdlib (sitewalk_build/lazy_stdlib.py), under CPython with a zip of its own."""

from __future__ import annotations

import hashlib
import io
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from sitewalk_build.lazy_stdlib import (  # noqa: E402
    RestArchiveTampered,
    RestArchiveUnavailable,
    RestOfStdlib,
)


def _archive() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("lazy_top.py", "VALUE = 'top'\n")
        zf.writestr("lazy_pkg/__init__.py", "")
        zf.writestr("lazy_pkg/inner.py", "VALUE = 'inner'\n")
    return buf.getvalue()


@pytest.fixture
def finder(tmp_path):
    data = _archive()
    calls: list[str] = []

    def fetch(url: str) -> bytes:
        calls.append(url)
        return data

    kept: list[tuple[str, bytes]] = []
    found = RestOfStdlib("rest.zip", hashlib.sha256(data).hexdigest(), str(tmp_path / "rest.zip"),
                         ["lazy_top", "lazy_pkg", "lazy_pkg.inner"], fetch, lambda url, raw: kept.append((url, raw)))
    found.calls = calls
    found.kept = kept
    sys.meta_path.append(found)
    yield found
    sys.meta_path.remove(found)
    for name in ("lazy_top", "lazy_pkg", "lazy_pkg.inner"):
        sys.modules.pop(name, None)


def test_a_module_of_the_archive_is_fetched_once_and_imported(finder):
    import lazy_pkg.inner
    import lazy_top

    assert (lazy_top.VALUE, lazy_pkg.inner.VALUE) == ("top", "inner")
    assert finder.calls == ["rest.zip"]
    assert finder.kept == [("rest.zip", _archive())]  # kept for the next visit once it passed the check


def test_a_name_not_in_the_archive_fetches_nothing(finder):
    with pytest.raises(ImportError):
        import lazy_absent  # noqa: F401
    assert finder.calls == []


def test_bytes_that_do_not_match_the_hash_are_refused_typed_and_neither_written_kept_nor_imported(finder):
    finder.sha256 = "0" * 64
    with pytest.raises(RestArchiveTampered, match="^lazy_top: rest.zip: integrity check failed") as refused:
        import lazy_top  # noqa: F401
    assert isinstance(refused.value, ImportError) and refused.value.name == "lazy_top"
    assert not Path(finder.path).exists() and finder.kept == [] and finder.imported == []
    assert "lazy_top" not in sys.modules
    with pytest.raises(RestArchiveTampered):  # the next import tries again (a fixed host would be used)
        import lazy_top  # noqa: F401,F811
    assert finder.calls == ["rest.zip", "rest.zip"]


def test_a_fetch_that_fails_is_refused_typed(finder):
    def unreachable(url: str) -> bytes:
        raise OSError(f"{url}: HTTP 0")

    finder.fetch = unreachable
    with pytest.raises(RestArchiveUnavailable, match="^lazy_top: rest.zip could not be fetched: rest.zip: HTTP 0"):
        import lazy_top  # noqa: F401
    assert not Path(finder.path).exists() and finder.kept == [] and "lazy_top" not in sys.modules


def test_an_archive_already_written_with_the_right_bytes_is_used_without_a_fetch(finder):
    Path(finder.path).write_bytes(_archive())  # what boot.js writes when the archive was kept
    import lazy_top

    assert lazy_top.VALUE == "top" and finder.calls == []


def test_an_archive_already_written_with_other_bytes_is_fetched_again(finder):
    Path(finder.path).write_bytes(b"stale")
    import lazy_top

    assert lazy_top.VALUE == "top" and finder.calls == ["rest.zip"]
