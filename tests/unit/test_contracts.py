from sitewalk_shared.contracts import (
    TOOL_CONTRACTS,
    ErrorCode,
    ReadLocalDraftArgs,
    ToolFailure,
    ToolSuccess,
    error_result,
    ok_result,
    parse_result,
)


def test_success_envelope_round_trips():
    sent = ok_result("read_local_draft", "call_1", {"site": "Pier 4"})
    back = parse_result(sent, tool="read_local_draft", tool_call_id="call_1")
    assert isinstance(back, ToolSuccess)
    assert back.result == {"site": "Pier 4"} and back.tool_call_id == "call_1"


def test_error_envelope_round_trips_with_code_and_detail():
    sent = error_result("read_local_draft", "call_2", "not_found", "no draft", key="sitewalk:draft:x")
    back = parse_result(sent, tool="read_local_draft", tool_call_id="call_2")
    assert isinstance(back, ToolFailure)
    assert back.error.code is ErrorCode.not_found and back.error.detail == {"key": "sitewalk:draft:x"}


def test_sdk_bare_error_string_is_understood():
    back = parse_result({"error": "Tool boom failed"}, tool="t", tool_call_id="c")
    assert isinstance(back, ToolFailure) and back.error.message == "Tool boom failed"


def test_malformed_envelope_and_non_object_become_serialization_failed():
    broken = {"ok": True, "tool_call_id": "c", "tool": "t", "result": "not an object"}
    for value in (broken, ["a"], None, 3):
        back = parse_result(value, tool="t", tool_call_id="c")
        assert isinstance(back, ToolFailure) and back.error.code is ErrorCode.serialization_failed


def test_contract_digest_is_stable_and_changes_with_the_schema():
    contract = TOOL_CONTRACTS["read_local_draft"]
    assert contract.digest == contract.digest and len(contract.digest) == 16

    class Renamed(ReadLocalDraftArgs):
        extra_field: int = 0

    from dataclasses import replace

    assert replace(contract, args=Renamed).digest != contract.digest


def test_server_pydantic_is_the_browser_bundles_pydantic():
    """Contract digests hash pydantic's JSON Schema output: both sides must run the same pydantic."""
    import tomllib
    from pathlib import Path

    import pydantic

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    wheels = pyproject["tool"]["sitewalk"]["bundle"]
    pinned = next(w["version"] for w in wheels["wheels"] if w["name"] == "pydantic")
    assert pydantic.VERSION == pinned


def test_recorded_streams_carry_todays_contract_digests():
    """The recorded interrupts name the contract each tool had when recorded: a changed contract must come
    with the fixtures updated (the handshake would otherwise call them a mismatch)."""
    import re
    from pathlib import Path

    from sitewalk_shared.contracts.tools import TOOL_CONTRACTS

    found = set()
    for path in (Path(__file__).parent / "fixtures").glob("calls_parallel_*.sse"):
        text = path.read_text()
        for name, digest in re.findall(r'"name":"(\w+)","args":\{[^{}]*\}\},"contract":\{"protocol":"[^"]+",'
                                       r'"digest":"([0-9a-f]{16})"', text):
            assert digest == TOOL_CONTRACTS[name].digest, (path.name, name)
            found.add(name)
    assert found == {"read_local_draft", "get_current_location"}
