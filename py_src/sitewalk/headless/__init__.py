"""Client-side implementations of the agent's headless tools."""

from .local_draft import (
                          AsyncKeyValueStore,
                          KeyValueStore,
                          draft_key,
                          read_local_draft,
                          save_local_draft,
                          start_blank_draft,
)
from .registry import HeadlessToolRegistry, ToolFailed

__all__ = ["AsyncKeyValueStore", "HeadlessToolRegistry", "KeyValueStore", "ToolFailed",
           "draft_key", "read_local_draft", "save_local_draft", "start_blank_draft"]
