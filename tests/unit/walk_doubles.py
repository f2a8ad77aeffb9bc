"""The question cards and the view a live site-walk test hands an InspectionSession, and a fast network
wait: what the app's DOM views would receive, kept as plain attributes for the test to read."""

from __future__ import annotations

import asyncio


class Cards:
    """The question cards: the pending questions, and each refusal as (interrupt id, code)."""

    def __init__(self):
        self.pending, self.refused = [], []

    def questions(self, pending):
        self.pending = pending

    def question_refused(self, interrupt_id, code, message):
        self.refused.append((interrupt_id, code))


class View:
    """The session's view: keeps the last timeline shown, ignores the rest."""

    def timeline(self, shown):
        self.shown = shown

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


async def soon(attempt):
    """`DeviceHooks.wait_for_network`: try again after 50 ms rather than the app's backoff."""
    await asyncio.sleep(0.05)
