"""The inspection graph as a *newer* agent would serve it: read_local_draft's contract has changed.

Nothing is stubbed: this is the project's graph with one contract edited before it is built, so
its tool schema, its `client_tools` check and its interrupts all carry the new digest, while the
app in the browser was built with the old one. Served by its own `langgraph dev` in the e2e tests.
"""

import dataclasses
import sys
from pathlib import Path

_PY_SRC = str(Path(__file__).resolve().parents[3] / "py_src")
if _PY_SRC not in sys.path:
    sys.path.insert(0, _PY_SRC)

from sitewalk_shared.contracts import tools as _tools  # noqa: E402

_NEWER = dataclasses.replace(
    _tools.READ_LOCAL_DRAFT, description=_tools.READ_LOCAL_DRAFT.description + " (v2: also returns attachments.)")
# Both lists: TOOL_CONTRACTS (every contract) and BROWSER_TOOL_CONTRACTS (the tools the model is offered).
_tools.TOOL_CONTRACTS["read_local_draft"] = _tools.BROWSER_TOOL_CONTRACTS["read_local_draft"] = _NEWER

from sitewalk_agent.graph import graph  # noqa: E402,F401

NEW_DIGEST = _tools.TOOL_CONTRACTS["read_local_draft"].digest
