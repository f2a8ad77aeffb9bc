"""Differential test of inline screens: our InlineSplitter vs @json-render/core's
createMixedStreamParser on the same messages. Same prose lines and same patch ops, except where
listed. Both are fed in small pieces (ours 5 characters, theirs 7)."""

import json
from pathlib import Path

import pytest
from json_render_peer import json_render_verdicts
from test_spec_inline import split_in_pieces

pytestmark = pytest.mark.xdist_group("ui-inline-differential")  # one worker: the peer answers once

CORPUS = sorted((Path(__file__).parent / "fixtures" / "inline").glob("*.txt"))

# file -> why the split differs on purpose
DELIBERATE = {
    "brace_line_not_json.txt": "A line that starts with '{' but is not a patch op is prose to json-render; "
                               "Sitewalk takes it for a patch line and reports invalid_patch to the agent, "
                               "since the agent meant a patch.",
}


def ours(path: Path) -> dict:
    prose, patch, _ = split_in_pieces(path.read_text(encoding="utf-8"), 5)
    lines = [line.rstrip() for line in prose.splitlines() if line.strip()]
    return {"texts": lines, "patch_lines": [line for line in patch.splitlines() if line.strip()]}


@pytest.fixture(scope="module")
def theirs() -> dict[str, dict]:
    return json_render_verdicts("split_mixed.mjs", CORPUS)


def test_corpus_is_there():
    assert len(CORPUS) >= 8 and set(DELIBERATE) <= {p.name for p in CORPUS}


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_same_prose_and_patches_as_json_render_except_where_listed(path, theirs):
    mine, peer = ours(path), theirs[path.name]
    peer_texts = [t.rstrip() for t in peer["texts"]]
    if path.name in DELIBERATE:
        assert mine["texts"] != peer_texts, f"{path.name} is listed as different but agrees"
        return
    assert mine["texts"] == peer_texts
    assert [json.loads(line) for line in mine["patch_lines"]] == peer["patches"]
