"""Sitewalk's browser runtime: headless tools, time travel and generative UI for a LangGraph agent.

Pure modules (contracts, agentserver.sse, headless.registry, spec, timeline) import no
browser APIs, so they run under CPython too. Only `sitewalk.bridge` touches `js`.
"""

__version__ = "0.1.0"
