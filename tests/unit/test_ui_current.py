"""Which spec is current: message order, tool name, call id and revision."""

import itertools

from sitewalk.ui.current import CurrentSpec, SpecCandidate, pick_current


def cand(message, call, call_id, revision=0, tool="render_ui"):
    return SpecCandidate(message, call, tool, call_id, revision, message_id=f"m{message}")


def test_later_message_wins():
    assert pick_current([cand(0, 0, "a"), cand(1, 0, "b")]).tool_call_id == "b"


def test_the_later_call_of_one_message_wins_not_the_first():
    assert pick_current([cand(3, 0, "first"), cand(3, 1, "second")]).tool_call_id == "second"


def test_other_tools_never_become_the_screen():
    current = pick_current([cand(0, 0, "ui"), cand(1, 0, "draft", tool="read_local_draft")])
    assert current.tool_call_id == "ui"
    assert pick_current([cand(0, 0, "x", tool="read_local_draft")]) is None


def test_a_higher_revision_of_the_same_call_wins_and_a_stale_one_does_not():
    tracker = CurrentSpec()
    assert tracker.offer(cand(2, 0, "c", 0))
    assert tracker.offer(cand(2, 0, "c", 2))
    assert not tracker.offer(cand(2, 0, "c", 1))  # an older revision arriving late
    assert not tracker.offer(cand(2, 0, "c", 2))  # the same spec again: nothing new to show
    assert tracker.is_current("c", 2) and tracker.current.identity() == {
        "message_id": "m2", "tool_call_id": "c", "revision": 2}


def test_a_late_copy_of_an_older_message_does_not_take_the_screen_back():
    tracker = CurrentSpec()
    tracker.offer(cand(1, 0, "old"))
    tracker.offer(cand(4, 0, "new"))
    assert not tracker.offer(cand(1, 0, "old", revision=5))  # revisions never beat message order
    assert tracker.current.tool_call_id == "new"


def test_arrival_order_does_not_matter():
    candidates = [cand(0, 0, "a"), cand(2, 1, "c"), cand(2, 0, "b"), cand(2, 1, "c", 1), cand(1, 3, "z")]
    for order in itertools.permutations(candidates):
        current = pick_current(order)
        assert (current.tool_call_id, current.revision) == ("c", 1)


def test_calls_without_an_id_are_ignored_and_other_ui_tools_can_be_allowed():
    assert pick_current([cand(0, 0, "")]) is None
    tracker = CurrentSpec(tool_names=("render_ui", "render_panel"))
    assert tracker.offer(cand(0, 0, "p", tool="render_panel"))


def test_an_inline_screen_takes_its_messages_place_before_the_calls_of_that_message():
    inline_m1 = cand(1, -1, "m1:inline_spec", tool="inline_spec")
    # a render_ui call of the same message comes after its text; a later message's text wins
    for order in itertools.permutations([inline_m1, cand(1, 0, "ui_m1")]):
        assert pick_current(order).tool_call_id == "ui_m1"
    for order in itertools.permutations([cand(1, 0, "ui_m1"), cand(2, -1, "m2:inline_spec", tool="inline_spec")]):
        assert pick_current(order).tool_call_id == "m2:inline_spec"
