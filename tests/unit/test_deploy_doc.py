"""docs/deploy.md stays true where a unit test can tell: its variables are read by the code, its CSP is
the build's, its CORS call allows only the origin it names, its token file loads, its links resolve.

What runs elsewhere: the build with `--server` (tests/build/test_build.py::test_config_default_and_override),
CORS on both real servers (tests/durable/test_cors.py), the worked examples
(tests/unit/test_deploy_examples.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_config_reference import TABLE_DOC, table

from sitewalk_agent.token_file import load_tokens
from sitewalk_build.policy import csp
from sitewalk_build.server_config import restricted_config

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "deploy.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)
ENV_NAME = re.compile(r"`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`")  # `NAME` or `NAME=value`
LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#([\w-]+))?\)")
CODE_DIRS = ("py_src", "sitewalk_build")
AEGRA_MODEL = ROOT / "sitewalk_build" / "durable.py"  # how ./sw serve --durable sets Aegra's variables

# Read by a provider's package (the project's `openai`/`anthropic` extras), not by Sitewalk's code.
THIRD_PARTY = {"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}


def deploy_part(doc: str) -> str:
    """The deployment steps: everything before the how-to sections (whose names are code, not settings)."""
    return doc.split("\n## How to add", 1)[0]


def blocks(doc: str, lang: str) -> list[str]:
    return [body for kind, body in FENCE.findall(doc) if kind == lang]


def named_in_code(name: str, dirs: tuple[str, ...] = CODE_DIRS) -> list[Path]:
    """The files of `dirs` that name `name` as a string literal (how the code reads a variable)."""
    literal = re.compile(rf"[\"']{re.escape(name)}[\"']")
    found = []
    for top in dirs:
        for path in (ROOT / top).rglob("*.py"):
            if literal.search(path.read_text(encoding="utf-8")):
                found.append(path)
    return found


def unread(doc: str) -> set[str]:
    """Variables the page names that no code reads (third-party and pending ones aside)."""
    names = set(ENV_NAME.findall(deploy_part(doc)))
    return {n for n in names - THIRD_PARTY if not named_in_code(n)}


def test_the_page_names_the_variables_a_deployment_sets():
    names = set(ENV_NAME.findall(deploy_part(DOC.read_text(encoding="utf-8"))))
    assert {"SITEWALK_TOKENS", "SITEWALK_MODEL", "DATABASE_URL", "REDIS_URL", "AEGRA_CONFIG",
            "SITEWALK_LEDGER_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"} <= names
    assert "TOOL_CONTRACTS" not in names  # the how-to sections' code names are not settings


def test_every_variable_the_page_names_is_read_by_the_code():
    assert unread(DOC.read_text(encoding="utf-8")) == set()


def test_aegras_variables_are_the_ones_serve_durable_sets():
    names = set(ENV_NAME.findall(deploy_part(DOC.read_text(encoding="utf-8"))))
    for name in {"DATABASE_URL", "REDIS_URL", "AEGRA_CONFIG", "REDIS_BROKER_ENABLED"}:
        assert name in names and AEGRA_MODEL in named_in_code(name, ("sitewalk_build",)), name


def test_every_sitewalk_variable_of_the_page_is_in_the_configuration_table():
    names = {n for n in ENV_NAME.findall(deploy_part(DOC.read_text(encoding="utf-8"))) if n.startswith("SITEWALK_")}
    assert names - table(TABLE_DOC.read_text(encoding="utf-8"))["environment"] == set()


def test_a_variable_nobody_reads_is_caught():
    """The negative control: a made-up name in the page is reported, a real one is not."""
    doc = DOC.read_text(encoding="utf-8").replace("`SITEWALK_TOKENS`", "`SITEWALK_TOKENZ`", 1)
    assert unread(doc) == {"SITEWALK_TOKENZ"}


def test_the_csp_shown_is_the_one_the_build_writes_for_the_server_named():
    doc = DOC.read_text(encoding="utf-8")
    [build] = [b for b in blocks(doc, "sh") if "./sw build --server" in b]
    server = re.search(r"--server (\S+)", build)
    assert server is not None
    [shown] = blocks(doc, "text")
    assert shown.strip() == csp(server[1])
    connect = next(d for d in shown.split("; ") if d.startswith("connect-src"))
    assert connect == f"connect-src 'self' {server[1]}"  # that server, nothing else (no loopback)


def test_the_cors_call_allows_only_the_origin_it_names(tmp_path):
    doc = DOC.read_text(encoding="utf-8")
    [call] = [b for b in blocks(doc, "sh") if "restricted_config" in b]
    origins = re.findall(r"'(https://[^']+)'", call)
    assert origins == ["https://sitewalk.example.org"]
    written = json.loads(restricted_config(origins, out=tmp_path / "langgraph.json").read_text())
    assert written["http"]["cors"]["allow_origins"] == origins
    assert json.loads((ROOT / "langgraph.json").read_text())["http"]["cors"]["allow_origins"] == ["*"]


def test_the_token_file_shown_loads(tmp_path):
    [shown] = blocks(DOC.read_text(encoding="utf-8"), "json")
    token = "a" * 24
    path = tmp_path / "tokens.json"
    path.write_text(re.sub(r"<[^>]+>", token, shown))
    assert list(load_tokens(path).values()) == [{"identity": "ana", "display_name": "Ana Ortiz"}]


def _anchors(md: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    heads = re.findall(r"^#+ (.+)$", md, re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_the_pages_links_resolve():
    doc = DOC.read_text(encoding="utf-8")
    links = LINK.findall(doc)
    assert len(links) >= 8
    for target, anchor in links:
        path = DOC.parent / target
        assert path.exists(), target
        if anchor:
            assert anchor in _anchors(path.read_text(encoding="utf-8")), f"{target}#{anchor}"
    assert "sign-in-tokens" in _anchors(doc) and "sign-in" in _anchors((DOC.parent / "operating.md").read_text())


def test_the_readme_and_trust_link_the_page():
    assert "(docs/deploy.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(deploy.md#sign-in-tokens)" in (DOC.parent / "trust.md").read_text(encoding="utf-8")
