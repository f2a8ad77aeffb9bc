"""The agent side of the example headless tool: Sitewalk's kit with one more contract.

The tool's body is the kit's (`sitewalk_agent.headless`): it checks the arguments against the contract,
interrupts with `{"type": "tool", "tool_call": {...}, "contract": {...}}` and checks the browser's answer.
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent

from sitewalk_agent import UI_PROMPT, sitewalk_middleware
from sitewalk_shared.contracts.tools import TOOL_CONTRACTS

from .battery_contract import READ_BATTERY_LEVEL


def battery_agent(model: Any) -> Any:
    """A `create_agent` agent whose headless tools are Sitewalk's and `read_battery_level`."""
    contracts = [*TOOL_CONTRACTS.values(), READ_BATTERY_LEVEL]
    return create_agent(model, middleware=sitewalk_middleware(contracts),
                        system_prompt="You help field inspectors. " + UI_PROMPT)
