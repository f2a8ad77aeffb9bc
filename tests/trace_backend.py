"""The trace backend the tracing tests read back: Phoenix, started by `sitewalk_build.phoenix`, and its spans.

`PhoenixBackend.spans()` returns every span Phoenix stored, of every project, through Phoenix's own REST API
(`arize-phoenix-client`), as Phoenix serves them (`name`, `context.trace_id`/`span_id`, `parent_id`,
`attributes`, `events`, `status_code`, ...). `wait_for(check)` polls it until `check(spans)` holds: the
servers export in batches, so spans arrive a moment after the run that made them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["PhoenixBackend"]

Span = dict[str, Any]


@dataclass(frozen=True)
class PhoenixBackend:
    url: str  # the UI and the REST API
    otlp_url: str  # OTLP over HTTP, /v1/traces

    def spans(self) -> list[Span]:
        from phoenix.client import Client

        client = Client(base_url=self.url)
        found: list[Span] = []
        for project in client.projects.list():
            found += [dict(s) for s in client.spans.get_spans(project_identifier=project["name"], limit=100_000)]
        return found

    def trace(self, trace_id: str) -> list[Span]:
        return [s for s in self.spans() if s["context"]["trace_id"] == trace_id]

    def wait_for(self, check: Callable[[list[Span]], bool], timeout: float = 60.0) -> list[Span]:
        """The stored spans once `check` holds for them; AssertionError with what was there after `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            spans = self.spans()
            if check(spans):
                return spans
            if time.monotonic() > deadline:
                names = sorted({s["name"] for s in spans})
                raise AssertionError(f"Phoenix never held the spans looked for; it holds {len(spans)}: {names}")
            time.sleep(0.5)
