"""The site walk: a subgraph with a history of its own that asks the inspector two questions in turn.

    START -> ask_handrail_secure -> ask_corroded_bolts -> END

Each node pauses on an interrupt whose value is a `sitewalk_shared.contracts.questions.QuestionRequest`
(yes/no, then a number) and is resumed with `{"question_id", "answer"}`; an answer that does not fit
asks the same question again with the reason (nothing is lost, nothing is guessed).

Compiled with `checkpointer=True`, the walk keeps its own checkpoints (one after each answer) under
its own namespace, so the inspector can go back *between* the two questions: fork at the checkpoint
after the first answer and only the second is asked again (`sitewalk.session.travel`).

How the agent reaches it. The model calls the `walk_site` tool; `SiteWalkMiddleware.aafter_model`
(a node of the `create_agent` graph) runs the walk for that call and answers it with the answers.
Why a node and not the tool's body: LangGraph finds a subgraph by the nodes that call it. One called
from a tool body runs inside the `tools` node, which LangGraph cannot see into (checked with langgraph
1.2, what the server runs): `get_subgraphs()` is empty, `get_state(subgraphs=True)` shows no task
state, the history of its namespace is read with the parent's channels (its answers missing) and
`update_state` there is refused ("Subgraph tools not found"). Called from the hook, the walk is the
node's subgraph (LangGraph reads the hook's code for the compiled graph it names) and all of it works
on the real server: nested state, the namespace's history, forks between the questions.
The tool's own body only runs when the hook did not answer (a second walk in one message): it refuses
with the typed error `one_walk_at_a_time` (a failed call in the app's list and in the audit trail).
A finished walk is one audit record (`kind: site_walk`: the call, its questions and answers, who answered).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from langchain.agents.middleware import AgentMiddleware
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from sitewalk_agent.audit.middleware import AuditState
from sitewalk_agent.audit.record import record_site_walk
from sitewalk_agent.headless import failure, tool_message
from sitewalk_shared.contracts.audit import STATE_HEAD, committed_head
from sitewalk_shared.contracts.envelope import ErrorCode, ToolFailure, ToolSuccess
from sitewalk_shared.contracts.questions import InvalidAnswer, Question, QuestionRequest, parse_answer

__all__ = ["QUESTIONS", "SITE_WALK", "WALK_NODE", "WALK_TOOL", "SiteWalkMiddleware", "build_site_walk",
           "one_walk_refusal", "walk_site"]

WALK_TOOL = "walk_site"
QUESTIONS = (
    Question(id="handrail_secure", text="Is the handrail secure?", kind="yes_no"),
    Question(id="corroded_bolts", text="How many bolts are corroded?", kind="number"),
)


class WalkAnswer(TypedDict):
    """One question of the walk and its answer, as the walk's result and its audit record keep it."""

    question_id: str
    question: str
    kind: str
    answer: bool | int


class WalkState(TypedDict, total=False):
    inspection_id: str
    walk_id: str  # the walk_site call it answers
    answers: list[WalkAnswer]  # in the order asked


def _answer(request: QuestionRequest, resume: object) -> bool | int:
    """The resume's answer to `request`; InvalidAnswer when it is for another question or does not fit."""
    if not isinstance(resume, dict) or resume.get("question_id") != request.question_id:
        raise InvalidAnswer(f"this answer is not for the question {request.question!r}")
    return parse_answer(request.kind, resume.get("answer"))


class _Ask(Protocol):
    """A node of the walk: one question asked (as LangGraph calls a node: the state, by name)."""

    async def __call__(self, state: WalkState) -> WalkState: ...


def _asker(question: Question) -> _Ask:
    async def ask(state: WalkState) -> WalkState:
        error = ""
        while True:  # each refused answer is another interrupt of this node, with the reason
            request = QuestionRequest.of(question, state.get("inspection_id", ""), error)
            try:
                value = _answer(request, interrupt(request.model_dump()))
                break
            except InvalidAnswer as refused:
                error = str(refused)
        said: WalkAnswer = {"question_id": question.id, "question": question.text, "kind": question.kind,
                            "answer": value}
        return {"answers": [*state.get("answers", []), said]}

    ask.__name__ = f"ask_{question.id}"
    return ask


def build_site_walk() -> CompiledStateGraph[WalkState, None, WalkState, WalkState]:
    graph = StateGraph(WalkState)
    previous = START
    for question in QUESTIONS:
        node = f"ask_{question.id}"
        graph.add_node(node, _asker(question))
        graph.add_edge(previous, node)
        previous = node
    graph.add_edge(previous, END)
    return graph.compile(checkpointer=True, name="site_walk")


SITE_WALK = build_site_walk()
WALK_NODE = "SiteWalkMiddleware.after_model"  # the agent graph's node that runs the walk (its namespace)


class WalkArgs(BaseModel):
    inspection_id: str = Field(min_length=1, max_length=64, description="The inspection the walk is for.")


@tool(WALK_TOOL, args_schema=WalkArgs)
async def walk_site(inspection_id: str, runtime: ToolRuntime) -> ToolMessage:
    """Walk the site with the inspector: ask them, in turn, whether the handrail is secure and how many
    bolts are corroded. One walk per reply."""
    # Only reached when SiteWalkMiddleware did not answer the call first (see the module docstring):
    # another walk_site call of the same message was walked, so this one asks nothing.
    call: dict[str, object] = {"id": runtime.tool_call_id or "", "name": WALK_TOOL}
    return tool_message(call, one_walk_refusal(call, _walked_call_id(runtime.state)).model_dump(mode="json"), False)


def one_walk_refusal(call: dict[str, object], walked: str | None) -> ToolFailure:
    """The typed refusal of a second walk_site call in one message: the walk already asked is the one answered."""
    return failure(call, ErrorCode.one_walk_at_a_time,
                   f"one site walk at a time: the walk already asked (call {walked or '?'}) is the one answered; "
                   "this call asked nothing", walked_call_id=walked)


def _walked_call_id(state: object) -> str | None:
    """The first walk_site call of the newest AI message (the one the hook walked)."""
    messages = list(state.get("messages") or []) if isinstance(state, dict) else []
    last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    return next((str(c["id"]) for c in getattr(last, "tool_calls", None) or [] if c["name"] == WALK_TOOL), None)


def _pending_walk(state: Mapping[str, object]) -> dict[str, object] | None:
    """The newest AI message's first walk_site call that has no answer yet."""
    messages = state.get("messages")
    if not isinstance(messages, list) or not messages or not isinstance(last := messages[-1], AIMessage):
        return None
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return next((dict(c) for c in last.tool_calls if c["name"] == WALK_TOOL and c["id"] not in answered), None)


def _head(record: Mapping[str, object] | None) -> dict[str, object]:
    """The walk's record committed as the state's audit head, with this step (see `sitewalk_agent.audit`)."""
    return {STATE_HEAD: committed_head(record)} if record is not None else {}


class SiteWalkMiddleware(AgentMiddleware[AuditState]):
    """Registers `walk_site` and runs the site-walk subgraph for its call (see the module docstring)."""

    state_schema = AuditState

    def __init__(self) -> None:
        super().__init__()
        self.tools = [walk_site]

    async def aafter_model(self, state: AuditState, runtime: Runtime) -> dict[str, object] | None:
        call = _pending_walk(dict(state))
        if call is None:
            return None
        try:
            args = WalkArgs.model_validate(call.get("args") or {})
        except ValueError as error:
            outcome = failure(call, ErrorCode.invalid_args, f"invalid arguments: {error}")
            record = await record_site_walk(runtime.store, get_config(), state, call, [], outcome="failed:invalid_args")
            return {"messages": [tool_message(call, outcome.model_dump(mode="json"), False)], **_head(record)}
        # SITE_WALK named here, in the node's own code, is how LangGraph finds the node's subgraph.
        call_id = str(call["id"])
        walked = await SITE_WALK.ainvoke({"inspection_id": args.inspection_id, "walk_id": call_id, "answers": []})
        answers: list[WalkAnswer] = list(walked.get("answers") or [])
        result: dict[str, object] = {"inspection_id": args.inspection_id, "answers": answers}
        # Recorded once the walk is done: this node runs to here once per walk (or per changed answer, on its branch).
        record = await record_site_walk(runtime.store, get_config(), state, call, answers)
        envelope = ToolSuccess(tool=WALK_TOOL, tool_call_id=call_id, result=result).model_dump(mode="json")
        return {"messages": [tool_message(call, envelope, True)], **_head(record)}
