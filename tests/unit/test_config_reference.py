"""docs/operating.md's configuration table stays honest: what the code reads is in it, and it names
nothing the code does not read. And the other facts the docs state that a reader can check against the
code: the scripted scenarios (docs/using.md), the number of middleware `sitewalk_middleware()` returns
(docs/agent-kit.md), every source file a doc names, the defaults of the environment variables, which
`./sw` command sets one, and the worker count in `sw`'s header.

Read from the sources themselves: the `config.json` keys web/boot.js reads (`cfg.<key>`), the URL
parameters it reads (`URLSearchParams(location.search).get("<name>")`), and every `SITEWALK_*`
environment variable named in py_src, sitewalk_build, build.py, sw, .ci and tests (this file and
test_deploy_doc.py aside; a template's placeholder between two `%` is not one).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from sitewalk_agent import sitewalk_middleware

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
# Another program's variable Sitewalk's code also reads (Aegra's DATABASE_URL): its name quoted in the code.
QUOTED_NAME = re.compile(r"""["']([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])["']""")
ROW = re.compile(r"^\|([^|]*)\|([^|]*)\|")
FULL_ROW = re.compile(r"^\|([^|]*)\|([^|]*)\|([^|]*)\|")
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
SW = ROOT / "sw"
DEMO = ROOT / "py_src" / "sitewalk_agent" / "demo"
SCENARIO_SOURCES = [DEMO / "scripted_model.py", DEMO / "faults.py"]
USING = ROOT / "docs" / "using.md"
AGENT_KIT = ROOT / "docs" / "agent-kit.md"


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


def quoted_names(root: Path = ROOT) -> set[str]:
    """Upper-case names quoted in the product's Python (where another program's variable is read by name)."""
    files = [p for top in ("py_src", "sitewalk_build") for p in (root / top).rglob("*.py")]
    return {name for path in files for name in QUOTED_NAME.findall(path.read_text(encoding="utf-8"))}


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
    read = env_vars() | quoted_names()
    assert kinds["environment"] - read == set(), "rows for environment variables nothing reads"


def test_a_missing_or_stale_row_is_caught(tmp_path):
    """The negative control: the checks above see a row dropped, and one for a name nobody reads."""
    doc = TABLE_DOC.read_text(encoding="utf-8")
    dropped = table("\n".join(line for line in doc.splitlines() if not line.startswith("| `stuckSeconds`")))
    assert "stuckSeconds" in config_keys(BOOT.read_text(encoding="utf-8")) - dropped["config.json"]
    extra = table(doc.replace("| `stall` |", "| `SITEWALK_NOBODY` | server environment | | | |\n| `stall` |"))
    assert extra["environment"] - env_vars() - quoted_names() == {"SITEWALK_NOBODY"}


# ---------------------------------------------------------------------------
# The scripted scenarios (docs/using.md)
# ---------------------------------------------------------------------------


def _strings(node: ast.expr, constants: dict[str, ast.expr]) -> set[str]:
    """The strings a comparison's right side names: a literal, a tuple/set/dict of them, a module constant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.Set, ast.List)):
        return set().union(*(_strings(e, constants) for e in node.elts))
    if isinstance(node, ast.Dict):
        return set().union(*(_strings(k, constants) for k in node.keys if k is not None))
    if isinstance(node, ast.Name) and node.id in constants:
        return _strings(constants[node.id], constants)
    return set()


def _is_scenario(node: ast.expr) -> bool:
    """`scenario`, `c.scenario` or `scenario_of(...)`: what a scenario's name is compared with."""
    if isinstance(node, ast.Call):
        node = node.func
    return (isinstance(node, ast.Name) and node.id in ("scenario", "scenario_of")) or (
        isinstance(node, ast.Attribute) and node.attr == "scenario")


def scenarios_in_code(sources: list[Path] = SCENARIO_SOURCES) -> set[str]:
    """Every scenario name the scripted model (and its faults) compares `script: NAME` with."""
    names: set[str] = set()
    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign)
                     for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and _is_scenario(node.left):
                for right in node.comparators:
                    names |= _strings(right, constants)
    return names


def knobs_in_code(sources: list[Path] = SCENARIO_SOURCES) -> set[str]:
    """The `name_ms=N` settings a note may carry (the model's regular expressions)."""
    return {m for path in sources for m in re.findall(r"\\b(\w+_ms)=\(", path.read_text(encoding="utf-8"))}


def scenarios_section(doc: str) -> str:
    return doc.split("## Trying the scripted scenarios", 1)[1].split("\n## ", 1)[0]


def scenarios_in_doc(doc: str) -> set[str]:
    return set(re.findall(r"`script: ([a-z][a-z-]*)`", scenarios_section(doc)))


def test_every_scripted_scenario_is_in_using_md_and_no_other():
    code, doc = scenarios_in_code(), scenarios_in_doc(USING.read_text(encoding="utf-8"))
    assert {"review", "photos", "parallel", "fail", "site-walk-twice", "locate"} <= code  # the reader finds them
    assert code - doc == set(), "scenarios the scripted model plays, not listed in docs/using.md"
    assert doc - code == set(), "scenarios docs/using.md lists, unknown to the scripted model"


def test_every_setting_of_a_note_is_in_using_md():
    knobs = knobs_in_code()
    assert {"pace_ms", "orders_latency_ms", "timeout_ms"} <= knobs
    section = scenarios_section(USING.read_text(encoding="utf-8"))
    assert {k for k in knobs if f"`{k}=N`" not in section} == set(), "note settings not in docs/using.md"


def test_a_scenario_left_out_of_using_md_is_caught():
    """The negative control: the stale list this test was written for (review, photos, parallel, fail and
    orders_latency_ms missing) fails it."""
    doc = USING.read_text(encoding="utf-8")
    stale = doc.replace("`script: review`", "review").replace("`script: fail`", "fail")
    assert scenarios_in_code() - scenarios_in_doc(stale) == {"review", "fail"}


# ---------------------------------------------------------------------------
# The agent kit's middleware (docs/agent-kit.md)
# ---------------------------------------------------------------------------

NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def stated_middleware(doc: str) -> tuple[int, str]:
    """The count agent-kit.md states for `sitewalk_middleware()`, and the paragraph that says it."""
    found = re.search(r"`sitewalk_middleware\(\)` is (\w+) middleware(.*?)\n\n", doc, re.S)
    assert found, "docs/agent-kit.md no longer says how many middleware sitewalk_middleware() is"
    return NUMBERS[found[1]], found[2]


def test_agent_kit_md_states_the_middleware_sitewalk_middleware_returns():
    count, paragraph = stated_middleware(AGENT_KIT.read_text(encoding="utf-8"))
    returned = [type(m).__name__ for m in sitewalk_middleware()]
    assert count == len(returned)
    assert [name for name in returned if f"`{name}" not in paragraph] == [], "middleware the paragraph omits"


# ---------------------------------------------------------------------------
# Source files the docs name
# ---------------------------------------------------------------------------

SOURCE_FILE = re.compile(r"`([A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*\.(?:py|mjs|js))`")
# Where a doc's relative path may start: the checkout, py_src, each package in it, web/.
PATH_ROOTS = [ROOT, ROOT / "py_src", ROOT / "web", *sorted(p for p in (ROOT / "py_src").iterdir() if p.is_dir())]
SKIPPED_DIRS = {".git", ".venv", ".cache", "dist", "node_modules", "__pycache__", ".durable"}


def source_names() -> set[str]:
    """The file names of the checkout's sources (a bare name in a doc must be one of them)."""
    names: set[str] = set()
    for top in ("py_src", "sitewalk_build", "web", "tests", ".ci"):
        names |= {p.name for p in (ROOT / top).rglob("*") if not SKIPPED_DIRS & set(p.parts) and p.is_file()}
    return names | {p.name for p in ROOT.iterdir() if p.is_file()}


def missing_sources(text: str, names: set[str]) -> set[str]:
    """The source files ``text`` names (in backticks) that do not exist."""
    missing = set()
    for path in SOURCE_FILE.findall(text):
        found = any((root / path).is_file() for root in PATH_ROOTS) if "/" in path else path in names
        if not found:
            missing.add(path)
    return missing


def test_every_source_file_a_doc_names_exists():
    names = source_names()
    missing = {f"{doc.name}: {path}" for doc in DOCS
               for path in missing_sources(doc.read_text(encoding="utf-8"), names)}
    assert missing == set()


def test_a_stale_module_path_is_caught():
    """The negative control: the inline spec module's old path, as agent-kit.md once named it."""
    assert missing_sources("fenced (`spec/inline.py`), `sitewalk_shared/ui_spec/inline.py`, `nested.py`",
                           source_names()) == {"spec/inline.py"}


# ---------------------------------------------------------------------------
# Defaults and `./sw` (the table's environment rows, sw's header)
# ---------------------------------------------------------------------------


def env_rows(doc: str) -> dict[str, str]:
    """Each environment variable of the table, with its row's default cell."""
    section = doc.split("## Configuration reference", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        row = FULL_ROW.match(line)
        if row and "environment" in row[2]:
            for name in re.findall(r"`([^`]+)`", row[1]):
                rows[name] = row[3]
    return rows


def literal_defaults() -> dict[str, set[str]]:
    """`os.environ.get("SITEWALK_X", "literal")` in Python and `${SITEWALK_X:-literal}` in sw: the defaults."""
    found: dict[str, set[str]] = {}
    pattern = re.compile(r"environ\.get\(\"(SITEWALK_\w+)\", \"([^\"]+)\"\)|\$\{(SITEWALK_\w+):-([^}]+)\}")
    for name in ENV_SOURCES:
        top = ROOT / name
        files = [top] if top.is_file() else [p for p in top.rglob("*.py") if not SKIPPED_DIRS & set(p.parts)]
        for path in (p for p in files if p != Path(__file__).resolve()):
            for m in pattern.finditer(path.read_text(encoding="utf-8", errors="replace")):
                found.setdefault(m[1] or m[3], set()).add(m[2] or m[4])
    return found


def test_each_literal_default_is_the_tables():
    rows = env_rows(TABLE_DOC.read_text(encoding="utf-8"))
    defaults = literal_defaults()
    assert {"SITEWALK_SOAK_N", "SITEWALK_TEST_WORKERS", "SITEWALK_BROWSER_SLOTS"} <= set(defaults)
    wrong = {name: values for name, values in defaults.items()
             if any(not re.search(rf"(?<![\w.]){re.escape(v)}(?![\w.])", rows[name]) for v in values)}
    assert wrong == {}, "defaults in the code that the table's row does not give"


def sw_commands(text: str) -> dict[str, str]:
    """The body of each `./sw` command (its case branch)."""
    body = text.split('case "$cmd" in', 1)[1]
    return {m[1]: m[2] for m in re.finditer(r"^  ([a-z-]+)\)\n(.*?)^    ;;", body, re.S | re.M)}


def test_the_command_the_table_says_sets_a_variable_sets_it():
    commands = sw_commands(SW.read_text(encoding="utf-8"))
    claims = [(name, cmd) for name, cell in env_rows(TABLE_DOC.read_text(encoding="utf-8")).items()
              for cmd in re.findall(r"`\./sw ([a-z-]+)` sets", cell)]
    assert ("SITEWALK_REQUIRE_DURABLE", "test-durable") in claims  # the reader finds them
    wrong = [(name, cmd) for name, cmd in claims if not re.search(rf"\b{name}=", commands.get(cmd, ""))]
    assert wrong == [], "the table says these ./sw commands set these variables; they do not"


def test_sw_s_header_gives_the_worker_count_sw_test_uses():
    text = SW.read_text(encoding="utf-8")
    header = text.split("set -euo pipefail", 1)[0]
    default = re.search(r'^  echo "-n \$\{SITEWALK_TEST_WORKERS:-(\d+)\}', text, re.M)
    assert default, "sw's xdist_args no longer reads as expected"
    assert re.findall(r"-n (\d+) --dist", header) == [default[1]]
