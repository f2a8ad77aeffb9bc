"""The internal steps of a turn folded into one row: "3 checks" instead of three "Checked the agent's work".

Each turn of the agent leaves several checkpoints that only its middleware made (the review, the screen,
the device tools and the actions each look at the model's answer): named "Checked the agent's work",
they buried the steps the inspector cares about. Consecutive such steps become one `Fold`, which the view
opens on demand; the steps inside keep everything a step has (details, Replay from here).

A step stays a row of its own when folding it would hide something: where a branch leaves (its forks),
a subgraph's steps under it, or a name that is not internal. "Started a run" and "Replayed from here" are
internal too, but they mark where a run began: they are not folded either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .tree import Step

__all__ = ["Fold", "Row", "fold_steps", "foldable"]


@dataclass(frozen=True, slots=True)
class Fold:
    """Consecutive internal steps of one turn, shown as one row (newest first, like the list)."""

    steps: tuple[Step, ...]

    @property
    def id(self) -> str:
        """Its newest step's id: it stays the same while older pages add steps at its old end."""
        return self.steps[0].id

    @property
    def title(self) -> str:
        return f"{len(self.steps)} check" + ("" if len(self.steps) == 1 else "s")

    @property
    def live(self) -> bool:
        return any(step.live for step in self.steps)

    @property
    def current(self) -> bool:
        return any(step.current for step in self.steps)

    @property
    def created_at(self) -> str:
        return self.steps[0].facts.created_at


Row = Step | Fold


def foldable(step: Step) -> bool:
    """A check the agent's middleware made within a turn, hiding nothing when folded."""
    return (step.name.kind == "internal" and step.facts.source == "loop" and not step.facts.namespace
            and not step.forks and not step.nested)


def fold_steps(steps: Sequence[Step]) -> tuple[Row, ...]:
    """The rows of a list of steps (newest first): each run of consecutive foldable steps as one `Fold`."""
    rows: list[Row] = []
    run: list[Step] = []
    for step in steps:
        if foldable(step):
            run.append(step)
            continue
        if run:
            rows.append(Fold(tuple(run)))
            run = []
        rows.append(step)
    if run:
        rows.append(Fold(tuple(run)))
    return tuple(rows)
