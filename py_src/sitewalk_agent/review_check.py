"""Checking one review decision on the server: the decision it is, or a typed refusal, never an exception.

A decision is checked in this order, and the first thing wrong is the refusal:

1. `invalid_decision`: not an object, or a `type` the tool does not allow (approve, edit, reject).
2. `stale_revision`: it names another revision or hash than the args pending on the server (an old
   client, another tab, a forged request), or none.
3. `invalid_edit`: an edit whose `edited_action` breaks the tool's contract: another tool's name, or
   args that the tool's own argument model (`args_schema`, the pydantic model of `sitewalk_shared.contracts`
   the device checks with too) refuses, or a key that model does not name. The refusal names the field
   (`priority`, `photo_ids.0`, `cost`) and pydantic's reason.

Why written here and not LangChain's `_decision_schema` + `interrupt(response_schema=...)`: LangGraph
raises the schema's `ValidationError` out of `interrupt()`, which fails the run, and on Aegra a thread
in `error` can never be resumed again. Checking the answer ourselves lets the review ask again with
the refusal attached (`sitewalk_agent.review`). The same models give the JSON Schema published with
the interrupt, so clients still see what a decision must look like.
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from typing import Annotated, Any, Literal, TypedDict, Union, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import ErrorDetails

__all__ = ["INVALID_DECISION", "INVALID_EDIT", "PENDING_REVISION", "STALE_REVISION", "Refusal",
           "check_decision", "decision_schema"]

STALE_REVISION = "stale_revision"
INVALID_EDIT = "invalid_edit"
INVALID_DECISION = "invalid_decision"
PENDING_REVISION = 1  # per_call: the pending args are always the model's own (an edit runs at once)


@dataclasses.dataclass(frozen=True)
class Refusal:
    """Why a decision was not taken: a code, the field at fault (edits), and the reason."""

    code: str
    message: str
    field: str | None = None
    issues: list[dict[str, str]] = dataclasses.field(default_factory=list)  # every (field, message) for an edit

    def as_dict(self) -> dict[str, object]:
        return {"code": self.code, "field": self.field, "message": self.message, "issues": list(self.issues)}


class _Named(BaseModel):
    """What every decision carries: the revision it was made on. Other keys are ignored, as LangChain does."""

    model_config = ConfigDict(extra="ignore")
    args_revision: int
    args_hash: str


class _Approve(_Named):
    type: Literal["approve"]


class _Reject(_Named):
    type: Literal["reject"]
    message: str | None = None


def _closed(args_model: type[BaseModel]) -> type[BaseModel]:
    """The tool's argument model refusing keys it does not name. The model itself ignores them (pydantic's
    default), so an edit adding `cost` would run without it while the reviewer's args, with it, are what
    the audit record hashes and what the model is told ran."""
    config = ConfigDict(extra="forbid")
    return cast(type[BaseModel], type(args_model.__name__, (args_model,),
                                      {"model_config": config, "__module__": args_model.__module__}))


def _edit(name: str, args_model: type[BaseModel] | None) -> type[BaseModel]:
    """An edit of THIS tool: its name pinned, its args checked by the tool's own model, closed (any object
    without one)."""
    edited = create_model("EditedAction", name=(cast(Any, Literal[name]), ...),
                          args=(cast(Any, _closed(args_model) if args_model else dict[str, Any]), ...))
    return create_model("EditDecision", __base__=_Named, type=(cast(Any, Literal["edit"]), ...),
                        edited_action=(cast(Any, edited), ...))


@lru_cache(maxsize=64)
def _adapter(name: str, allowed: tuple[str, ...], args_model: type[BaseModel] | None) -> TypeAdapter[BaseModel]:
    """A union of the allowed decisions told apart by `type`, so a bad answer gets one precise error."""
    kinds: dict[str, type[BaseModel]] = {"approve": _Approve, "edit": _edit(name, args_model), "reject": _Reject}
    members = tuple(kinds[k] for k in allowed if k in kinds)
    if len(members) == 1:
        return TypeAdapter(members[0])
    return TypeAdapter(cast(Any, Annotated[Union[members], Field(discriminator="type")]))  # noqa: UP007


def _args_model(tool: object) -> type[BaseModel] | None:
    schema = getattr(tool, "args_schema", None)
    return schema if isinstance(schema, type) and issubclass(schema, BaseModel) else None


def decision_schema(name: str, allowed: list[str], tool: object) -> JsonSchemaValue:
    """The JSON Schema of a decision on this call (published with the interrupt; not enforced by LangGraph)."""
    return _adapter(name, tuple(allowed), _args_model(tool)).json_schema()


def check_decision(answer: object, *, name: str, allowed: list[str], tool: object, pending_hash: str
                   ) -> dict[str, object] | Refusal:
    """The decision as sent (the tool validates its args once more when it runs), or why it is refused."""
    if not isinstance(answer, dict) or answer.get("type") not in allowed:
        kind = answer.get("type") if isinstance(answer, dict) else type(answer).__name__
        return Refusal(INVALID_DECISION, f"unknown decision {kind!r}: expected one of {', '.join(allowed)}")
    if answer.get("args_revision") != PENDING_REVISION or answer.get("args_hash") != pending_hash:
        return Refusal(STALE_REVISION, f"the decision names revision {answer.get('args_revision')!r} hash "
                       f"{str(answer.get('args_hash'))[:12]!r}; pending is revision {PENDING_REVISION} hash "
                       f"{pending_hash[:12]!r}. Reload the review and decide again.")
    try:
        _adapter(name, tuple(allowed), _args_model(tool)).validate_python(answer)
    except ValidationError as error:
        return _refusal(error)
    return answer


def _refusal(error: ValidationError) -> Refusal:
    issues = [_issue(e["loc"], _reason(e)) for e in error.errors(include_url=False)]
    first = issues[0]
    code = INVALID_EDIT if first["edit"] else INVALID_DECISION
    shown = [{"field": i["field"], "message": i["message"]} for i in issues]
    return Refusal(code, first["message"], first["field"] or None, shown)


_CHOICES = re.compile(r"^\^\(([\w-]+(?:\|[\w-]+)+)\)\$$")  # a pattern of alternatives: ^(low|normal|high)$


def _reason(error: ErrorDetails) -> str:
    """pydantic's message, except a pattern of alternatives, which names the choices in words."""
    pattern = (error.get("ctx") or {}).get("pattern") if error.get("type") == "string_pattern_mismatch" else None
    found = _CHOICES.match(pattern) if isinstance(pattern, str) else None
    if found is None:
        return str(error["msg"])
    return f"{error.get('input')!r} is not allowed: one of {', '.join(found.group(1).split('|'))}"


class _Issue(TypedDict):
    field: str
    message: str
    edit: bool  # in the edited call (its name or args), not the decision's own fields


def _issue(loc: tuple[int | str, ...], message: str) -> _Issue:
    """`("edit", "edited_action", "args", "priority")` -> field `priority`; `(..., "name")` -> `edited_action.name`."""
    path = [str(part) for part in loc]
    if path[:1] in (["approve"], ["edit"], ["reject"]):
        path = path[1:]  # the discriminator's tag
    edit = path[:1] == ["edited_action"]
    if path[:2] == ["edited_action", "args"]:
        path = path[2:]
    return {"field": ".".join(path), "message": message, "edit": edit}
