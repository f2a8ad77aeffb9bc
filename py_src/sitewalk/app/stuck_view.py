"""The stuck-run panel in the page (`session.stuck.StuckPanel`): "This run is stuck", Cancel, Continue.

The session shows it once a run makes no progress (`session.progress`) and hides it when the run
moves again or the inspector's choice is carried out. A press only hands the choice to the app
(`on_choice`); the buttons wait (disabled) until the session answers: the panel goes, or says why
the choice was refused and offers it again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..bridge import dom
from ..bridge.presses import on_press
from ..ui.templating import render_template

if TYPE_CHECKING:
    from ..session.progress import StuckRun

__all__ = ["StuckPanelView"]

PANEL = "sw-stuck"


class StuckPanelView:
    def __init__(self, on_choice: Callable[[str], Any]) -> None:
        self.on_choice = on_choice
        self.run: StuckRun | None = None
        self.refusal: tuple[str, str] | None = None
        self.busy = False
        self._attached = False

    def stuck(self, run: StuckRun | None) -> None:
        self.run, self.refusal, self.busy = run, None, False
        self._draw()

    def refused(self, code: str, message: str) -> None:
        self.refusal, self.busy = (code, message), False
        self._draw()

    def _node(self) -> Any:
        node = dom.element(PANEL)
        if not self._attached:  # one delegated listener for both buttons, which keeps a press the browser loses
            self._attached = True
            on_press(node, "[data-stuck-action]", self._on_click)
        return node

    def _draw(self) -> None:
        node = self._node()
        node.hidden = self.run is None
        if self.run is None:
            dom.set_html(node, "")
            node.removeAttribute("data-run-id")
            return
        node.dataset.runId = self.run.run_id
        node.dataset.status = self.run.status
        dom.set_html(node, render_template("stuck_run.j2", run=self.run, refusal=self.refusal, busy=self.busy))

    async def _on_click(self, event: Any) -> None:
        button = dom.closest(event.target, "[data-stuck-action]")
        if button is None or self.busy:
            return
        self.busy = True
        self._draw()
        result = self.on_choice(dom.attribute(button, "data-stuck-action") or "")
        if result is not None:
            await result
