"""docs/architecture.md's Layout block is the map a newcomer reads first, so it must match the checkout:
it names every package and top-level module of py_src's three packages and every top-level folder, and
no path that does not exist (a module that became a package, `timeline.py` -> `timeline/`, is caught).

The block is read as a map: a line starting at column 0 names a path from the checkout's root, a line
indented by four spaces names one inside the last such folder; the rest of a line, and the lines
indented further, are description. (The layer order below it is checked by test_import_graph.py.)
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = ["sitewalk_shared", "sitewalk", "sitewalk_agent"]

LAYOUT_BLOCK = re.compile(r"^## Layout\n.*?^```[^\n]*\n(.*?)^```", re.S | re.M)
ENTRY = re.compile(r"^( {4})?(\S+)")


def layout_entries(doc: str) -> list[str]:
    """The paths the Layout block names, each from the checkout's root (a folder ends with '/')."""
    block = LAYOUT_BLOCK.search(doc)
    assert block, "docs/architecture.md has no fenced block under '## Layout'"
    entries: list[str] = []
    folder = ""
    for line in block[1].splitlines():
        entry = ENTRY.match(line)
        if not entry:
            continue
        if entry[1] is None:
            folder = entry[2]
            entries.append(folder)
        else:
            assert folder.endswith("/"), f"{entry[2]!r} is indented under {folder!r}, not a folder"
            entries.append(folder + entry[2])
    return entries


def py_units(package: Path) -> set[str]:
    """A package's top-level modules and its subpackages (with a '/'), as the block names them."""
    modules = {p.name for p in package.glob("*.py") if p.name != "__init__.py"}
    return modules | {p.name + "/" for p in package.iterdir() if (p / "__init__.py").is_file()}


def tracked_top_folders() -> set[str]:
    """The checkout's top-level folders that hold a file git tracks (not .venv, dist/, caches)."""
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout, or no git: {exc}")
    return {path.split("/", 1)[0] + "/" for path in listed.stdout.splitlines() if "/" in path}


def nonexistent(entries: list[str]) -> list[str]:
    """Paths the block names that are not there (or a file named as a folder, or the other way)."""
    def there(entry: str) -> bool:
        path = ROOT / entry
        return path.is_dir() if entry.endswith("/") else path.is_file()
    return [entry for entry in entries if not there(entry)]


def left_out(entries: list[str], top_folders: set[str]) -> list[str]:
    """What the block should name and does not: py_src's packages and modules, the top-level folders."""
    missing = []
    for package in PACKAGES:
        folder = f"py_src/{package}/"
        named = {entry.removeprefix(folder) for entry in entries if entry.startswith(folder) and entry != folder}
        missing += sorted(folder + unit for unit in py_units(ROOT / folder) - named)
    tops = {entry.split("/", 1)[0] + "/" for entry in entries if "/" in entry}
    return missing + sorted(top_folders - tops)


# --- the doc ------------------------------------------------------------------------------------


def test_the_layout_is_read_as_a_map():
    entries = layout_entries(DOC.read_text(encoding="utf-8"))
    assert {"sw", "py_src/sitewalk/", "py_src/sitewalk/timeline/", "py_src/sitewalk_agent/upstream.py",
            "tests/unit/"} <= set(entries)
    assert not [entry for entry in entries if " " in entry or entry.startswith(("(", "`"))]


def test_every_path_the_layout_names_exists():
    assert nonexistent(layout_entries(DOC.read_text(encoding="utf-8"))) == []


def test_the_layout_names_every_package_module_and_top_level_folder():
    assert left_out(layout_entries(DOC.read_text(encoding="utf-8")), tracked_top_folders()) == []


# --- negative controls: the checks above see a line dropped and a stale name --------------------


def test_a_dropped_line_is_caught():
    doc = DOC.read_text(encoding="utf-8")
    tops = tracked_top_folders()
    for line, expected in [("    signin.py ", "py_src/sitewalk/signin.py"),
                           ("    audit/ ", "py_src/sitewalk_agent/audit/"),
                           ("    errors.py ", "py_src/sitewalk_shared/errors.py"), ("docs/ ", "docs/")]:
        dropped = "\n".join(text for text in doc.splitlines() if not text.startswith(line))
        assert dropped != doc
        assert left_out(layout_entries(dropped), tops) == [expected]


def test_a_module_named_after_it_became_a_package_is_caught():
    stale = DOC.read_text(encoding="utf-8").replace("    timeline/           ", "    timeline.py         ")
    entries = layout_entries(stale)
    assert nonexistent(entries) == ["py_src/sitewalk/timeline.py"]
    assert left_out(entries, tracked_top_folders()) == ["py_src/sitewalk/timeline/"]


def test_a_child_under_a_file_is_refused():
    with pytest.raises(AssertionError, match="not a folder"):
        layout_entries("## Layout\n\n```\nsw    the commands\n    x.py  no\n```\n")
