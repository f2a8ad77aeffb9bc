"""The stand-in's HTTP server: loopback only, one thread per request, every request recorded.

`POST …/chat/completions` answers in OpenAI's format, `POST …/v1/messages` in Anthropic's (`wire.py`);
what is said comes from `script.plan`. A request that asks to stream gets Server-Sent Events, written
and flushed one event at a time (paced in the scenarios that a browser watches build up).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from provider_standin import conversation as conv
from provider_standin import wire
from provider_standin.script import PACED_SCENARIOS, plan, scenario_of

__all__ = ["MODELS", "PROVIDERS", "ProviderStandin", "Recorded"]

PROVIDERS = ("openai", "anthropic")
MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-5-5"}
API_KEY = "sk-standin-not-a-key"


@dataclass(frozen=True)
class Recorded:
    provider: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def conversation(self) -> conv.Conversation:
        return conv.from_openai(self.body) if self.provider == "openai" else conv.from_anthropic(self.body)


class ProviderStandin:
    """Start with `with ProviderStandin() as standin:`; `standin.url`, `standin.requests`, `standin.env(p)`."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="provider-standin", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def env(self, provider: str) -> dict[str, str]:
        """What an agent server needs to use this stand-in as `provider`'s API."""
        if provider == "openai":
            return {"SITEWALK_MODEL": f"openai:{MODELS['openai']}", "OPENAI_BASE_URL": f"{self.url}/v1",
                    "OPENAI_API_KEY": API_KEY}
        return {"SITEWALK_MODEL": f"anthropic:{MODELS['anthropic']}", "ANTHROPIC_BASE_URL": self.url,
                "ANTHROPIC_API_KEY": API_KEY}

    def of(self, provider: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.provider == provider]

    def record(self, entry: Recorded) -> None:
        with self._lock:
            self.requests.append(entry)

    def __enter__(self) -> ProviderStandin:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(standin: ProviderStandin) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
            pass

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            provider = "openai" if self.path.endswith("/chat/completions") else \
                "anthropic" if self.path.endswith("/v1/messages") else None
            if provider is None:
                self.send_error(404, "not a provider endpoint")
                return
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            entry = Recorded(provider, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            standin.record(entry)
            reply = plan(entry.conversation)
            if body.get("stream"):
                self._stream(provider, reply, body, PACED_SCENARIOS.get(scenario_of(entry.conversation) or "", 0.0))
            else:
                answer = wire.openai_body(reply, body.get("model", "")) if provider == "openai" \
                    else wire.anthropic_body(reply, body.get("model", ""))
                self._send(json.dumps(answer).encode(), "application/json")

        def _stream(self, provider: str, reply: Any, body: dict[str, Any], pace_s: float) -> None:
            if provider == "openai":
                usage = bool((body.get("stream_options") or {}).get("include_usage"))
                events = wire.openai_events(reply, body.get("model", ""), usage)
            else:
                events = wire.anthropic_events(reply, body.get("model", ""))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            for k, event in enumerate(events):
                if pace_s and k:
                    time.sleep(pace_s)
                self.wfile.write(event)
                self.wfile.flush()

        def _send(self, data: bytes, content_type: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
