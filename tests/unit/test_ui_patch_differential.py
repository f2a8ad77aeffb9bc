"""Differential test of JSON-patch line streams: our PatchStream vs @json-render/core's
compileSpecStream, from the same empty spec. Same final document, except where listed."""

from pathlib import Path

import pytest
from json_render_peer import json_render_verdicts

from sitewalk_shared.ui_spec.patch_stream import PatchStream

pytestmark = pytest.mark.xdist_group("ui-patch-differential")  # one worker: the peer answers once

CORPUS = sorted((Path(__file__).parent / "fixtures" / "patches").glob("*.jsonl"))

# file -> why the documents differ on purpose
DELIBERATE = {
    "missing_parent.jsonl": "RFC 6902: add needs an existing parent; json-render creates it. "
                            "Sitewalk reports invalid_patch and skips the line.",
}


def ours(path: Path) -> PatchStream:
    stream = PatchStream()
    text = path.read_text()
    for i in range(0, len(text), 17):
        stream.feed(text[i:i + 17])
    stream.close()
    return stream


@pytest.fixture(scope="module")
def theirs() -> dict[str, dict]:
    return json_render_verdicts("compile_streams.mjs", CORPUS)


def test_corpus_is_there():
    assert len(CORPUS) >= 5 and set(DELIBERATE) <= {p.name for p in CORPUS}


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_same_document_as_json_render_except_where_listed(path, theirs):
    stream, verdict = ours(path), theirs[path.name]
    assert verdict["error"] is None, verdict
    if path.name in DELIBERATE:
        assert stream.spec != verdict["spec"] and {i.code for i in stream.issues} == {"invalid_patch"}
    else:
        assert stream.issues == [] and stream.spec == verdict["spec"]
