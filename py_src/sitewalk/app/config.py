"""The page's settings as the app reads them once: boot.js's config (config.json, and ?server=, ?assistant=,
?stall=, ?stuck= over it; docs/operating.md has the table), checked into typed values.

A bad stall or stuck-run limit is not used (its default is) and is said (`problems`, shown once the app is up).
Whether the site's CSP lets the app reach the server is checked before anything else reaches it
(`server_allowed`): otherwise every request would fail as if the server were down.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..bridge import dom
from ..bridge.values import or_none
from ..session.progress import StuckPolicy
from ..session.stuck_limits import stall_limit, stuck_policy
from ..site_policy import ServerNotAllowed, check_server

__all__ = ["AppConfig", "server_allowed"]


@dataclass(frozen=True)
class AppConfig:
    server_url: str  # the agent server, without a trailing slash
    assistant_id: str  # the assistant (graph) to talk to
    service_worker_url: str  # what the page's Trusted Types policy vouches for besides the app's HTML
    connect_src: tuple[str, ...] | None  # the site's CSP connect-src, as built (None: not known)
    built_for: str  # the server the site was built for
    base_url: str  # the site's own URL
    stall_seconds: float  # how long a stream may stay silent before it is rejoined
    stuck_policy: StuckPolicy  # how long a run may make no progress before it is called stuck
    problems: tuple[str, ...]  # the limits given that were not used, and why
    traces: bool = False  # config.json's "traces": the device records spans (issue 27); off, nothing is made

    @classmethod
    def read(cls, config: Mapping[str, Any]) -> AppConfig:
        """The settings of boot.js's config (JS null comes over as jsnull, not None: `or_none`)."""
        stall, stall_problems = stall_limit(or_none(config.get("stallParam")),
                                            or_none(config.get("streamStallSeconds")))
        policy, stuck_problems = stuck_policy(or_none(config.get("stuckParam")), or_none(config.get("stuckSeconds")))
        connect_src = config.get("connectSrc")
        return cls(server_url=str(config["agentServerUrl"]).rstrip("/"),
                   assistant_id=str(config.get("assistantId") or "inspection"),
                   service_worker_url=str(config.get("serviceWorkerUrl") or ""),
                   connect_src=None if connect_src is None else tuple(str(s) for s in connect_src),
                   built_for=str(config.get("builtFor") or ""), base_url=str(config.get("baseUrl") or ""),
                   stall_seconds=stall, stuck_policy=policy, problems=tuple(stall_problems + stuck_problems),
                   traces=config.get("traces") is True)


def server_allowed(config: AppConfig) -> bool:
    """False, with the error screen saying why, when the site's CSP would block the server (a `?server=`
    the site was not built for)."""
    try:
        check_server(config.server_url, config.connect_src, config.built_for, config.base_url)
    except ServerNotAllowed as exc:
        dom.show_error(str(exc), f"{type(exc).__name__}: {exc.detail}")
        return False
    return True
