"""What the runtime never reads, left out of the shipped archives: fewer bytes at the first visit.

- A METADATA's body (the long description, after the first blank line): importlib.metadata reads
  name, version and requirements from its headers; pydantic's body alone is 144 KB.
- Type stubs (``.pyi``): no import reads them.
- A software bill of materials (``.dist-info/sboms/``, PEP 770): for auditing the wheel, not for
  running it.

License files stay: the licenses ship with the code. The archives that carry them (wheels.py) are
hashed for the integrity check later, as shipped.
"""

from __future__ import annotations


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

