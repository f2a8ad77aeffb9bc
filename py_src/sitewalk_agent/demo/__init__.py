"""Demo and test parts of the agent: the scripted chat model (no key, no network; its scenarios are
chosen by `script: NAME` in the first message) and the pacing and fault middleware it runs with.
Nothing here is used when `SITEWALK_MODEL` names a real model (`sitewalk_agent.models.make_model`)."""

from sitewalk_agent.demo.faults import ScriptedFaultsMiddleware, ScriptedPacingMiddleware
from sitewalk_agent.demo.scripted_model import ScriptedInspectionModel
from sitewalk_agent.demo.unknown_tool import ScriptedUnknownToolMiddleware

__all__ = ["ScriptedFaultsMiddleware", "ScriptedInspectionModel", "ScriptedPacingMiddleware",
           "ScriptedUnknownToolMiddleware"]
