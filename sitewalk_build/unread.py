"""What the runtime never reads, left out of the shipped archives: fewer bytes at the first visit.

- A METADATA's body (the long description, after the first blank line): importlib.metadata reads
  name, version and requirements from its headers; pydantic's body alone is 144 KB.
- Type stubs (``.pyi``): no import reads them.
- A software bill of materials (``.dist-info/sboms/``, PEP 770): for auditing the wheel, not for
  running it.

License files stay: the licenses ship with the code. A wheel installed by Pyodide's loadPackage is
rewritten with a RECORD that lists what it still holds (loadPackage unpacks the wheel and reads
neither stubs nor SBOM); the lock's sha256 and the integrity are computed later, on the shipped file.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from sitewalk_build.digests import record_hash, write_entry


def metadata_headers(data: bytes) -> bytes:
    """A METADATA file without its body: the headers, up to the first blank line."""
    head, blank, _ = data.replace(b"\r\n", b"\n").partition(b"\n\n")
    return head + b"\n" if blank else data


def is_metadata(name: str) -> bool:
    return name.endswith(".dist-info/METADATA") and name.count("/") == 1


def is_unread(name: str) -> bool:
    """A file of a wheel that nothing at run time reads (stubs, SBOMs); never a license."""
    folder, _, _ = name.partition("/")
    return name.endswith(".pyi") or (folder.endswith(".dist-info") and name.startswith(folder + "/sboms/"))


def trim_wheel(src: Path, out: Path) -> Path:
    """``src`` without its unread files and its METADATA body, with a RECORD of what it holds; returns ``out``."""
    with zipfile.ZipFile(src) as zin:
        names = [i.filename for i in zin.infolist() if not i.is_dir()]
        record = next((n for n in names if n.endswith(".dist-info/RECORD") and n.count("/") == 1), None)
        files = [(n, metadata_headers(zin.read(n)) if is_metadata(n) else zin.read(n))
                 for n in names if n != record and not is_unread(n)]
    if record:
        rows = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d in files) + f"{record},,\n"
        files.append((record, rows.encode()))
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        for name, data in files:
            write_entry(zf, name, data)
    return out
