"""The audit trail panel: the current inspection's records, whether the chain is whole, and a JSON export.

"Show audit trail" reads the trail of the inspection on screen through the store API
(`sitewalk.audit_trail`), checks its chain and compares it with the head the thread's state committed
(a trail cut or changed after that step is said so), lists it, and points "Export JSON" at the same
records as a file. On a server with sign-in the trail lives under the signed-in inspector's identity
(`owner`). The trail's reader (and the audit contracts it checks the chain with, pydantic) is imported at
the first "Show audit trail".
"""

from __future__ import annotations

from collections.abc import Callable

from ..agentserver.client import AgentServerClient
from ..base.server_errors import AgentServerError, Unauthorized
from ..bridge import dom, files, tasks
from ..ui.templating import render_template

__all__ = ["AuditView"]


class AuditView:
    def __init__(self, client: AgentServerClient, current: Callable[[], str | None],
                 owner: Callable[[], str | None] = lambda: None) -> None:
        self.client = client
        self.current = current  # the thread of the inspection on screen
        self.owner = owner  # the signed-in identity (None without sign-in)

    def attach(self) -> None:
        tasks.on("sw-audit-load", "click", self.show)
        tasks.on("sw-tab-audit", "click", self.show)  # the Audit tab goes there and shows the trail: one tap

    async def show(self, _event: object = None) -> None:
        from ..audit_trail import read_audit_trail

        thread_id = self.current()
        if not thread_id:
            dom.set_html("sw-audit", render_template("audit_trail.j2", trail=None))
            return
        try:
            trail = await read_audit_trail(self.client, thread_id, self.owner())
        except Unauthorized:  # the sign-in form is up; the panel stays as it was
            dom.show_status("Sign in to read the audit trail (the agent server no longer accepts your sign-in).",
                            error=True)
            return
        except AgentServerError as exc:
            dom.show_status(f"Could not read the audit trail: {exc}", error=True)
            return
        dom.set_html("sw-audit", render_template("audit_trail.j2", trail=trail))
        if trail.records:
            files.offer_download("sw-audit-export", trail.file_name(), trail.export_json())
