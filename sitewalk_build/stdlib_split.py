"""The stdlib and the pure packages' archive, each in two: what the app imports (fetched at boot) and
the rest (fetched on demand).

Which modules the app imports is found at build time, not listed by hand: import_closure.py runs in
the bundle's own Pyodide under node (the driver of precompile.py): it installs the wheels with
Pyodide's own loadPackage, as the boot does (so what Pyodide's Python side imports for that counts,
not a hand list), imports the app and what its sources import (transitively through its
dependencies), and reports the stdlib files and the pure packages' files then loaded. Each compiled
archive is then cut in two: the boot archive and the rest. The stdlib's boot archive carries the
finder of lazy_stdlib.py, which fetches a rest archive when an import needs a module from it (one
finder per rest archive). The closure is cached by the hash of its inputs.
"""

from __future__ import annotations

import ast
import hashlib
import json
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from sitewalk_build.digests import sha256
from sitewalk_build.errors import BuildError, log
from sitewalk_build.precompile import DRIVER
from sitewalk_build.tools import require

HERE = Path(__file__).resolve().parent
CLOSURE = HERE / "import_closure.py"  # runs inside Pyodide
FINDER = HERE / "lazy_stdlib.py"  # shipped in the boot archive as FINDER_MODULE
FINDER_MODULE = "_sitewalk_lazy_stdlib"
REST_ARCHIVE = "python_stdlib_rest.zip"
MODULE_SUFFIXES = (".py", ".pyc")


@dataclass(frozen=True)
class ClosureJob:
    """What the closure run imports: archives put on sys.path (``site``, the pure packages' archive,
    among them), wheels installed by Pyodide's loadPackage and archives unpacked by its unpackArchive
    into ``site_packages`` (as boot.js does both), root packages (every module of each is imported)."""

    path: list[Path]
    load: list[Path]
    roots: list[str]
    site: Path
    unpack: list[Path] = field(default_factory=list)
    site_packages: str = ""
    not_at_boot: list[str] = field(default_factory=list)  # imports the AST pass leaves alone


@dataclass(frozen=True)
class Closure:
    """What the app imports: files of the stdlib archive and of the pure packages' archive (source paths)."""

    stdlib: list[str]
    site: list[str]


def finder_imports() -> list[str]:
    """The modules the finder itself imports: they must be in the boot archive."""
    tree = ast.parse(FINDER.read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    return sorted(names)


def import_closure(job: ClosureJob, core: Path, cache: Path) -> Closure:
    """The stdlib's and the pure packages' files the job's imports load (paths inside each archive, sources)."""
    node = require("node", "to find the app's stdlib imports with Pyodide")
    inputs = [CLOSURE.read_text(), DRIVER.read_text(), str(sorted(job.roots)), str(job.not_at_boot),
              job.site_packages, sha256(core / "python_stdlib.zip")]
    inputs += [sha256(p) for p in job.path + job.load + job.unpack]
    cached = cache / "closure" / (hashlib.sha256("|".join(inputs).encode()).hexdigest()[:24] + ".json")
    if cached.exists():
        return _closure(cached)
    log("finding the app's stdlib imports with Pyodide under node")
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        job_file = Path(tmp).resolve() / "closure.json"
        job_file.write_text(json.dumps({
            "path": [str(p.resolve()) for p in job.path], "load": [str(p.resolve()) for p in job.load],
            "unpackArchives": [{"file": str(p.resolve()), "dir": job.site_packages} for p in job.unpack],
            "roots": job.roots, "site": str(job.site.resolve()), "not_at_boot": job.not_at_boot}))
        proc = subprocess.run([node, str(DRIVER), str(core.resolve()), str(job_file), str(CLOSURE)],
                              capture_output=True, text=True)
        out = Path(str(job_file) + ".out")
        if proc.returncode != 0 or not out.exists():
            raise BuildError(f"finding the stdlib imports failed ({proc.returncode}):\n"
                             f"{(proc.stdout + proc.stderr)[-3000:]}")
        cached.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out, cached)
    return _closure(cached)


def _closure(path: Path) -> Closure:
    found = json.loads(path.read_text())
    return Closure(list(found["entries"]), list(found["site"]))


def module_name(entry: str) -> str | None:
    """The dotted module name of an archive entry (``email/mime/__init__.pyc`` -> ``email.mime``)."""
    if not entry.endswith(MODULE_SUFFIXES) or entry.endswith("/"):
        return None
    name = entry.rsplit(".", 1)[0].replace("/", ".")
    return name.removesuffix(".__init__")


def split(compiled: Path, needed: list[str], boot_out: Path, rest_out: Path, finder: bool = True,
          data_follows: bool = False) -> list[str]:
    """Cut a (compiled) archive in two; return the module names of the rest.

    ``needed`` are source paths (``json/decoder.py``): their compiled or source form goes to the boot
    archive (with the finder, for the stdlib); every other file to the rest. With ``data_follows``, a
    file that is no module (``py.typed``, a template) goes with the modules of its folder: to the
    boot archive when one of them does. Folders follow the files they hold.
    """
    wanted = {n for e in needed for n in (e, e + "c")}
    with zipfile.ZipFile(compiled) as zin:
        infos = [i for i in zin.infolist() if not i.is_dir()]
        if data_follows:
            folders = {n.rpartition("/")[0] for n in wanted}
            wanted |= {i.filename for i in infos if not i.filename.endswith(MODULE_SUFFIXES + (".pyi",))
                       and i.filename.rpartition("/")[0] in folders}
        boot = [i for i in infos if i.filename in wanted]
        rest = [i for i in infos if i.filename not in wanted]
        for out, members, with_finder in ((boot_out, boot, finder), (rest_out, rest, False)):
            _write(zin, out, members, with_finder)
    return sorted(n for i in rest if (n := module_name(i.filename)))


def _write(zin: zipfile.ZipFile, out: Path, members: list[zipfile.ZipInfo], finder: bool) -> None:
    folders = sorted({"/".join(m.filename.split("/")[:k]) + "/" for m in members
                      for k in range(1, m.filename.count("/") + 1)})
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zout:
        for folder in folders:
            zi = zipfile.ZipInfo(folder, (1980, 1, 1, 0, 0, 0))
            zi.external_attr = (0o40755 << 16) | 0x10  # a folder, as zipfile itself marks one
            zout.writestr(zi, b"")
        for info in members:
            zout.writestr(info, zin.read(info), compress_type=zipfile.ZIP_STORED)
        if finder:
            zi = zipfile.ZipInfo(FINDER_MODULE + ".py", (1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zout.writestr(zi, FINDER.read_bytes(), compress_type=zipfile.ZIP_STORED)
