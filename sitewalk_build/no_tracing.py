"""LangSmith tracing turned off for the agent servers Sitewalk starts, and said when it was asked for.

The servers `./sw serve` and the tests start call nothing outside the machine (the scripted model needs
no network; the tests run where only loopback is reachable), so LangSmith tracing is off in their
environment whatever the caller's says. A developer who turned it on in theirs is told so in one line,
once a process, instead of wondering where the traces went; to trace, run `langgraph dev` yourself.
Sitewalk's own OpenTelemetry tracing (`SITEWALK_TRACES`, issue 27) is likewise off unless the caller passes it
in the server's own environment (`./sw serve --traces`, the tracing tests): blank here.
"""

from __future__ import annotations

from collections.abc import Mapping

from sitewalk_build.errors import log

# The variables LangSmith reads to trace (the second is LangChain's older name), each forced to "false".
TRACING_VARIABLES = ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2")
SITEWALK_TRACES = "SITEWALK_TRACES"  # sitewalk_agent.tracing.ENV: on only when the caller's extra env sets it
_said: set[str] = set()


def tracing_off(caller_env: Mapping[str, str]) -> dict[str, str]:
    """The variables that turn tracing off; logs, once a process, each that ``caller_env`` had turned on."""
    for name in TRACING_VARIABLES:
        if caller_env.get(name, "").strip().lower() == "true" and name not in _said:
            _said.add(name)
            log(f"{name}=true in your environment is turned off for the agent server: Sitewalk's servers "
                "send nothing outside the machine (run `langgraph dev` yourself to trace)")
    return {**{name: "false" for name in TRACING_VARIABLES}, SITEWALK_TRACES: ""}
