"""A deterministic chat model that plays Sitewalk's inspection script.

It needs no network and no key, so the agent server, the tests and the browser demo all get the
same conversation. Text and tool-call arguments are streamed in small fragments (12–24
characters) the way a real provider streams them: `tool_call_chunks` with an `index`, the `id`
and `name` on the first fragment only.

The script, decided from the last message of the conversation:

(a) a human message naming an inspection -> a short text and a `read_local_draft` call
    (no inspection id -> a text asking for one);
(b) a successful `read_local_draft` result -> a `render_ui` call with a card built from the draft;
(c) a failed `read_local_draft` -> a text naming the error code and message, and its recovery: for
    `not_found` a `start_blank_draft` call (the device starts a blank draft), whose draft is then shown
    as in (b) on a screen with its empty fields to fill, with one sentence saying so; for `corrupt_data`
    the stored draft is kept and the inspector is told how to replace it;
(d) a `render_ui` result -> a closing text (or, if the spec was rejected, a text saying so).

A human message may name a scenario with `script: NAME`, for demos and end-to-end tests:
- `unknown-tool`: first call `measure_noise_level`, a headless tool the browser does not
  implement, then go on with the draft whatever it answered;
- `bad-ui`: after the card, send a second screen that uses a component outside the catalog;
- `locate`: first call `get_current_location` (its `timeout_ms` taken from a `timeout_ms=N` in the
  message, 10000 otherwise), say where the device is (or that the inspector typed the position, when the
  result's `source` is manual) or why not, then go on with the draft; the card gets the position as a
  finding ("Position typed by the inspector: …" or "Position from the device: … (±N m)");
- `photo`: first call `attach_photo`, say what was attached or why not, then go on with the draft.
- `slow-ui`: the draft's screen is a bigger one (`inspection_screen`: a Stack with the card, fields,
  a checklist and a ConfirmButton), its arguments streamed slowly (the graph paces them) so a
  browser can watch it build up;
- `confirm`: the same bigger screen, at full speed; its ConfirmButton's press is awaited by the
  agent's `UiActionsMiddleware`.
- `parallel`: one message that calls `read_local_draft` and `get_current_location` at once (both
  pending together, answered in one resume), then the card, saying where the device is.
- `patch-ui`: the bigger screen written inline, as JSON-patch lines in the text after a sentence
  (json-render's inline mode), paced like `slow-ui`;
- with any scenario, `pace_ms=N` in the message puts N ms between streamed fragments;
- `patch-edit`: the card, then a text whose patch lines raise its risk to high (an edit of the
  screen on record);
- `bad-patch`: the same edit with a line whose path does not exist, so the edit is refused; told
  so, the model says the screen stays as it was.
- `review`: one message with three reviewed field actions: two `create_work_order` calls for
  different subjects (REVIEW_SUBJECTS) and a `notify_site_manager`; each waits for its own review
  (see `sitewalk_agent.review`); then a sentence per answered call (done, with the work order and, for a
  call the reviewer edited, the arguments it ran with; refused; or rejected);
- `photos`: one message with `archive_photos` and `delete_photos` for the same photos
  (REVIEW_PHOTOS); delete is refused by the tool unless the archive ran first.
- `site-walk`: the card, then a `walk_site` call: the site-walk subgraph asks the inspector "Is the
  handrail secure?" (yes/no) and then "How many bolts are corroded?" (a number), each with its own
  interrupt (see `sitewalk_agent.site_walk`); then a sentence and patch lines that add both answers to
  the card's findings ("Handrail secure: yes", "Corroded bolts: 3").
- `site-walk-twice`: the same, but the message calls `walk_site` twice: the first walks, the second is
  refused (`one_walk_at_a_time`, nothing asked twice), and the model says so after the answers.
- `fail`: the first call as usual (`read_local_draft`); once it is answered the model fails
  (`sitewalk_agent.demo.faults.ScriptedFaultsMiddleware`), so the run ends in error with that reason;
- with any scenario, `orders_latency_ms=N` in the message makes the work-order system take N ms to
  file an order in this thread's runs (past `SITEWALK_WORKORDERS_TIMEOUT_MS` the call's outcome is
  unknown, then reconciled; see `sitewalk_agent.outcomes`).

Follow-ups: a human message after the first one is answered from its own words (case ignored):
- "the risk is critical" (or high, medium, low) -> a sentence, then inline JSON-patch lines that
  set the RiskBadge `risk` of the screen on record (level and label);
- "add finding: TEXT" -> a sentence, then a patch line that appends TEXT to the card's findings;
- "propose" (e.g. "propose the work orders") -> the reviewed field actions of `script: review` for the
  conversation's inspection, each waiting for its own review (so one inspection has a headless call, a screen
  and a per-call review: the tracing tests use it);
- "check" (e.g. "check the work orders") -> what the server's reconciliation note says of the calls
  whose answer never came (`sitewalk_agent.outcomes`), or that there are none;
- with no screen yet, the two screen edits say so and change nothing; anything else gets FOLLOW_UP_DEFAULT.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypedDict

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    message_chunk_to_message,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable

from sitewalk_agent.ids import new_id
from sitewalk_agent.inline_ui import is_refusal
from sitewalk_agent.outcomes import NOTE_TITLE
from sitewalk_shared.contracts.envelope import is_outcome_unknown
from sitewalk_shared.contracts.tool_result import ToolResult, read_tool_result, tool_envelope

__all__ = ["ScriptedInspectionModel", "Turn", "fragment", "new_id", "plan_turn"]

# Fragment sizes cycle through these (all within 12..24), so fragments look irregular but the
# stream is reproducible.
FRAGMENT_SIZES = (12, 19, 24, 15, 21, 13, 17, 23, 14)

_ID_PATTERNS = (
    re.compile(r"\b(inspection[-_][A-Za-z0-9_-]{1,53})", re.IGNORECASE),
    re.compile(r"\binspection\s+#?([A-Za-z0-9][A-Za-z0-9_-]{0,63})", re.IGNORECASE),
)


def fragment(text: str, sizes: Sequence[int] = FRAGMENT_SIZES) -> list[str]:
    """Cut `text` into pieces whose lengths cycle through `sizes`; ''.join(result) == text."""
    out: list[str] = []
    i = k = 0
    while i < len(text):
        n = sizes[k % len(sizes)]
        out.append(text[i : i + n])
        i += n
        k += 1
    return out


def find_inspection_id(text: str) -> str | None:
    for pattern in _ID_PATTERNS:
        m = pattern.search(text)
        if m and any(c.isdigit() for c in m.group(1)):
            return m.group(1)
    return None


def _obj(value: object) -> Mapping[str, object]:
    """A JSON object read by key (an envelope, its result or error, a draft): {} for a missing one."""
    return value if isinstance(value, Mapping) else {}


def _items(value: object) -> list[object]:
    """A JSON array read in order (findings, issues, answers): [] for a missing one."""
    return list(value) if isinstance(value, list | tuple) else []


class Element(TypedDict):
    """A screen element as this script writes it (json-render's shape)."""

    type: str
    props: dict[str, object]
    children: list[str]


class Screen(TypedDict):
    root: str
    elements: dict[str, Element]


class Turn:
    """What the model says in one turn: some text and its tool calls (name, args), in order."""

    def __init__(self, text: str = "", tool: str | None = None, args: Mapping[str, object] | None = None,
                 calls: Sequence[tuple[str, Mapping[str, object]]] = ()):
        self.text = text
        self.calls: list[tuple[str, Mapping[str, object]]] = [(tool, args or {})] if tool else list(calls)

    @property
    def tool(self) -> str | None:
        """The first call's tool name (None: a turn without tool calls)."""
        return self.calls[0][0] if self.calls else None

    @property
    def args(self) -> Mapping[str, object] | None:
        return self.calls[0][1] if self.calls else None

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Turn(text={self.text!r}, calls={self.calls!r})"


def _content_text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def _last_inspection_id(messages: Sequence[BaseMessage]) -> str | None:
    for message in reversed(messages):
        for call in getattr(message, "tool_calls", None) or []:
            if call.get("name") in ("read_local_draft", "start_blank_draft"):
                value = (call.get("args") or {}).get("inspection_id")
                if value:
                    return str(value)
        if isinstance(message, HumanMessage):
            found = find_inspection_id(_content_text(message))
            if found:
                return found
    return None


_SCENARIO = re.compile(r"\bscript:\s*([a-z][a-z-]*)", re.IGNORECASE)


def scenario_of(messages: Sequence[BaseMessage]) -> str | None:
    """The `script: NAME` of the first human message, if any."""
    for message in messages:
        if isinstance(message, HumanMessage):
            found = _SCENARIO.search(_content_text(message))
            return found.group(1).lower() if found else None
    return None


_PACE_MS = re.compile(r"\bpace_ms=(\d{1,4})\b")


def pace_of(messages: Sequence[BaseMessage]) -> int | None:
    """The `pace_ms=N` of the first human message (ms between streamed fragments), if any."""
    for message in messages:
        if isinstance(message, HumanMessage):
            found = _PACE_MS.search(_content_text(message))
            return int(found.group(1)) if found else None
    return None


_ORDERS_LATENCY_MS = re.compile(r"\borders_latency_ms=(\d{1,5})\b")


def orders_latency_of(messages: Sequence[BaseMessage]) -> int | None:
    """The `orders_latency_ms=N` of the first human message (the work-order system's simulated latency)."""
    for message in messages:
        if isinstance(message, HumanMessage):
            found = _ORDERS_LATENCY_MS.search(_content_text(message))
            return int(found.group(1)) if found else None
    return None


def broken_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The card plus an element whose type is not in the catalog (the `bad-ui` scenario). `spec`: the
    render_ui call's arguments as LangChain's ToolCall holds them."""
    elements = {key: dict(value) for key, value in spec["elements"].items()}
    elements["card"]["children"] = [*elements["card"]["children"], "ticker"]
    elements["ticker"] = {"type": "Marquee", "props": {"text": "Inspection in progress"}, "children": []}
    return {"root": spec["root"], "elements": elements}


def card_spec(draft: Mapping[str, object]) -> Screen:
    """The screen for a draft: an InspectionCard with a RiskBadge child ("Risk: not set" until someone sets one)."""
    risk = str(draft.get("risk") or "unset")
    return {
        "root": "card",
        "elements": {
            "card": {
                "type": "InspectionCard",
                "props": {
                    "title": f"Inspection {draft.get('inspection_id', '')}".strip(),
                    "site": str(draft.get("site", "")),
                    "inspector": str(draft.get("inspector", "")),
                    "findings": [str(f) for f in _items(draft.get("findings", []))],
                },
                "children": ["risk"],
            },
            "risk": {
                "type": "RiskBadge",
                "props": {"level": risk, "label": f"Risk: {'not set' if risk == 'unset' else risk}"},
                "children": [],
            },
        },
    }


BLANK_NOTE = ("This draft is blank: fill in the site, the inspector and the findings under 'Draft on this "
              "device', or tell me a finding (e.g. 'add finding: loose bolt on the east rail').")


def blank_draft_screen(draft: Mapping[str, object]) -> Screen:
    """The screen of a blank draft: the card with its empty fields (site, inspector) to fill, and a note
    saying how. The card keeps its id and its findings list, so later edits of the card apply to it."""
    card = card_spec(draft)["elements"]
    card["card"]["children"] = ["risk", "inspector"]
    elements: dict[str, Element] = {
        "screen": {"type": "Stack", "props": {"gap": "md"}, "children": ["card", "fill"]},
        "card": card["card"],
        "fill": {"type": "Text", "props": {"text": BLANK_NOTE}, "children": []},
        "risk": card["risk"],
        "inspector": {"type": "Field", "props": {"label": "Inspector", "value": str(draft.get("inspector", ""))},
                      "children": []},
    }
    return {"root": "screen", "elements": elements}


def is_blank(draft: Mapping[str, object]) -> bool:
    """Nothing filled in yet: no site, no inspector, no findings."""
    return not (draft.get("site") or draft.get("inspector") or draft.get("findings"))


def inspection_screen(draft: Mapping[str, object]) -> Screen:
    """A screen of several elements for a draft: card, badge, fields, checklist, text, confirm.

    The root comes first and the card's children last, so a streamed copy shows the root with
    its parts first, then fills the card in."""
    card = card_spec(draft)["elements"]
    card["card"]["children"] = ["risk", "facts"]
    elements: dict[str, Element] = {
        "screen": {"type": "Stack", "props": {"gap": "md"}, "children": ["card", "steps", "note", "confirm"]},
        "card": card["card"],
        "steps": {"type": "Checklist", "props": {"title": "On site", "items": [
            {"id": "photos", "label": "Photograph each finding"},
            {"id": "measure", "label": "Measure the corroded area"},
            {"id": "tag", "label": "Tag the loose bolt"}]}, "children": []},
        "note": {"type": "Text", "props": {"text": "Confirm to ask the agent for a work order."}, "children": []},
        "confirm": {"type": "ConfirmButton", "props": {"label": "Create work order", "action": "create_work_order",
                                                       "subject": "risk-1"}, "children": []},
        "risk": card["risk"],
        "facts": {"type": "Row", "props": {"gap": "sm"}, "children": ["inspector", "count"]},
        "inspector": {"type": "Field", "props": {"label": "Inspector", "value": str(draft.get("inspector", ""))},
                      "children": []},
        "count": {"type": "Field", "props": {"label": "Findings", "value": str(len(_items(draft.get("findings", []))))},
                  "children": []},
    }
    return {"root": "screen", "elements": elements}


def patch_lines(spec: Screen) -> list[dict[str, object]]:
    """The JSON-patch ops that write `spec` from an empty one: the root, then each element in order."""
    ops: list[dict[str, object]] = [{"op": "add", "path": "/root", "value": spec["root"]}]
    return ops + [{"op": "add", "path": f"/elements/{key}", "value": value} for key, value in spec["elements"].items()]


def risk_edit(level: str, broken: bool = False) -> list[dict[str, object]]:
    """Ops that change the card's RiskBadge (with `broken`, one of them names a missing element)."""
    ops: list[dict[str, object]] = [{"op": "replace", "path": "/elements/risk/props/level", "value": level}]
    if broken:
        ops.append({"op": "replace", "path": "/elements/badge/props/label", "value": f"Risk: {level}"})
    ops.append({"op": "replace", "path": "/elements/risk/props/label", "value": f"Risk: {level}"})
    return ops


def inline_text(sentence: str, ops: Sequence[Mapping[str, object]]) -> str:
    """A reply that says `sentence`, then writes `ops` one a line (see sitewalk_shared.ui_spec.inline)."""
    return sentence + "\n" + "".join(json.dumps(op, ensure_ascii=False, separators=(",", ":")) + "\n" for op in ops)


_TIMEOUT_MS = re.compile(r"\btimeout_ms=(\d{1,6})\b")


def _device_summary(tool: str, outcome: Mapping[str, object]) -> str:
    """One sentence on what a device tool answered (the `locate` and `photo` scenarios)."""
    if not outcome.get("ok"):
        error = _obj(outcome.get("error"))
        what = "the position" if tool == "get_current_location" else "a photo"
        return f"I could not get {what} ({error.get('code', 'internal')}: {error.get('message', '')})."
    result = _obj(outcome.get("result"))
    if tool == "get_current_location" and result.get("source") == "manual":
        return (f"The inspector typed the position: {result.get('latitude')}, {result.get('longitude')} "
                f"(typed by hand, accuracy unknown, {result.get('timestamp')}).")
    if tool == "get_current_location":
        return (f"The device is at {result.get('latitude')}, {result.get('longitude')} "
                f"(±{result.get('accuracy_m')} m, {result.get('timestamp')}).")
    return (f"Photo {result.get('name')} attached ({result.get('size')} bytes, {result.get('type')}, "
            f"sha256 {result.get('sha256')}).")


ASK_FOR_ID = "Which inspection should I open? Say e.g. 'Start inspection inspection-42'."


def plan_turn(messages: Sequence[BaseMessage]) -> Turn:
    """Decide the next turn from the conversation (pure; the tests call it directly)."""
    if not messages:
        return Turn(ASK_FOR_ID)
    last = messages[-1]
    if isinstance(last, ToolMessage):
        return _after_tools(messages)
    if is_refusal(last):  # our own inline screen was refused: say so, do not try again
        found = re.findall(r'"code":"([a-z_]+)"', _content_text(last))
        return Turn(f"That change to the screen was refused ({', '.join(sorted(set(found))) or 'invalid'}); "
                    "the screen stays as it was.")
    if isinstance(last, HumanMessage):
        if _is_follow_up(messages):
            return follow_up(messages, _content_text(last))
        return _opening(messages, last)
    return Turn("Done.")


FOLLOW_UP_DEFAULT = ("Noted. I can change the screen for you: say e.g. 'the risk is high' or "
                     "'add finding: loose bolt on the east rail'.")
NO_SCREEN_YET = "There is no screen yet to change; start the inspection first."
_RISK_SAID = re.compile(r"\brisk\s+is\s+(critical|high|medium|low)\b", re.IGNORECASE)
_FINDING_SAID = re.compile(r"\badd\s+finding\s*:\s*(.+)", re.IGNORECASE | re.DOTALL)
_CHECK_SAID = re.compile(r"\bcheck\b", re.IGNORECASE)
_PROPOSE_SAID = re.compile(r"\bpropose\b", re.IGNORECASE)


def _is_follow_up(messages: Sequence[BaseMessage]) -> bool:
    """The inspector spoke before: this message carries on the conversation (refusals do not count)."""
    humans = [m for m in messages if isinstance(m, HumanMessage) and not is_refusal(m)]
    return len(humans) > 1


def _screen_shown(messages: Sequence[BaseMessage]) -> bool:
    """A screen was put on record: a render_ui call answered, or an inline screen in one of the agent's own
    replies that was not refused. Only AI messages count: the system prompt shows the JSON-patch syntax too."""
    rendered = any(isinstance(m, ToolMessage) and m.name == "render_ui" and _outcome(m).get("ok") for m in messages)
    return rendered or any(isinstance(m, AIMessage) and '{"op":' in _content_text(m)
                           and not (i + 1 < len(messages) and is_refusal(messages[i + 1]))
                           for i, m in enumerate(messages))


def follow_up(messages: Sequence[BaseMessage], text: str) -> Turn:
    """The answer to a follow-up message (see the module docstring for the phrases)."""
    risk = _RISK_SAID.search(text)
    finding = _FINDING_SAID.search(text)
    if (risk or finding) and not _screen_shown(messages):
        return Turn(NO_SCREEN_YET)
    if risk:
        level = risk.group(1).lower()
        return Turn(inline_text(f"Understood: the risk is now {level}.", risk_edit(level)))
    if finding:
        said = " ".join(finding.group(1).split())[:200]
        return Turn(inline_text(f"Added the finding: {said}.", [
            {"op": "add", "path": "/elements/card/props/findings/-", "value": said}]))
    if _PROPOSE_SAID.search(text):
        inspection_id = _last_inspection_id(messages) or "the inspection"
        return Turn(f"These actions for {inspection_id} need your review.",
                    calls=field_calls("review", inspection_id))
    if _CHECK_SAID.search(text):
        return Turn(_outcomes_said(messages))
    return Turn(FOLLOW_UP_DEFAULT)


def _outcomes_said(messages: Sequence[BaseMessage]) -> str:
    """What the server's note (sitewalk_agent.outcomes, in the system message) says of unknown outcomes."""
    for message in messages:
        text = _content_text(message) if isinstance(message, SystemMessage) else ""
        if NOTE_TITLE in text:
            lines = [line[2:] for line in text.split(NOTE_TITLE, 1)[1].splitlines() if line.startswith("- ")]
            return "Checked the work-order system: " + "; ".join(lines) + "."
    return "No call is waiting for an answer: nothing to check."


def _opening(messages: Sequence[BaseMessage], last: HumanMessage) -> Turn:
    """The first turn after the inspector spoke: the scenario's first tool, or the draft."""
    inspection_id = find_inspection_id(_content_text(last))
    if not inspection_id:
        return Turn(ASK_FOR_ID)
    scenario = scenario_of(messages)
    read = ("read_local_draft", {"inspection_id": inspection_id})
    if scenario == "unknown-tool":
        return Turn("First I will measure the noise level at the site.", "measure_noise_level", {"duration_s": 3})
    if scenario in ("locate", "parallel"):
        found = _TIMEOUT_MS.search(_content_text(last))
        timeout_ms = min(max(int(found.group(1)), 1), 60_000) if found else 10_000
        locate = ("get_current_location", {"purpose": f"Record where inspection {inspection_id} is carried out.",
                                           "timeout_ms": timeout_ms})
        if scenario == "parallel":  # both device tools in one message: they run at once
            return Turn(f"Reading the draft for {inspection_id} and locating the device at once.", calls=[read, locate])
        return Turn("First I will check where the inspection takes place.", *locate)
    if scenario in ("review", "photos"):
        return Turn(f"These actions for {inspection_id} need your review.", calls=field_calls(scenario, inspection_id))
    if scenario == "photo":
        return Turn("First I need a photo of the site.", "attach_photo",
                    {"purpose": f"Attach a photo of the site to inspection {inspection_id}."})
    return Turn(f"Looking up the draft for {inspection_id}.", *read)


REVIEW_SUBJECTS = ("Loose bolt on the east rail", "Corroded drain cover")
REVIEW_PHOTOS = ["photo-1", "photo-2"]
FIELD_ACTIONS = ("create_work_order", "notify_site_manager", "archive_photos", "delete_photos")


def field_calls(scenario: str, inspection_id: str) -> list[tuple[str, dict[str, object]]]:
    """The reviewed calls of `script: review` / `script: photos`, all in one message."""
    if scenario == "photos":
        photos: dict[str, object] = {"inspection_id": inspection_id, "photo_ids": list(REVIEW_PHOTOS)}
        return [("archive_photos", dict(photos)), ("delete_photos", dict(photos))]
    orders: list[tuple[str, dict[str, object]]] = [
        ("create_work_order", {"inspection_id": inspection_id, "subject": s, "priority": "high"})
        for s in REVIEW_SUBJECTS]
    notice: dict[str, object] = {"inspection_id": inspection_id,
                                 "message": f"Two work orders are proposed for {inspection_id}."}
    return [*orders, ("notify_site_manager", notice)]


def _field_summary(c: _Context) -> Turn:
    """One sentence per reviewed call answered in the last batch: done, refused (typed) or rejected."""
    said = []
    for m in _answered_together(c.messages):
        read = read_tool_result(m.content)  # an edited call's result comes after LangChain's edit notice
        outcome, text = _outcome(m), read.body
        if not text.startswith("{"):  # a reviewer's rejection is plain text, not an envelope
            said.append(f"{m.name} not run: {text[:200]}")
        elif is_outcome_unknown(outcome):
            said.append(f"{m.name}: outcome unknown, no answer from the work-order system in time; "
                        "it is looked up by its key before anything is retried.")
        elif outcome.get("ok"):
            said.append(f"{m.name} done{_edited_said(read)}{_order_said(outcome)}.")
        else:
            said.append(f"{m.name} refused ({_obj(outcome.get('error')).get('code', 'internal')}).")
    return Turn(" ".join(said))


def _edited_said(read: ToolResult) -> str:
    """", as you edited it (priority: urgent, ...)": an edited call ran with the reviewer's arguments."""
    if read.executed is None:
        return ""
    args = ", ".join(f"{k}: {v}" for k, v in sorted(dict(read.executed["args"]).items()))
    return f", as the reviewer edited it ({args[:200]})"


def _order_said(outcome: Mapping[str, object]) -> str:
    result = outcome.get("result")
    order = result.get("work_order") if isinstance(result, dict) else None
    return f": work order {order}" if isinstance(order, str) and order else ""


def _outcome(message: ToolMessage) -> Mapping[str, object]:
    outcome = tool_envelope(message.content)  # after the edit notice of an edited call
    if not isinstance(outcome, dict):
        return {"ok": False, "error": {"code": "serialization_failed", "message": "unreadable tool result"}}
    return outcome


def _answered_together(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    """The tool results since the last AI message (all calls of one message, answered together)."""
    found: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        found.append(message)
    return found[::-1]


def _walked(answered: Sequence[ToolMessage]) -> ToolMessage | None:
    """Of several walk_site calls answered together, the one that walked (the others were refused)."""
    walks = [m for m in answered if m.name == "walk_site"]
    return next((m for m in walks if _outcome(m).get("ok")), None) if len(walks) > 1 else None


def _after_tools(messages: Sequence[BaseMessage]) -> Turn:
    """The turn after tool results: what the last tool (or, of several, the draft) answered decides."""
    answered = _answered_together(messages)
    main = next((m for m in answered if m.name == "read_local_draft"), None) or _walked(answered) or answered[-1]
    said = " ".join(_device_summary(m.name or "", _outcome(m)) for m in answered
                    if m is not main and m.name in ("get_current_location", "attach_photo"))
    inspection_id = _last_inspection_id(messages[: len(messages) - len(answered)]) or "the inspection"
    context = _Context(messages, inspection_id, scenario_of(messages), _outcome(main))
    step = _AFTER.get(main.name or "")
    turn = step(context) if step else Turn(f"I have no step for the tool {main.name!r}.")
    if said:
        turn.text = f"{said} {turn.text}".strip()
    return turn


class _Context:
    def __init__(self, messages: Sequence[BaseMessage], inspection_id: str, scenario: str | None,
                 outcome: Mapping[str, object]) -> None:
        self.messages, self.inspection_id, self.scenario, self.outcome = messages, inspection_id, scenario, outcome

    def read_draft(self, said: str) -> Turn:
        return Turn(f"{said} Looking up the draft for {self.inspection_id}.", "read_local_draft",
                    {"inspection_id": self.inspection_id})


def _after_noise(c: _Context) -> Turn:
    if c.outcome.get("ok"):
        return c.read_draft(f"The site measures {_obj(c.outcome.get('result')).get('decibels')} dB(A).")
    code = _obj(c.outcome.get("error")).get("code", "internal")
    return c.read_draft(f"I could not measure the noise level ({code}).")


def _after_device(tool: str) -> Callable[[_Context], Turn]:
    return lambda c: c.read_draft(_device_summary(tool, c.outcome))


KEPT_CORRUPT = ("Your stored draft is kept as it is: save a new draft under 'Draft on this device' to replace it, "
                "then start the inspection again.")


def _after_draft(c: _Context) -> Turn:
    if not c.outcome.get("ok"):
        error = _obj(c.outcome.get("error"))
        code = error.get("code", "internal")
        if code == "not_found":  # missing local data: the draft's recovery is a blank draft on the device
            return Turn("", "start_blank_draft", {"inspection_id": c.inspection_id})  # said once it is shown
        said = f"I could not read the draft for {c.inspection_id}: {code} — {error.get('message', '')}"
        return Turn(f"{said} {KEPT_CORRUPT}" if code == "corrupt_data" else said)
    return _show_draft(c, dict(_obj(c.outcome.get("result"))))


def _after_blank_draft(c: _Context) -> Turn:
    """The blank draft the device started (or the draft it held already) on its screen."""
    if not c.outcome.get("ok"):
        error = _obj(c.outcome.get("error"))
        code = error.get("code", "internal")
        said = f"I could not start a blank draft for {c.inspection_id}: {code} — {error.get('message', '')}"
        return Turn(f"{said} {KEPT_CORRUPT}" if code == "corrupt_data" else said)
    result = dict(_obj(c.outcome.get("result")))
    return _show_draft(c, result, created=bool(result.get("created")))


def _show_draft(c: _Context, draft: dict[str, object], created: bool = False) -> Turn:
    """The draft's screen: a blank draft's with its empty fields (said in one sentence), the card, or the
    bigger screen of the scenarios that need one."""
    draft.setdefault("inspection_id", c.inspection_id)
    blank = is_blank(draft)
    position = position_finding(c.messages)
    if position:  # the position this inspection got goes on its card, saying how it was found
        draft["findings"] = [*_items(draft.get("findings", [])), position][:50]
    if blank:
        said = (f"There was no draft for {c.inspection_id} on this device, so I started a blank one for you to "
                "fill in." if created else
                f"The draft for {c.inspection_id} on this device is still blank: fill it in.")
        return Turn(said, "render_ui", blank_draft_screen(draft))
    if c.scenario == "patch-ui":
        return Turn(inline_text(f"Here is the screen for {c.inspection_id}.", patch_lines(inspection_screen(draft))))
    screen = inspection_screen(draft) if c.scenario in ("slow-ui", "confirm") else card_spec(draft)
    return Turn("", "render_ui", screen)


def position_finding(messages: Sequence[BaseMessage]) -> str | None:
    """The last position the device gave or the inspector typed, as a finding for the card."""
    found = next((m for m in reversed(messages) if isinstance(m, ToolMessage) and m.name == "get_current_location"),
                 None)
    outcome = _outcome(found) if found is not None else {}
    if not outcome.get("ok"):
        return None
    result = _obj(outcome.get("result"))
    where = f"{result.get('latitude')}, {result.get('longitude')}"
    if result.get("source") == "manual":
        return f"Position typed by the inspector: {where}"
    return f"Position from the device: {where} (±{result.get('accuracy_m')} m)"


def _after_render(c: _Context) -> Turn:
    screens_sent = sum(1 for m in c.messages if isinstance(m, ToolMessage) and m.name == "render_ui")
    if c.outcome.get("ok") and c.scenario == "bad-ui" and screens_sent == 1:
        shown = next(call["args"] for m in reversed(c.messages) for call in getattr(m, "tool_calls", None) or []
                     if call.get("name") == "render_ui")
        return Turn("", "render_ui", broken_spec(shown))
    if c.outcome.get("ok") and c.scenario in WALK_SCENARIOS and screens_sent == 1:
        walk = ("walk_site", {"inspection_id": c.inspection_id})
        return Turn("Now a short walk round the site with you.", calls=[walk] * WALK_SCENARIOS[c.scenario])
    if c.outcome.get("ok") and c.scenario in ("patch-edit", "bad-patch") and screens_sent == 1:
        return Turn(inline_text("The photos show more corrosion than the draft says: raising the risk.",
                                risk_edit("high", broken=c.scenario == "bad-patch")))
    if c.outcome.get("ok"):
        return Turn(f"The card for {c.inspection_id} is on screen.")
    issues = _items(c.outcome.get("issues"))
    codes = ", ".join(sorted({str(i.get("code", "?")) for i in issues if isinstance(i, dict)})) or "invalid"
    return Turn(f"The screen for {c.inspection_id} was rejected ({codes}).")


WALK_SCENARIOS = {"site-walk": 1, "site-walk-twice": 2}  # how many walk_site calls the one message makes
WALK_FINDINGS = {"handrail_secure": "Handrail secure", "corroded_bolts": "Corroded bolts"}


def walk_findings(answers: Iterable[Mapping[str, object]]) -> list[str]:
    """The site walk's answers as findings: "Handrail secure: yes", "Corroded bolts: 3"."""
    out = []
    for a in answers:
        value = a.get("answer")
        said = ("yes" if value else "no") if isinstance(value, bool) else str(value)
        out.append(f"{WALK_FINDINGS.get(str(a.get('question_id')), str(a.get('question')))}: {said}")
    return out


def _after_walk(c: _Context) -> Turn:
    if not c.outcome.get("ok"):
        return Turn(f"The site walk did not happen ({_obj(c.outcome.get('error')).get('code', 'internal')}).")
    found = walk_findings(_obj(a) for a in _items(_obj(c.outcome.get("result")).get("answers")))
    ops = [{"op": "add", "path": "/elements/card/props/findings/-", "value": f} for f in found]
    refused = sum(1 for m in _answered_together(c.messages) if m.name == "walk_site" and not _outcome(m).get("ok"))
    more = f" {refused} more walk refused (one at a time)." if refused else ""
    return Turn(inline_text(f"Walked the site with you: {'; '.join(found)}.{more}", ops))


_AFTER = {
    "measure_noise_level": _after_noise,
    "get_current_location": _after_device("get_current_location"),
    "attach_photo": _after_device("attach_photo"),
    "read_local_draft": _after_draft,
    "start_blank_draft": _after_blank_draft,
    "render_ui": _after_render,
    "walk_site": _after_walk,
    **{name: _field_summary for name in FIELD_ACTIONS},
}


def turn_chunks(turn: Turn, *, message_id: str | None = None, tool_call_id: str | None = None) -> list[AIMessageChunk]:
    """The turn as a provider would stream it. The last chunk carries chunk_position='last'.

    Each tool call streams under its own `index`, one call after the other; `tool_call_id` names
    the first call (tests), the others get fresh ids."""
    message_id = message_id or new_id("msg")
    chunks: list[AIMessageChunk] = [AIMessageChunk(content=piece, id=message_id) for piece in fragment(turn.text)]
    for index, (tool, args) in enumerate(turn.calls):
        call_id = (tool_call_id if index == 0 else None) or new_id("call")
        text = json.dumps(args or {}, ensure_ascii=False, separators=(",", ":"))
        for k, piece in enumerate(fragment(text) or [""]):
            first = k == 0
            chunks.append(AIMessageChunk(content="", id=message_id, tool_call_chunks=[{
                "index": index, "id": call_id if first else None, "name": tool if first else None,
                "args": piece, "type": "tool_call_chunk"}]))
    if not chunks or chunks[-1].tool_call_chunks:
        # An empty closing chunk, as providers send: langchain-core's event-protocol bridge reads a
        # `last` chunk as the finished message and drops the tool-call delta it carries.
        chunks.append(AIMessageChunk(content="", id=message_id))
    chunks[-1].chunk_position = "last"
    return chunks


class ScriptedInspectionModel(BaseChatModel):
    """The embedded default model (see the module docstring for the script)."""

    @property
    def _llm_type(self) -> str:
        return "sitewalk-scripted"

    def bind_tools(self, tools: Sequence[object], **kwargs: object) -> Runnable[LanguageModelInput, AIMessage]:
        # The script knows its tools; accept and ignore the schemas. Pacing (fragment_delay, set by
        # the graph's model settings) is bound like any model setting.
        delay = kwargs.get("fragment_delay")
        return self.bind(fragment_delay=delay) if delay else self

    def _chunks(self, messages: list[BaseMessage]) -> list[AIMessageChunk]:
        return turn_chunks(plan_turn(messages))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: object,
    ) -> ChatResult:
        chunks = self._chunks(messages)
        merged = chunks[0]
        for chunk in chunks[1:]:
            merged = merged + chunk
        return ChatResult(generations=[ChatGeneration(message=message_chunk_to_message(merged))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: object,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages):
            yield ChatGenerationChunk(message=chunk)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        fragment_delay: float = 0.0,
        **kwargs: object,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for k, chunk in enumerate(self._chunks(messages)):
            if fragment_delay and k:
                await asyncio.sleep(fragment_delay)
            yield ChatGenerationChunk(message=chunk)
