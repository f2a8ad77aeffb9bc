"""docs/operating.md's configuration table stays honest: what the code reads is in it, and it names
nothing the code does not read.

Read from the sources themselves: the `config.json` keys web/boot.js reads (`cfg.<key>`), the URL
parameters it reads (`URLSearchParams(location.search).get("<name>")`), and every `SITEWALK_*`
environment variable named in py_src, sitewalk_build, build.py, sw, .ci and tests (this file and
test_deploy_doc.py aside; a template's placeholder between two `%` is not one).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOOT = ROOT / "web" / "boot.js"
TABLE_DOC = ROOT / "docs" / "operating.md"
ENV_SOURCES = ["py_src", "sitewalk_build", "build.py", "sw", ".ci", "tests"]
TEXT_SUFFIXES = {".py", ".sh", ".mjs", ".js", ".toml", ".cfg", ".ini", ""}
# Tests of the docs that name made-up or not-yet-read variables (their negative controls, a pending one).
DOC_CHECKS = {Path(__file__).resolve(), Path(__file__).resolve().parent / "test_deploy_doc.py"}

CONFIG_KEY = re.compile(r"\bcfg\.([A-Za-z_]\w*)")
URL_PARAM = re.compile(r"URLSearchParams\(location\.search\)\.get\([\"'](\w+)[\"']\)")
ENV_VAR = re.compile(r"(?<![%\w])(SITEWALK_[A-Z0-9_]*[A-Z0-9])(?![%\w])")
ROW = re.compile(r"^\|([^|]*)\|([^|]*)\|")


def config_keys(boot: str) -> set[str]:
    return set(CONFIG_KEY.findall(boot))


def url_params(boot: str) -> set[str]:
    return set(URL_PARAM.findall(boot))


def env_vars(root: Path = ROOT) -> set[str]:
    found: set[str] = set()
    for name in ENV_SOURCES:
        top = root / name
        files = [top] if top.is_file() else [p for p in top.rglob("*") if p.is_file()] if top.exists() else []
        for path in files:
            skip = {"__pycache__", "node_modules"} & set(path.parts) or path.resolve() in DOC_CHECKS
            if path.suffix in TEXT_SUFFIXES and not skip:
                found |= set(ENV_VAR.findall(path.read_text(encoding="utf-8", errors="replace")))
    return found


def table(doc: str) -> dict[str, set[str]]:
    """The table's names by kind ("config.json", "URL parameter", "environment")."""
    section = doc.split("## Configuration reference", 1)[1].split("\n## ", 1)[0]
    kinds: dict[str, set[str]] = {"config.json": set(), "URL parameter": set(), "environment": set()}
    for line in section.splitlines():
        row = ROW.match(line)
        if not row or row[1].strip() in ("setting", "---"):
            continue
        kind = next((k for k in kinds if k in row[2]), None)
        assert kind is not None, f"a row of unknown kind: {line}"
        kinds[kind] |= set(re.findall(r"`([^`]+)`", row[1]))
    return kinds


def test_the_sources_are_read_as_expected():
    """The readers find what is there: a change of boot.js's style must not empty them silently."""
    boot = BOOT.read_text(encoding="utf-8")
    assert {"agentServerUrl", "assistantId", "stuckSeconds"} <= config_keys(boot)
    assert {"server", "stuck"} <= url_params(boot)
    assert {"SITEWALK_TOKENS", "SITEWALK_MODEL"} <= env_vars()
    assert "SITEWALK_CSP" not in env_vars()  # the index template's placeholder, not a variable
    kinds = table(TABLE_DOC.read_text(encoding="utf-8"))
    assert all(kinds.values())


def test_every_setting_the_code_reads_is_in_the_table():
    boot = BOOT.read_text(encoding="utf-8")
    kinds = table(TABLE_DOC.read_text(encoding="utf-8"))
    assert config_keys(boot) - kinds["config.json"] == set(), "config.json keys boot.js reads, not in the table"
    assert url_params(boot) - kinds["URL parameter"] == set(), "URL parameters boot.js reads, not in the table"
    assert env_vars() - kinds["environment"] == set(), "environment variables read, not in the table"


def test_every_row_of_the_table_is_read_somewhere():
    boot = BOOT.read_text(encoding="utf-8")
    kinds = table(TABLE_DOC.read_text(encoding="utf-8"))
    assert kinds["config.json"] - config_keys(boot) == set(), "rows for config.json keys boot.js does not read"
    assert kinds["URL parameter"] - url_params(boot) == set(), "rows for URL parameters boot.js does not read"
    assert kinds["environment"] - env_vars() == set(), "rows for environment variables nothing reads"


def test_a_missing_or_stale_row_is_caught(tmp_path):
    """The negative control: the checks above see a row dropped, and one for a name nobody reads."""
    doc = TABLE_DOC.read_text(encoding="utf-8")
    dropped = table("\n".join(line for line in doc.splitlines() if not line.startswith("| `stuckSeconds`")))
    assert "stuckSeconds" in config_keys(BOOT.read_text(encoding="utf-8")) - dropped["config.json"]
    extra = table(doc.replace("| `stall` |", "| `SITEWALK_NOBODY` | server environment | | | |\n| `stall` |"))
    assert extra["environment"] - env_vars() == {"SITEWALK_NOBODY"}
