"""The stuck-run limits from `?stuck=N` and config.json's `stuckSeconds`: checked, never guessed at."""

from __future__ import annotations

import pytest

from sitewalk.session.progress import ProgressWatch, RunProbe, StuckPolicy, Verdict
from sitewalk.session.stuck_limits import stall_limit, stuck_policy, stuck_seconds


def test_nothing_configured_is_the_default_ten_then_five_seconds():
    policy, problems = stuck_policy(None, None)
    assert policy == StuckPolicy() and (policy.quiet_s, policy.confirm_s) == (10.0, 5.0) and problems == []
    assert stuck_policy("", None) == (StuckPolicy(), [])  # ?stuck= with nothing after it: as absent


def test_the_url_wins_over_the_config_file_and_stuck_is_said_half_the_time_later():
    policy, problems = stuck_policy("4", 30)
    assert (policy.quiet_s, policy.confirm_s, policy.tick_s) == (4.0, 2.0, 1.0) and problems == []
    policy, _ = stuck_policy(None, 30)
    assert (policy.quiet_s, policy.confirm_s, policy.tick_s) == (30.0, 15.0, 1.0)
    assert stuck_policy(" 2.5 ", None)[0].quiet_s == 2.5  # the URL's text, as typed
    assert stuck_policy(None, 2)[0].tick_s == 0.5  # a short limit is looked at more often


@pytest.mark.parametrize("value", ["abc", "0", "-3", "nan", "inf", "1e9", "0.5", "3601"])
def test_a_bad_url_value_is_said_and_the_config_file_or_the_default_is_used(value):
    policy, [problem] = stuck_policy(value, None)
    assert policy == StuckPolicy()
    assert problem.startswith(f"?stuck= is {value!r}: it must be a number of seconds from 1 to 3600")
    assert problem.endswith("the default 10 s is used")
    policy, [problem] = stuck_policy(value, 20)
    assert policy.quiet_s == 20.0 and problem.endswith("; 20 s is used")


@pytest.mark.parametrize("value", ["ten", True, [10], {"s": 10}, 0, 7200.0])
def test_a_bad_config_value_is_said_and_the_default_is_used(value):
    policy, [problem] = stuck_policy(None, value)
    assert policy == StuckPolicy() and problem.startswith("stuckSeconds in config.json is ")
    policy, problems = stuck_policy("abc", value)
    assert policy == StuckPolicy() and len(problems) == 2  # both named, neither guessed at


def test_seconds_accept_numbers_and_their_text_only():
    assert stuck_seconds(12, "x") == 12.0 and stuck_seconds("1", "x") == 1.0 and stuck_seconds(3600, "x") == 3600.0
    with pytest.raises(ValueError, match="x is None"):
        stuck_seconds(None, "x")


def test_the_stream_stall_limit_is_checked_by_the_same_rule_and_a_bad_one_is_said():
    """`?stall=` (the URL's text) wins over config.json's streamStallSeconds, both checked by the one rule. A
    negative or huge limit used to reach the stream as is (a negative one gave every stream up at once), and
    boot.js dropped a `?stall=` that was not a number (or was 0) without a word, using the next source."""
    assert stall_limit(None, None) == (20.0, []) and stall_limit(None, 45) == (45.0, [])
    assert stall_limit("3", 45) == (3.0, []) and stall_limit(" 2.5 ", None) == (2.5, [])
    assert stall_limit("", 45) == (45.0, [])  # ?stall= with nothing after it: as absent
    for bad in ("soon", "0", "-5", "nan", "0.5", "7200"):
        limit, [problem] = stall_limit(bad, None)
        assert limit == 20.0
        assert problem == (f"?stall= is {bad!r}: it must be a number of seconds from 1 to 3600; "
                           "the default 20 s is used")
        assert stall_limit(bad, 45) == (45.0, [problem.replace("the default 20 s", "45 s")])
    for bad in (-5, 0, 0.5, 7200, float("nan"), "soon", True):
        limit, [problem] = stall_limit(None, bad)
        assert limit == 20.0
        assert problem == (f"streamStallSeconds in config.json is {bad!r}: it must be a number of seconds "
                           "from 1 to 3600; the default 20 s is used")


def test_the_watch_asks_and_says_stuck_on_the_configured_limits():
    policy, _ = stuck_policy("2", None)
    watch = ProgressWatch(policy, now=0.0, interrupted=True)
    assert watch.verdict(1.9) is Verdict.FLOWING and watch.verdict(2.0) is Verdict.PROBE
    watch.probed(2.0, RunProbe("running", "cp-1"))
    watch.probed(2.9, RunProbe("running", "cp-1"))
    assert watch.verdict(2.9) is Verdict.FLOWING
    watch.probed(3.0, RunProbe("running", "cp-1"))  # the same checkpoint 1 s (half of 2) later
    assert watch.verdict(3.0) is Verdict.STUCK
