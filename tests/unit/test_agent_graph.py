"""The inspection graph in-process: the scripted model's fragments, ids, and the headless tool."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from sitewalk_agent import graph as G
from sitewalk_agent.demo.scripted_model import (
    FRAGMENT_SIZES,
    ScriptedInspectionModel,
    card_spec,
    find_inspection_id,
    fragment,
    plan_turn,
    turn_chunks,
)
from sitewalk_agent.headless import run_headless_call
from sitewalk_agent.models import make_model
from sitewalk_agent.screens import render_ui_update
from sitewalk_shared.contracts.envelope import error_result, ok_result
from sitewalk_shared.contracts.tools import READ_LOCAL_DRAFT, TOOL_CONTRACTS
from sitewalk_shared.ui_spec.model import Spec
from sitewalk_shared.ui_spec.validate import validate_spec

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "high"}
READ_CALL = {"id": "call_a", "name": "read_local_draft", "args": {"inspection_id": "inspection-42"}}


def _assemble(chunks):
    text = "".join(c.content for c in chunks)
    calls: dict[int, dict] = {}
    for c in chunks:
        for tc in c.tool_call_chunks:
            slot = calls.setdefault(tc["index"], {"id": None, "name": None, "args": ""})
            slot["id"] = slot["id"] or tc["id"]
            slot["name"] = slot["name"] or tc["name"]
            slot["args"] += tc["args"] or ""
    return text, calls


def test_fragment_sizes_and_roundtrip():
    text = "x" * 500
    pieces = fragment(text)
    assert "".join(pieces) == text
    assert all(12 <= len(p) <= 24 for p in pieces[:-1])
    assert min(FRAGMENT_SIZES) >= 12 and max(FRAGMENT_SIZES) <= 24


def test_find_inspection_id():
    assert find_inspection_id("Start inspection inspection-42") == "inspection-42"
    assert find_inspection_id("Start inspection inspection-42.") == "inspection-42"
    assert find_inspection_id("please open inspection 7b") == "7b"
    assert find_inspection_id("hello") is None


def test_read_call_fragments_assemble_to_exact_args():
    turn = plan_turn([HumanMessage("Start inspection inspection-42")])
    assert turn.tool == "read_local_draft" and turn.args == {"inspection_id": "inspection-42"}
    chunks = turn_chunks(turn)
    text, calls = _assemble(chunks)
    assert text == "Looking up the draft for inspection-42."
    assert len([c for c in chunks if c.content]) >= 2  # the text streams in pieces too
    assert json.loads(calls[0]["args"]) == turn.args
    assert calls[0]["name"] == "read_local_draft" and calls[0]["id"].startswith("call_")
    firsts = [c.tool_call_chunks[0] for c in chunks if c.tool_call_chunks]
    assert all(f["id"] is None and f["name"] is None for f in firsts[1:])
    assert chunks[-1].chunk_position == "last"
    assert len({c.id for c in chunks}) == 1 and chunks[0].id.startswith("msg_")


def test_render_call_fragments_assemble_to_exact_spec():
    conversation = [
        HumanMessage("Start inspection inspection-42"),
        AIMessage("", tool_calls=[READ_CALL]),
        ToolMessage(json.dumps(ok_result("read_local_draft", "call_a", DRAFT)), tool_call_id="call_a",
                    name="read_local_draft"),
    ]
    turn = plan_turn(conversation)
    assert turn.tool == "render_ui" and turn.args == card_spec(DRAFT)
    chunks = turn_chunks(turn)
    _, calls = _assemble(chunks)
    fragments = [c for c in chunks if c.tool_call_chunks]
    assert len(fragments) >= 10
    assert json.loads(calls[0]["args"]) == turn.args
    Spec.model_validate(turn.args)
    assert validate_spec(turn.args) == []
    props = turn.args["elements"]["card"]["props"]
    assert props["title"] == "Inspection inspection-42" and turn.args["elements"]["risk"]["props"]["level"] == "high"


def test_model_stream_and_generate_agree():
    model = ScriptedInspectionModel().bind_tools([{"type": "function", "function": {"name": "x"}}])
    messages = [HumanMessage("Start inspection inspection-42")]
    streamed = None
    for chunk in model.stream(messages):
        streamed = chunk if streamed is None else streamed + chunk
    generated = model.invoke(messages)
    assert streamed.content == generated.content
    assert streamed.tool_calls[0]["args"] == generated.tool_calls[0]["args"] == {"inspection_id": "inspection-42"}


def test_ids_are_unique():
    turn = plan_turn([HumanMessage("Start inspection inspection-42")])
    call_ids, message_ids = set(), set()
    for _ in range(200):
        chunks = turn_chunks(turn)
        message_ids.add(chunks[0].id)
        call_ids.add(next(c.tool_call_chunks[0]["id"] for c in chunks if c.tool_call_chunks))
    assert len(call_ids) == len(message_ids) == 200


def test_script_failure_and_closing_and_no_id():
    base = [
        HumanMessage("Start inspection inspection-42"),
        AIMessage("", tool_calls=[READ_CALL]),
    ]
    failed = ToolMessage(
        json.dumps(error_result("read_local_draft", "call_a", "corrupt_data", "the stored draft is not JSON")),
        tool_call_id="call_a", name="read_local_draft", status="error",
    )
    turn = plan_turn([*base, failed])
    assert turn.tool is None and "corrupt_data" in turn.text and "the stored draft is not JSON" in turn.text
    done = plan_turn([*base, ToolMessage('{"ok":true,"revision":1}', tool_call_id="call_b", name="render_ui")])
    assert done.tool is None and done.text == "The card for inspection-42 is on screen."
    ask = plan_turn([HumanMessage("hi")])
    assert ask.tool is None and "Which inspection" in ask.text


# --- the compiled graph, in-process ----------------------------------------------------------


async def _drive(resume_value, text="Start inspection inspection-42"):
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    graph = G.build_graph()
    graph.checkpointer = InMemorySaver()
    config = {"configurable": {"thread_id": "t", "fragment_delay_ms": 0}}
    await graph.ainvoke({"messages": [HumanMessage(text)]}, config)
    state = await graph.aget_state(config)
    [pending] = state.interrupts
    value = pending.value
    assert value["type"] == "tool" and value["tool_call"]["name"] == "read_local_draft"
    assert value["tool_call"]["args"] == {"inspection_id": "inspection-42"}
    call_id = value["tool_call"]["id"]
    await graph.ainvoke(Command(resume={pending.id: resume_value(call_id)}), config)
    return (await graph.aget_state(config)).values, call_id


def test_graph_happy_path_keyed_resume():
    values, call_id = asyncio.run(_drive(lambda cid: {cid: ok_result("read_local_draft", cid, DRAFT)}))
    tool_msg = next(m for m in values["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == call_id)
    assert json.loads(tool_msg.content)["ok"] is True and tool_msg.status == "success"
    spec = values["ui_spec"]
    assert spec["root"] == "card" and spec["identity"]["revision"] == 1
    assert spec["identity"]["tool_call_id"].startswith("call_") and spec["identity"]["message_id"].startswith("msg_")
    assert values["inspection_id"] == "inspection-42"
    assert values["messages"][-1].content == "The card for inspection-42 is on screen."


@pytest.mark.parametrize(
    "answer, code",
    [
        (lambda cid: {cid: {"error": "boom"}}, "internal"),
        (lambda cid: {"error": "boom"}, "internal"),  # bare value, not keyed
        (lambda cid: {cid: error_result("read_local_draft", cid, "corrupt_data", "unreadable")}, "corrupt_data"),
        (lambda cid: {cid: ok_result("read_local_draft", cid, {"site": 5})}, "serialization_failed"),
        (lambda cid: {cid: ok_result("read_local_draft", "call_other", DRAFT)}, "serialization_failed"),
        (lambda cid: {cid: "not an object"}, "serialization_failed"),
    ],
)
def test_graph_failures_become_typed_tool_errors(answer, code):
    values, call_id = asyncio.run(_drive(answer))
    tool_msg = next(m for m in values["messages"] if isinstance(m, ToolMessage))
    envelope = json.loads(tool_msg.content)
    assert tool_msg.status == "error" and envelope["ok"] is False
    assert envelope["error"]["code"] == code and envelope["tool_call_id"] == call_id
    assert code in values["messages"][-1].content
    assert not values.get("ui_spec")


def test_render_ui_rejects_invalid_spec():
    call = {"id": "call_x", "name": "render_ui", "args": {"root": "a", "elements": {"a": {"type": "Marquee"}}}}
    message, update = render_ui_update(call, None, "msg_1")
    body = json.loads(message.content)
    assert message.status == "error" and body["ok"] is False and update == {}
    assert [i["code"] for i in body["issues"]] == ["unknown_type"]
    message, _ = render_ui_update({**call, "args": {"root": 3}}, None, "msg_1")
    assert {i["code"] for i in json.loads(message.content)["issues"]} == {"invalid_shape"}


def test_render_ui_revision_increments():
    call = {"id": "call_x", "name": "render_ui", "args": card_spec(DRAFT)}
    _, first = render_ui_update(call, None, "msg_1")
    _, second = render_ui_update({**call, "id": "call_y"}, first["ui_spec"], "msg_2")
    assert first["ui_spec"]["identity"]["revision"] == 1
    assert second["ui_spec"]["identity"] == {"message_id": "msg_2", "tool_call_id": "call_y", "revision": 2}


def test_contract_mismatch_skips_the_browser():
    call = {"id": "call_x", "name": "read_local_draft", "args": {"inspection_id": "inspection-42"}}
    message = asyncio.run(run_headless_call(READ_LOCAL_DRAFT, call, {"client_tools": {"read_local_draft": "0" * 16}}))
    body = json.loads(message.content)
    assert body["error"]["code"] == "contract_mismatch"
    assert body["error"]["detail"]["server_digest"] == READ_LOCAL_DRAFT.digest


def test_invalid_args_skip_the_browser():
    call = {"id": "call_x", "name": "read_local_draft", "args": {"inspection_id": "no spaces allowed"}}
    message = asyncio.run(run_headless_call(READ_LOCAL_DRAFT, call, {}))
    assert json.loads(message.content)["error"]["code"] == "invalid_args"


def test_state_schema_is_published():
    schema = G.graph.get_input_jsonschema()
    assert {"messages", "inspection_id", "ui_spec", "client_tools"} <= set(schema["properties"])


def test_sitewalk_model_switches_to_init_chat_model(monkeypatch):
    import sys
    import types

    seen = {}
    fake = types.ModuleType("langchain.chat_models")

    def init_chat_model(name):
        seen["name"] = name
        return ScriptedInspectionModel()

    fake.init_chat_model = init_chat_model
    monkeypatch.setitem(sys.modules, "langchain", types.ModuleType("langchain"))
    monkeypatch.setitem(sys.modules, "langchain.chat_models", fake)
    monkeypatch.setenv("SITEWALK_MODEL", "openai:gpt-4o-mini")
    make_model()
    assert seen == {"name": "openai:gpt-4o-mini"}
    monkeypatch.setenv("SITEWALK_MODEL", "")
    assert isinstance(make_model(), ScriptedInspectionModel)


def test_tool_schemas_come_from_the_contracts():
    by_name = {t["function"]["name"]: t["function"] for t in G.TOOL_SCHEMAS}
    assert by_name["read_local_draft"]["parameters"] == READ_LOCAL_DRAFT.args.model_json_schema()
    assert by_name["read_local_draft"]["description"] == READ_LOCAL_DRAFT.description
    assert "InspectionCard" in by_name["render_ui"]["description"]


def test_replay_reuses_the_ledger_in_process():
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore
    from langgraph.types import Command

    async def go():
        graph = G.build_graph()
        graph.checkpointer, graph.store = InMemorySaver(), InMemoryStore()
        config = {"configurable": {"thread_id": "t-ledger"}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42")]}, config)
        waiting = await graph.aget_state(config)
        [pending] = waiting.interrupts
        call_id = pending.value["tool_call"]["id"]
        answer = {call_id: ok_result("read_local_draft", call_id, DRAFT)}
        await graph.ainvoke(Command(resume={pending.id: answer}), config)
        await graph.ainvoke(None, waiting.config)  # replay from the checkpoint that waited
        state = await graph.aget_state(config)
        assert not state.interrupts and not state.next
        answers = [m.artifact for m in state.values["messages"]
                   if isinstance(m, ToolMessage) and m.tool_call_id == call_id]
        assert answers == [{"answered_by": "ledger"}]

    asyncio.run(go())


def test_two_headless_calls_in_one_message_are_pending_at_once_and_answered_in_one_command():
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    async def go():
        graph = G.build_graph()
        graph.checkpointer = InMemorySaver()
        config = {"configurable": {"thread_id": "t-two"}}
        calls = [
            {"id": "call_one", "name": "read_local_draft", "args": {"inspection_id": "inspection-1"}},
            {"id": "call_two", "name": "read_local_draft", "args": {"inspection_id": "inspection-2"}},
        ]
        message = AIMessage("", tool_calls=calls, id="msg_x")
        await graph.aupdate_state(config, {"messages": [HumanMessage("compare"), message]}, as_node="model")
        await graph.ainvoke(None, config)
        state = await graph.aget_state(config)
        assert state.next == ("tools", "tools")
        pending = {i.value["tool_call"]["id"]: i for i in state.interrupts}
        assert sorted(pending) == ["call_one", "call_two"] and len({i.id for i in state.interrupts}) == 2
        answers = {i.id: {cid: ok_result("read_local_draft", cid, {**DRAFT, **i.value["tool_call"]["args"]})}
                   for cid, i in pending.items()}
        await graph.ainvoke(Command(resume=answers), config)  # one command answers both
        state = await graph.aget_state(config)
        assert not state.interrupts
        tool_messages = [m for m in state.values["messages"] if isinstance(m, ToolMessage)]
        assert sorted(m.tool_call_id for m in tool_messages[:2]) == ["call_one", "call_two"]
        assert all(json.loads(m.content)["ok"] and m.artifact == {"answered_by": "browser"} for m in tool_messages[:2])

    asyncio.run(go())


def test_invalid_tool_call_json_is_answered():
    from langgraph.checkpoint.memory import InMemorySaver

    async def go():
        graph = G.build_graph()
        graph.checkpointer = InMemorySaver()
        config = {"configurable": {"thread_id": "t-bad-json"}}
        bad = AIMessage("", id="msg_bad", invalid_tool_calls=[
            {"id": "call_bad", "name": "render_ui", "args": "{oops", "error": "bad json", "type": "invalid_tool_call"}])
        await graph.aupdate_state(config, {"messages": [HumanMessage("Start inspection inspection-42"), bad]},
                                  as_node="model")
        await graph.ainvoke(None, config)
        messages = (await graph.aget_state(config)).values["messages"]
        [message] = [m for m in messages if isinstance(m, ToolMessage)]
        assert message.tool_call_id == "call_bad" and message.status == "error"
        assert json.loads(message.content)["error"]["code"] == "invalid_args"
        assert isinstance(messages[-1], AIMessage) and messages[-1].id != "msg_bad"  # the model was asked again

    asyncio.run(go())


def test_a_call_to_a_tool_nobody_has_is_answered_not_implemented():
    from langgraph.checkpoint.memory import InMemorySaver

    async def go():
        graph = G.build_graph()
        graph.checkpointer = InMemorySaver()
        config = {"configurable": {"thread_id": "t-no-tool"}}
        ghost = AIMessage("", id="msg_g", tool_calls=[{"id": "call_g", "name": "teleport", "args": {}}])
        await graph.aupdate_state(config, {"messages": [HumanMessage("hi"), ghost]}, as_node="model")
        await graph.ainvoke(None, config)
        messages = (await graph.aget_state(config)).values["messages"]
        [message] = [m for m in messages if isinstance(m, ToolMessage)]
        assert json.loads(message.content)["error"]["code"] == "not_implemented"

    asyncio.run(go())


def test_scenario_unknown_tool_measures_noise_first_then_reads_the_draft():
    from langchain_core.messages import HumanMessage, ToolMessage

    from sitewalk_agent.demo.scripted_model import plan_turn

    human = HumanMessage("Start inspection inspection-88\nscript: unknown-tool")
    first = plan_turn([human])
    assert first.tool == "measure_noise_level"
    failed = ToolMessage('{"ok": false, "error": {"code": "not_implemented", "message": "no"}}',
                         tool_call_id="c1", name="measure_noise_level")
    second = plan_turn([human, failed])
    assert second.tool == "read_local_draft" and second.args == {"inspection_id": "inspection-88"}
    assert "not_implemented" in second.text


def test_scenario_bad_ui_sends_a_second_screen_outside_the_catalog():
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from sitewalk_agent.demo.scripted_model import card_spec, plan_turn
    from sitewalk_shared.ui_spec.validate import validate_spec

    human = HumanMessage("Start inspection inspection-51 script: bad-ui")
    spec = card_spec({"inspection_id": "inspection-51", "site": "Pier"})
    shown = AIMessage("", tool_calls=[{"id": "c2", "name": "render_ui", "args": spec}])
    accepted = ToolMessage('{"ok": true, "revision": 1}', tool_call_id="c2", name="render_ui")
    turn = plan_turn([human, shown, accepted])
    assert turn.tool == "render_ui"
    assert [i.code for i in validate_spec(turn.args)] == ["unknown_type"]
    rejected = ToolMessage('{"ok": false, "issues": [{"code": "unknown_type"}]}', tool_call_id="c3", name="render_ui")
    again = AIMessage("", tool_calls=[{"id": "c3", "name": "render_ui", "args": turn.args}])
    closing = plan_turn([human, shown, accepted, again, rejected])
    assert closing.tool is None and "unknown_type" in closing.text


def test_scenario_locate_asks_for_the_position_first_then_reads_the_draft():
    from sitewalk_agent.demo.scripted_model import plan_turn

    human = HumanMessage("Start inspection inspection-21\nscript: locate timeout_ms=5")
    first = plan_turn([human])
    assert first.tool == "get_current_location"
    assert first.args == {"purpose": "Record where inspection inspection-21 is carried out.", "timeout_ms": 5}
    from sitewalk_shared.contracts.tools import GET_CURRENT_LOCATION

    GET_CURRENT_LOCATION.args.model_validate(first.args)
    assert plan_turn([HumanMessage("Start inspection inspection-21 script: locate")]).args["timeout_ms"] == 10_000
    fix = {"latitude": 59.3293, "longitude": 18.0686, "accuracy_m": 12.0, "timestamp": "2026-12-02T10:00:00.000Z"}
    found = ToolMessage(json.dumps(ok_result("get_current_location", "c1", fix)), tool_call_id="c1",
                        name="get_current_location")
    second = plan_turn([human, found])
    assert second.tool == "read_local_draft" and second.args == {"inspection_id": "inspection-21"}
    assert "59.3293, 18.0686" in second.text and "±12.0 m" in second.text
    denied = ToolMessage(json.dumps(error_result("get_current_location", "c1", "permission_denied", "declined")),
                         tool_call_id="c1", name="get_current_location", status="error")
    third = plan_turn([human, denied])
    assert third.tool == "read_local_draft" and "permission_denied" in third.text


def test_scenario_locate_says_a_typed_position_was_typed_and_puts_it_on_the_card():
    from sitewalk_agent.demo.scripted_model import plan_turn

    human = HumanMessage("Start inspection inspection-22 script: locate")
    typed = {"latitude": -33.8688, "longitude": 151.2093, "accuracy_m": None,
             "timestamp": "2026-12-02T10:00:00.000Z", "source": "manual"}
    from sitewalk_shared.contracts.tools import GET_CURRENT_LOCATION

    GET_CURRENT_LOCATION.result.model_validate(typed)
    found = ToolMessage(json.dumps(ok_result("get_current_location", "c1", typed)), tool_call_id="c1",
                        name="get_current_location")
    second = plan_turn([human, found])
    assert second.tool == "read_local_draft"
    assert "The inspector typed the position: -33.8688, 151.2093 (typed by hand, accuracy unknown" in second.text
    draft_call = AIMessage("", tool_calls=[{"id": "c2", "name": "read_local_draft", "args": second.args}])
    draft = ToolMessage(json.dumps(ok_result("read_local_draft", "c2", {**DRAFT, "inspection_id": "inspection-22"})),
                        tool_call_id="c2", name="read_local_draft")
    card = plan_turn([human, AIMessage("", tool_calls=[{"id": "c1", "name": "get_current_location", "args": {}}]),
                      found, draft_call, draft])
    assert card.tool == "render_ui"
    findings = card.args["elements"]["card"]["props"]["findings"]
    assert findings == ["crack", "Position typed by the inspector: -33.8688, 151.2093"]


def test_scenario_photo_asks_for_a_photo_first_then_reads_the_draft():
    from sitewalk_agent.demo.scripted_model import plan_turn
    from sitewalk_shared.contracts.tools import ATTACH_PHOTO

    human = HumanMessage("Start inspection inspection-31 script: photo")
    first = plan_turn([human])
    assert first.tool == "attach_photo"
    ATTACH_PHOTO.args.model_validate(first.args)
    meta = {"name": "rail.jpg", "size": 12, "type": "image/jpeg", "sha256": "a" * 64}
    attached = ToolMessage(json.dumps(ok_result("attach_photo", "c1", meta)), tool_call_id="c1", name="attach_photo")
    second = plan_turn([human, attached])
    assert second.tool == "read_local_draft" and "rail.jpg" in second.text and "a" * 64 in second.text


def test_graph_interrupts_for_the_location_in_the_locate_scenario():
    from langgraph.checkpoint.memory import InMemorySaver

    async def go():
        graph = G.build_graph()
        graph.checkpointer = InMemorySaver()
        config = {"configurable": {"thread_id": "t-locate"}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-21 script: locate")]}, config)
        [pending] = (await graph.aget_state(config)).interrupts
        assert pending.value["tool_call"]["name"] == "get_current_location"
        assert pending.value["contract"]["digest"] == TOOL_CONTRACTS["get_current_location"].digest

    asyncio.run(go())


# --- inline screens: JSON-patch lines in the agent's text ------------------------------------


def _draft_answer(cid):
    return {cid: ok_result("read_local_draft", cid, DRAFT)}


def test_scenario_patch_ui_writes_the_screen_inline_and_the_graph_keeps_it():
    from sitewalk_agent.demo.scripted_model import inspection_screen
    from sitewalk_shared.ui_spec.inline import split_inline
    from sitewalk_shared.ui_spec.model import inline_spec_call_id

    values, _ = asyncio.run(_drive(_draft_answer, "Start inspection inspection-42 script: patch-ui"))
    reply = next(m for m in reversed(values["messages"]) if isinstance(m, AIMessage) and "{" in m.content)
    prose, patch = split_inline(reply.content)
    assert prose.strip() == "Here is the screen for inspection-42." and len(patch.splitlines()) == 10
    spec = values["ui_spec"]
    expected = Spec.model_validate(inspection_screen(DRAFT)).model_dump(mode="json")
    assert {"root": spec["root"], "elements": spec["elements"]} == expected
    assert spec["identity"] == {"message_id": reply.id, "tool_call_id": inline_spec_call_id(reply.id), "revision": 1}
    assert values["ui_issues"] == []


@pytest.mark.parametrize("scenario, level, issues",
                         [("patch-edit", "high", []), ("bad-patch", "high", ["invalid_patch"])])
def test_scenarios_that_edit_the_card_with_patch_lines(scenario, level, issues):
    values, _ = asyncio.run(_drive(lambda cid: {cid: ok_result("read_local_draft", cid, {**DRAFT, "risk": "low"})},
                                   f"Start inspection inspection-42 script: {scenario}"))
    spec = values["ui_spec"]
    risk = spec["elements"]["risk"]["props"]
    if issues:  # refused: the card on record is the render_ui one, unchanged
        assert risk == {"level": "low", "label": "Risk: low"} and spec["identity"]["revision"] == 1
        assert [i["code"] for i in values["ui_issues"]] == issues and values["ui_issues"][0]["element"] == "badge"
    else:
        assert risk == {"level": level, "label": f"Risk: {level}"} and spec["identity"]["revision"] == 2
        assert spec["identity"]["tool_call_id"].endswith(":inline_spec") and values["ui_issues"] == []
    assert spec["elements"]["card"]["props"]["site"] == DRAFT["site"]


def test_a_refused_inline_screen_is_reported_to_the_model_with_its_repairs():
    from sitewalk_agent.inline_ui import REFUSAL_NAME

    values, _ = asyncio.run(_drive(lambda cid: {cid: ok_result("read_local_draft", cid, {**DRAFT, "risk": "low"})},
                                   "Start inspection inspection-42 script: bad-patch"))
    patch_reply, notice, closing = values["messages"][-3:]
    assert isinstance(notice, HumanMessage) and notice.name == REFUSAL_NAME
    assert '"code":"invalid_patch"' in notice.content and '"repair":' in notice.content
    assert isinstance(closing, AIMessage) and "refused (invalid_patch)" in closing.content
    assert "{" in patch_reply.content


def test_a_model_that_keeps_sending_bad_patches_is_told_at_most_max_repairs_times():
    from sitewalk_agent.inline_ui import MAX_REPAIRS, inline_ui_update

    bad = AIMessage('{"op":"remove","path":"/elements/ghost"}', id="msg_bad")
    history = [HumanMessage("Start inspection inspection-42")]
    for _ in range(MAX_REPAIRS + 2):
        update = inline_ui_update(bad, None, history)
        assert [i["code"] for i in update["ui_issues"]] == ["invalid_patch"]
        history = [*history, bad, *update.get("messages", [])]
    notices = [m for m in history if isinstance(m, HumanMessage) and m.name]
    assert len(notices) == MAX_REPAIRS
    from sitewalk_agent.middleware import GenerativeUiMiddleware

    # in the agent: the refusals send the model back while repairs are left, then the turn ends
    middleware = GenerativeUiMiddleware()
    assert middleware.after_model({"messages": [history[0], bad]}, None)["jump_to"] == "model"
    assert "jump_to" not in middleware.after_model({"messages": [*history, bad]}, None)


def test_pace_ms_in_the_first_message_sets_the_fragment_pacing():
    from sitewalk_agent.demo.scripted_model import pace_of

    assert pace_of([HumanMessage("Start inspection inspection-1 script: patch-ui pace_ms=150")]) == 150
    assert pace_of([HumanMessage("Start inspection inspection-1"), HumanMessage("pace_ms=9")]) is None
    assert pace_of([]) is None


def test_the_example_graph_reads_sitewalk_model_the_same_way(monkeypatch):
    """`SITEWALK_MODEL=scripted` is the scripted model for the example graph too (one reader: make_model)."""
    import importlib

    import sitewalk_agent.example as example
    monkeypatch.setenv("SITEWALK_MODEL", "scripted")
    rebuilt = importlib.reload(example)
    assert rebuilt.graph.name == "example"


@pytest.mark.parametrize(("opening", "offered"), [
    ("Start inspection inspection-88\nscript: unknown-tool", True),
    ("Start inspection inspection-88\nscript: locate", False),
    ("Start inspection inspection-88", False),
])
def test_measure_noise_level_is_offered_to_the_scripted_model_only_in_its_unknown_tool_scenario(opening, offered):
    """No model is offered a tool the browser does not implement, save the scripted one in that scenario;
    the graph still has it, so the scenario's call reaches the browser and comes back not_implemented."""
    from langchain.agents.middleware import ModelRequest

    from sitewalk_agent.demo import ScriptedUnknownToolMiddleware
    from sitewalk_agent.headless import headless_tools

    middleware = ScriptedUnknownToolMiddleware()
    tools = [*headless_tools(), *middleware.tools]
    messages = [HumanMessage(opening)]
    request = ModelRequest(model=ScriptedInspectionModel(), messages=messages, tools=tools,
                           state={"messages": messages})
    seen: list[list[str]] = []

    async def handler(req):
        seen.append([t.name for t in req.tools])
        return AIMessage("")

    asyncio.run(middleware.awrap_model_call(request, handler))
    assert ("measure_noise_level" in seen[0]) is offered
    assert set(seen[0]) >= {"read_local_draft", "get_current_location"}
    assert "measure_noise_level" in {t.name for t in G.build_graph().nodes["tools"].bound.tools_by_name.values()}
