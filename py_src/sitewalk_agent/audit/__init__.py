"""The audit chain: a tamper-evident record of every tool call, review decision and UI action of a thread.

Records live in the Agent Server's Store under `("sitewalk", "audit", <thread_id>)` (prefixed by the
owner's `("users", <identity>)` when the server has auth), keyed `<seq:08d>-<hash12>`, each carrying
the hash of the previous record (the chain is `sitewalk_shared.contracts.audit`, shared with the browser).
`AuditMiddleware` records tool calls; `record_ui_action`, `record_review_decision`, `record_review_refusal`
and `record_site_walk` are called where those are decided. `python -m sitewalk_agent.audit
verify THREAD_ID --server URL` checks a trail through the store API (`cli`).
"""

from sitewalk_agent.audit.middleware import AuditMiddleware
from sitewalk_agent.audit.record import (
    FIELDS,
    record_review_decision,
    record_review_refusal,
    record_site_walk,
    record_tool_call,
    record_ui_action,
)
from sitewalk_agent.audit.trail import NAMESPACE, AuditTrail, audit_namespace
from sitewalk_shared.contracts.audit import GENESIS, HEAD_KEY, ChainProblem, verify_chain
from sitewalk_shared.contracts.canonical import args_hash

__all__ = ["FIELDS", "GENESIS", "HEAD_KEY", "NAMESPACE", "AuditMiddleware", "AuditTrail", "ChainProblem",
           "args_hash", "audit_namespace", "record_review_decision", "record_review_refusal",
           "record_site_walk",
           "record_tool_call", "record_ui_action", "verify_chain"]
