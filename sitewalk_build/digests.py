"""Hashes in the forms the bundle needs, deterministic zip entries, and subprocesses whose failure is a BuildError."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import zipfile
from pathlib import Path

from sitewalk_build.errors import BuildError

# A fixed timestamp for every zip entry the build writes: same inputs, same bytes.
EPOCH = (1980, 1, 1, 0, 0, 0)


def _digest(path: Path, algorithm: str) -> bytes:
    h = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.digest()


def sha256(path: Path) -> str:
    """Hex sha256 of a file (what pyproject pins and the lock records)."""
    return _digest(path, "sha256").hex()


def npm_integrity(path: Path) -> str:
    """npm's ``dist.integrity`` form (sha512, base64) of a file."""
    return "sha512-" + base64.b64encode(_digest(path, "sha512")).decode()


def sri(path: Path) -> str:
    """Subresource integrity (sha256) of a file."""
    return "sha256-" + base64.b64encode(_digest(path, "sha256")).decode()


def record_hash(data: bytes) -> str:
    """A wheel RECORD's hash column."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_entry(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    """Write one stored (uncompressed) entry with the fixed timestamp and 0644 permissions: the site's
    archives are compressed as a whole by HTTP (precompressed .br/.gz), which beats deflating each entry."""
    zi = zipfile.ZipInfo(name, EPOCH)
    zi.external_attr = 0o644 << 16
    zi.compress_type = zipfile.ZIP_STORED
    zf.writestr(zi, data)


def run(cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
    """Run ``cmd``; a program that cannot be started or a non-zero exit is a BuildError (the latter
    carrying the tail of its output)."""
    try:
        proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    except OSError as error:
        raise BuildError(f"could not run {cmd[0]}: {error.strerror or error}") from None
    if proc.returncode != 0:
        out = "\n".join(
            line
            for line in (proc.stdout + proc.stderr).splitlines()
            if "is ignored: it is neither a file nor a directory" not in line
        )
        raise BuildError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{out[-4000:]}")
