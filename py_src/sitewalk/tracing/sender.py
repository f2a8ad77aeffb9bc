"""Sending the device's spans to the agent server, each batch until the server has taken it (issue 27).

`send_ready` takes what the recorder has ready and posts it, one batch per inspection and at most
`MAX_SPANS_PER_BATCH` spans a batch, to the server's device-span route. Out of reach (offline, a dropped
connection) the batch goes back to the recorder and waits for the next flush, which comes after the next
run or delivered resume, as the outbox's answers wait for the network. A batch whose answer was lost is sent
again; the server exports a span id once, so a span never appears twice in the trace. Asked to sign in,
they wait for it too. A batch the server refuses otherwise (a typed 4xx) would be refused again: it is
dropped and counted, never retried.

With a device store (`kept`: localStorage in the browser) the spans still waiting after a send are written
there, and `restore` hands them back to a new page's recorder, so spans that waited offline survive a reload
(they hold only allowlisted attributes, nothing the site policy keeps from leaving the device).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from sitewalk_shared.contracts.device_trace import MAX_SPANS_PER_BATCH, span_issues
from sitewalk_shared.contracts.trace_wire import DeviceSpan

from ..base.device_storage import KeyValueStore
from ..base.server_errors import AgentServerError, ServerUnreachable, Unauthorized
from .recorder import Recorder

__all__ = ["KEPT_KEY", "SpanSender"]

KEPT_KEY = "sitewalk:trace-spans"  # the spans waiting to be sent, kept across a reload

Post = Callable[[dict[str, Any]], Awaitable[object]]


class SpanSender:
    def __init__(self, recorder: Recorder, post: Post, kept: KeyValueStore | None = None) -> None:
        self.recorder = recorder
        self.post = post  # the client's `send_device_spans`
        self.kept = kept
        self.sent = 0  # spans the server took
        self.refused = 0  # spans in batches the server refused

    async def send_ready(self) -> bool:
        """Post every ready span; False when the server was out of reach (the rest waits, and is kept)."""
        try:
            return await self._send()
        finally:
            self._keep()

    def restore(self) -> int:
        """The spans an earlier page kept unsent, back to the recorder (a malformed record is dropped)."""
        text = self.kept.get(KEPT_KEY) if self.kept is not None else None
        try:
            batches = json.loads(text) if text else []
        except ValueError:
            batches = []
        restored = 0
        for batch in batches if isinstance(batches, list) else []:
            if not (isinstance(batch, list) and len(batch) == 3 and isinstance(batch[0], str)
                    and isinstance(batch[1], str | None) and isinstance(batch[2], list)):
                continue
            spans: list[DeviceSpan] = [span for span in batch[2] if not span_issues(span)]
            self.recorder.put_back((batch[0], batch[1]), spans)
            restored += len(spans)
        return restored

    def _keep(self) -> None:
        if self.kept is None:
            return
        waiting = [[key[0], key[1], spans] for key, spans in self.recorder.ready().items() if spans]
        if waiting:
            self.kept.set(KEPT_KEY, json.dumps(waiting, separators=(",", ":")))
        else:
            self.kept.remove(KEPT_KEY)

    async def _send(self) -> bool:
        ready = self.recorder.take_ready()
        for key, spans in ready.items():
            for start in range(0, len(spans), MAX_SPANS_PER_BATCH):
                chunk = spans[start:start + MAX_SPANS_PER_BATCH]
                try:
                    await self.post({"thread_id": key[0], "forked_from": key[1], "spans": chunk})
                except (ServerUnreachable, Unauthorized):  # they wait: for the network, for a sign-in
                    self._put_back(ready, key, start)
                    return False
                except AgentServerError:
                    self.refused += len(chunk)
                    continue
                self.sent += len(chunk)
        return True

    def _put_back(self, ready: dict[Any, list[Any]], key: Any, start: int) -> None:
        """The unsent part of `ready` back to the recorder: this inspection's from `start`, all the later ones."""
        keys = list(ready)
        for later in keys[keys.index(key):]:
            self.recorder.put_back(later, ready[later][start:] if later == key else ready[later])
