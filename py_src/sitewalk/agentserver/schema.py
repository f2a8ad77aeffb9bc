"""The Agent Server's wire values, as typed dicts: what the client sends and what it gets back.

They are the JSON the server sends, unchanged (the client never copies them into classes), so a
`ThreadState` from `langgraph dev`, LangGraph Platform or Aegra is the same dict. Fields that one
of those servers leaves out are `NotRequired` (Aegra's `GET /threads/{id}` has no values or
interrupts). The names follow langgraph-sdk's `schema.py` so code reads the same with both.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

__all__ = [
    "Assistant",
    "CancelAction",
    "Checkpoint",
    "Command",
    "Config",
    "DisconnectMode",
    "Interrupt",
    "Item",
    "MultitaskStrategy",
    "Run",
    "RunStatus",
    "SearchItemsResponse",
    "StreamMode",
    "Thread",
    "ThreadState",
    "ThreadStatus",
    "ThreadTask",
    "ThreadUpdateStateResponse",
]

StreamMode = Literal["values", "updates", "messages", "messages-tuple", "events", "debug", "tasks",
                     "checkpoints", "custom"]
"""What a run's stream carries:
- "values": the whole state after each step;
- "updates": each node's writes (and `__interrupt__` when the run pauses);
- "messages-tuple": `[message chunk, metadata]` as a model streams, and messages a node wrote whole;
- "messages": complete messages (the older form of "messages-tuple");
- "events": LangChain's callback events; "debug": everything, for debugging;
- "tasks": tasks starting and ending; "checkpoints": each checkpoint as it is saved;
- "custom": what the graph writes with its stream writer.
"""

MultitaskStrategy = Literal["reject", "interrupt", "rollback", "enqueue"]
"""What a new run does when the thread is busy:
- "reject": refuse the new run; "interrupt": stop the current run (its checkpoints stay) and start;
- "rollback": stop the current run and drop its checkpoints; "enqueue": start when the current one ends.
"""

RunStatus = Literal["pending", "running", "error", "success", "timeout", "interrupted"]
"""Where a run is. A run that pauses on `interrupt()` ends `success`: only the thread says
`interrupted` (decide from the thread's state, not from the run)."""

ThreadStatus = Literal["idle", "busy", "interrupted", "error"]
"""Where a thread is: "idle" (nothing running or pending), "busy" (a run is going),
"interrupted" (waiting on an interrupt's answer), "error" (its last run failed)."""

DisconnectMode = Literal["cancel", "continue"]
"""What a streamed run does when its client goes away: end ("cancel") or go on ("continue")."""

CancelAction = Literal["interrupt", "rollback"]
"""How a run is cancelled: "interrupt" keeps the checkpoints it wrote, "rollback" drops them."""


class Config(TypedDict, total=False):
    """A run's configuration."""

    tags: list[str]
    """Tags for the run and its calls."""
    recursion_limit: int
    """How many steps the run may take (the server's default is 25)."""
    configurable: dict[str, object]
    """Values the graph reads from its config (`thread_id`, `checkpoint_id`, ...)."""


class Checkpoint(TypedDict):
    """Where a state was saved: a thread, a namespace and a checkpoint id."""

    thread_id: NotRequired[str]
    """The thread the checkpoint belongs to."""
    checkpoint_ns: str
    """The namespace: "" for the graph itself, `node:task-id` for a subgraph's own history."""
    checkpoint_id: str
    """The checkpoint's id (time-ordered)."""
    checkpoint_map: NotRequired[dict[str, object] | None]
    """The checkpoint ids of the parent graphs, by namespace (subgraphs only)."""


class Interrupt(TypedDict):
    """A pause of the graph that waits for an answer (`Command(resume=...)`)."""

    value: Any
    """What the graph asked, as it passed it to `interrupt()` (e.g. a headless tool's call). Still `Any`: the
    session reads it by key trusting an isinstance check made in a generator, which mypy does not carry over."""
    id: str
    """The interrupt's id: answers are keyed by it (`{"resume": {id: value}}`)."""


class ThreadTask(TypedDict):
    """A task of the thread's next step (a node about to run, or one that paused)."""

    id: str
    """The task's id."""
    name: str
    """The node the task runs."""
    error: NotRequired[str | None]
    """The error the task ended with, if it failed."""
    interrupts: list[Interrupt]
    """The interrupts the task is waiting on."""
    checkpoint: NotRequired[Checkpoint | None]
    """The subgraph's own checkpoint, when the node is a subgraph with a checkpointer of its own."""
    state: NotRequired[ThreadState | None]
    """The subgraph's state, when asked for with `subgraphs=true`."""
    result: NotRequired[dict[str, object] | None]
    """What the task wrote, once it finished."""


class ThreadState(TypedDict):
    """A thread's state at one checkpoint (`GET /threads/{id}/state`, and each history entry)."""

    values: dict[str, Any]
    """The graph's state values (`messages`, `ui_spec`, ...). Still `Any`: the session and the app read them
    by key unchecked (`state["values"]["messages"]`); `object` once they check what they read."""
    next: list[str]
    """The nodes that run next; empty when the thread waits for new input."""
    checkpoint: Checkpoint
    """This state's checkpoint."""
    metadata: dict[str, object] | None
    """The checkpoint's metadata: `source` (input, loop, update, fork), `step`, the writes."""
    created_at: str | None
    """When the checkpoint was saved (ISO 8601)."""
    parent_checkpoint: Checkpoint | None
    """The checkpoint this one follows (the timeline's tree is built from it); None for the first."""
    tasks: list[ThreadTask]
    """The tasks of the next step, with their interrupts."""
    interrupts: NotRequired[list[Interrupt]]
    """Every interrupt the thread waits on (newer servers; the tasks hold them too)."""


class ThreadUpdateStateResponse(TypedDict):
    """The answer to `POST /threads/{id}/state`."""

    checkpoint: Checkpoint
    """The checkpoint the update wrote (a fork runs from it)."""


class Thread(TypedDict):
    """A conversation with a graph: its runs share one checkpointed state."""

    thread_id: str
    """The thread's id."""
    created_at: str
    """When it was created (ISO 8601)."""
    updated_at: str
    """When it last changed (ISO 8601)."""
    metadata: dict[str, object]
    """What the creator attached (Sitewalk: `inspection_id`)."""
    status: ThreadStatus
    """Whether it is idle, busy, waiting on an interrupt, or failed."""
    values: NotRequired[dict[str, object] | None]
    """Its current state values (not sent by every server: read the state instead)."""
    interrupts: NotRequired[dict[str, list[Interrupt]]]
    """Its pending interrupts by task id (not sent by every server: read the state instead)."""


class Run(TypedDict):
    """One execution of a graph on a thread."""

    run_id: str
    """The run's id (a rejoin names it)."""
    thread_id: str
    """The thread it runs on."""
    assistant_id: str
    """The assistant (graph and configuration) it runs."""
    created_at: str
    """When it was created (ISO 8601)."""
    updated_at: str
    """When it last changed (ISO 8601)."""
    status: RunStatus
    """Where it is (pending, running, success, error, ...)."""
    metadata: dict[str, object]
    """What its creator attached."""
    multitask_strategy: NotRequired[MultitaskStrategy | None]
    """What it did to a run already going on the thread."""


class Command(TypedDict, total=False):
    """What a run does instead of taking new input."""

    resume: object
    """The answer to the pending interrupts: `{interrupt_id: value}` answers several by id."""
    update: object
    """State values to write before the run goes on."""
    goto: str | list[str]
    """The node(s) to go to next."""


class Assistant(TypedDict):
    """A graph served under an id, with its configuration."""

    assistant_id: str
    """The assistant's id (runs name it, or the graph id)."""
    graph_id: str
    """The graph it runs (a key of `graphs` in langgraph.json)."""
    name: NotRequired[str]
    """Its display name."""
    config: NotRequired[Config]
    """Its configuration."""
    metadata: NotRequired[dict[str, object]]
    """What its creator attached."""


class Item(TypedDict):
    """A value in the server's key-value store (`/store/items`), e.g. one record of the audit trail."""

    namespace: list[str]
    """The labels it is stored under (`["audit", thread_id]`)."""
    key: str
    """Its key within the namespace."""
    value: dict[str, object]
    """What was stored (the store holds JSON objects only)."""
    created_at: str
    """When it was first stored (ISO 8601)."""
    updated_at: str
    """When it last changed (ISO 8601)."""


class SearchItemsResponse(TypedDict):
    """The answer to `POST /store/items/search`."""

    items: list[Item]
    """One page of the items under the prefix."""
