"""A turn's internal steps folded into one row ("3 checks", timeline/folding.py), on recorded real histories
(tests/unit/fixtures/history): what folds, what never does, and that a folded step can still be replayed."""

from __future__ import annotations

import re
from dataclasses import replace

from recorded import load_history

from sitewalk.timeline import Fold, Step, TimelineTree, fold_steps, shown
from sitewalk.timeline.folding import foldable
from sitewalk.ui.render import render_template

CHECK = "Checked the agent's work"


def _tree(name: str) -> TimelineTree:
    recorded = load_history(f"{name}.json")
    tree = TimelineTree()
    for page in recorded.get("pages") or [recorded["all"]]:
        tree.add_page(page, 1000)
    for page in recorded.get("nested_pages") or []:
        tree.nested.add_page(recorded["namespace"], page, 1000)
    return tree


def _titles(rows) -> list[str]:
    return [row.title if isinstance(row, Fold) else row.name.title for row in rows]


def test_a_reviewed_turn_shows_two_folds_instead_of_eight_check_rows():
    steps = _tree("review_decided").steps()
    assert [s.name.title for s in steps].count(CHECK) == 8
    rows = fold_steps(steps)
    assert _titles(rows)[0] == "5 checks" and _titles(rows)[4] == "3 checks"
    assert CHECK not in _titles(rows) and len(rows) == len(steps) - 8 + 2
    assert [s.id for r in rows for s in (r.steps if isinstance(r, Fold) else (r,))] == [s.id for s in steps]
    newest = rows[0]
    assert isinstance(newest, Fold) and newest.current and newest.live and newest.id == steps[0].id
    assert {s.node for s in newest.steps} >= {"ReviewMiddleware.after_model", "UiActionsMiddleware.after_agent"}


def test_each_turn_folds_on_its_own_and_the_steps_that_matter_stay_rows():
    tree = _tree("confirm_fork")
    old = next(b for b in tree.branches() if not b.live)
    rows = fold_steps(tree.steps(old.head))
    folds = [r for r in rows if isinstance(r, Fold)]
    assert [f.title for f in folds] == ["3 checks", "3 checks", "4 checks", "3 checks"]  # one per turn
    assert _titles(rows)[-3:] == ["Decided to ask for your draft", "You said: Start inspection inspection-42 "
                                  "script: confirm", "Started a run"]  # where the run began is not folded
    assert all(not isinstance(a, Fold) or not isinstance(b, Fold) for a, b in zip(rows, rows[1:], strict=False))


def test_a_check_a_branch_leaves_from_or_with_a_subgraph_under_it_is_not_folded():
    steps = _tree("review_decided").steps()
    forked = [replace(s, forks=1) if i == 2 else s for i, s in enumerate(steps)]  # a replay left from the third
    rows = fold_steps(forked)
    assert _titles(rows)[:3] == ["2 checks", CHECK, "2 checks"]
    walk = _tree("site_walk").steps()
    hosts = [s for s in walk if s.nested]
    assert hosts and not any(foldable(s) for s in hosts)
    assert all(isinstance(r, Step) for r in fold_steps(hosts))


def test_the_shown_rows_are_the_folded_steps():
    tree = _tree("review_decided")
    drawn = shown("t", tree)
    assert drawn.rows == fold_steps(drawn.steps) and drawn.rows is drawn.rows  # computed once


def test_a_fold_is_one_closed_row_and_opened_shows_each_step_with_replay_from_here():
    rows = shown("t", _tree("review_decided")).rows
    fold = rows[0]
    assert isinstance(fold, Fold)
    closed = str(render_template("timeline.j2", rows=[fold]))
    assert closed.count("<li") == 1 and 'aria-expanded="false"' in closed and 'data-steps="5"' in closed
    assert 'aria-current="step"' in closed and "Replay from here" not in closed  # the current step is in it
    opened = str(render_template("timeline.j2", rows=[fold], opened={fold.id}))
    assert 'aria-expanded="true"' in opened and opened.count("<li") == 6
    replays = re.findall(r'data-sw-travel="replay" data-checkpoint-id="([^"]+)"', opened)
    assert replays == [s.id for s in fold.steps]
    assert opened.count('aria-current="step"') == 1  # the step itself now, not the fold too
    others = str(render_template("timeline.j2", rows=rows, opened={fold.id}))
    assert others.count('aria-expanded="true"') == 1 and others.count('aria-expanded="false"') == 1
