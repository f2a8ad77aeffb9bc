"""The inspector's waiting messages kept on the device, per thread: a reload or a killed tab loses none.

One key per thread (`sitewalk:messages:<thread_id>`) holds the JSON list of `{"id", "text"}`, oldest
first: written when a message joins the outbox, rewritten when one leaves it (sent, or found on the
server already), removed once none waits. The store is synchronous (localStorage in the browser), so
the write is done before the next `await`: a tab killed just after Send still has the message.
Each message keeps its id, so after a reload the thread's messages still tell whether it arrived.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sitewalk_shared.errors import SitewalkError

from ..base.device_storage import KeyValueStore

__all__ = ["KeptMessages", "Outgoing", "StoredOutboxCorrupt"]


@dataclass(frozen=True)
class Outgoing:
    """A message of the inspector, with the id it keeps on the server (so it is taken once)."""

    id: str
    text: str


class StoredOutboxCorrupt(SitewalkError, ValueError):
    """A kept outbox (or one entry of it) that cannot be read back: reported, then dropped."""

    def __init__(self, key: str, detail: str) -> None:
        super().__init__(f"the kept messages {key} are unreadable ({detail}): that entry is dropped")
        self.key = key
        self.detail = detail


class KeptMessages:
    PREFIX = "sitewalk:messages:"

    def __init__(self, store: KeyValueStore, thread_id: str) -> None:
        self.store = store
        self.key = f"{self.PREFIX}{thread_id}"

    def load(self) -> tuple[list[Outgoing], list[StoredOutboxCorrupt]]:
        """The kept messages, oldest first, and what could not be read (the rest still comes back)."""
        text = self.store.get(self.key)
        if not text:
            return [], []
        try:
            entries = json.loads(text)
        except ValueError as exc:
            return [], [StoredOutboxCorrupt(self.key, f"not JSON: {exc}")]
        if not isinstance(entries, list):
            return [], [StoredOutboxCorrupt(self.key, f"a list was expected, not {type(entries).__name__}")]
        messages: list[Outgoing] = []
        errors: list[StoredOutboxCorrupt] = []
        for index, entry in enumerate(entries):
            message = _outgoing(entry)
            if message is None:
                errors.append(StoredOutboxCorrupt(self.key, f"entry {index} is not {{id, text}}: {entry!r:.80}"))
            else:
                messages.append(message)
        return messages, errors

    def save(self, messages: list[Outgoing]) -> None:
        if messages:
            self.store.set(self.key, json.dumps([{"id": m.id, "text": m.text} for m in messages]))
        else:
            self.store.remove(self.key)


def _outgoing(entry: object) -> Outgoing | None:
    if not isinstance(entry, dict):
        return None
    message_id, text = entry.get("id"), entry.get("text")
    if isinstance(message_id, str) and message_id and isinstance(text, str) and text.strip():
        return Outgoing(message_id, text)
    return None
