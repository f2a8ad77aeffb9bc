"""What the stand-in's model says, decided from the conversation alone (so every run is the same).

The first user message names a scenario with `standin: NAME` (the app's Start sends the note after the
inspection id):

- `screen`: read the draft (`read_local_draft`), then show it as a bigger screen (a Stack with the card,
  fields, a checklist and a ConfirmButton) streamed as `render_ui` arguments, paced so a browser sees
  it build up; then one sentence.
- `parallel`: `read_local_draft` and `get_current_location` in one turn; once both are answered, a
  sentence naming each outcome.
- `review`: two `create_work_order` calls in one turn (gated, each reviewed on its own); then a
  sentence per outcome.
- `repair`: a `render_ui` spec with a component outside the catalog; told its issues, the same screen
  repaired; then a sentence.
Anything else gets one sentence and no call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from provider_standin.conversation import Conversation
from sitewalk_agent.demo.scripted_model import card_spec, find_inspection_id, inspection_screen

__all__ = ["PACED_SCENARIOS", "REPAIRED_TITLE", "WORK_ORDER_SUBJECTS", "Reply", "plan", "scenario_of"]

WORK_ORDER_SUBJECTS = ("Loose bolt on the east rail", "Corroded drain cover")
REPAIRED_TITLE = "Repaired screen"
PACED_SCENARIOS = {"screen": 0.04}  # seconds between streamed fragments
_SCENARIO = re.compile(r"\bstandin:\s*([a-z-]+)")


@dataclass(frozen=True)
class Reply:
    text: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def scenario_of(conversation: Conversation) -> str | None:
    found = _SCENARIO.search(conversation.first_user_text)
    return found.group(1) if found else None


def plan(conversation: Conversation) -> Reply:
    scenario = scenario_of(conversation)
    inspection_id = find_inspection_id(conversation.first_user_text) or "inspection-1"
    step = {"screen": _screen, "parallel": _parallel, "review": _review, "repair": _repair}.get(scenario or "")
    if step is None:
        return Reply("Hello from the stand-in.")
    return step(conversation, inspection_id)


def _outcomes(conversation: Conversation) -> str:
    return " ".join(f"{r.name}: {'ok' if r.envelope.get('ok') else _code(r)}." for r in conversation.latest_results)


def _code(result: Any) -> str:
    envelope = result.envelope
    return str((envelope.get("error") or {}).get("code") or ("refused" if not envelope else "failed"))


def _screen(conversation: Conversation, inspection_id: str) -> Reply:
    if conversation.model_turns == 0:
        return Reply("Reading the draft.", [("read_local_draft", {"inspection_id": inspection_id})])
    [result] = conversation.latest_results
    if result.name == "read_local_draft" and result.envelope.get("ok"):
        return Reply("", [("render_ui", dict(inspection_screen(result.envelope["result"])))])
    if result.name == "read_local_draft":
        return Reply(f"The draft could not be read: {_code(result)}.")
    return Reply("Here is the inspection.")


def _parallel(conversation: Conversation, inspection_id: str) -> Reply:
    if conversation.model_turns == 0:
        return Reply("Reading the draft and the position at once.", [
            ("read_local_draft", {"inspection_id": inspection_id}),
            ("get_current_location", {"purpose": "Record where the inspection took place."}),
        ])
    return Reply(f"Both answered. {_outcomes(conversation)}")


def _review(conversation: Conversation, inspection_id: str) -> Reply:
    if conversation.model_turns == 0:
        return Reply("These work orders need your review.", [
            ("create_work_order", {"inspection_id": inspection_id, "subject": subject, "priority": "high"})
            for subject in WORK_ORDER_SUBJECTS
        ])
    return Reply(f"Reviewed. {_outcomes(conversation)}")


def _repair(conversation: Conversation, inspection_id: str) -> Reply:
    card: dict[str, Any] = dict(card_spec({"inspection_id": inspection_id, "site": "Pier 4"}))
    if conversation.model_turns == 0:
        broken = {**card, "elements": {**card["elements"], "gauge": {"type": "Gauge", "props": {}, "children": []}}}
        broken["elements"][card["root"]] = {**card["elements"][card["root"]],
                                            "children": [*card["elements"][card["root"]]["children"], "gauge"]}
        return Reply("", [("render_ui", broken)])
    [result] = conversation.latest_results
    if result.envelope.get("ok") or conversation.model_turns > 1:  # repaired once, never in a loop
        return Reply("The screen is shown." if result.envelope.get("ok") else "The screen was refused again.")
    repaired = {**card, "elements": {**card["elements"]}}
    root = repaired["elements"][card["root"]]
    repaired["elements"][card["root"]] = {**root, "props": {**root.get("props", {}), "title": REPAIRED_TITLE}}
    return Reply("Repaired the screen.", [("render_ui", repaired)])
