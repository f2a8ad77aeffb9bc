"""The field actions' arguments and the reviewed work order's key rule: shared by the agent, which runs
the tools (`sitewalk_agent.field_actions`), and the browser, which checks an edited decision against the
same contract and says before a fork whether a changed decision reaches an order already filed.

The key of a reviewed `create_work_order` comes from its *substance*: the inspection and the subject's
words (case, spacing and punctuation do not make another order; any script counts). The priority is not
substance: asking again for the same repair with another priority returns the order filed first.

    key = "work-order:{inspection}:{subject slug}:{sha256(canonical substance)[:12]}"

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import BaseModel, Field

from .canonical import sha256_of

__all__ = ["ACTION_TITLES", "FIELD_ARGS", "NotifyArgs", "PhotosArgs", "WorkOrderArgs", "reviewed_order_key",
           "reviewed_substance"]


class WorkOrderArgs(BaseModel):
    inspection_id: str = Field(min_length=1, max_length=64, title="Inspection",
                               description="The inspection the order belongs to.")
    subject: str = Field(min_length=1, max_length=200, title="What to repair",
                         description="What must be repaired, in a few words.")
    priority: str = Field("normal", pattern="^(low|normal|high|urgent)$", title="Priority",
                          description="low, normal, high or urgent.")


class NotifyArgs(BaseModel):
    inspection_id: str = Field(min_length=1, max_length=64, title="Inspection")
    message: str = Field(min_length=1, max_length=1000, title="Message", description="What the site manager is told.")


class PhotosArgs(BaseModel):
    inspection_id: str = Field(min_length=1, max_length=64, title="Inspection")
    photo_ids: list[str] = Field(min_length=1, max_length=50, title="Photos", description="The photos concerned.")


FIELD_ARGS: dict[str, type[BaseModel]] = {"create_work_order": WorkOrderArgs, "notify_site_manager": NotifyArgs,
                                          "archive_photos": PhotosArgs, "delete_photos": PhotosArgs}
ACTION_TITLES: dict[str, str] = {"create_work_order": "Raise a work order",
                                 "notify_site_manager": "Message the site manager",
                                 "archive_photos": "Archive photos", "delete_photos": "Delete photos"}
"""Each field action as a person would name it (a review card's title; the code name stays in its data)."""


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def reviewed_substance(inspection_id: str, subject: str) -> dict[str, str]:
    """The substance of a reviewed order: the inspection and the subject, as words."""
    return {"inspection_id": inspection_id, "subject": " ".join(_words(subject)) or subject.strip()}


def reviewed_order_key(substance: Mapping[str, object]) -> str:
    """`work-order:{inspection}:{subject slug}:{digest}`: the key of a reviewed `create_work_order`.

    The slug is for people (at most 60 characters); the digest, over the whole substance, is what
    tells two orders apart."""
    digest = sha256_of(substance)[:12]
    slug = "-".join(_words(str(substance["subject"])))[:60].strip("-") or "order"
    return f"work-order:{substance['inspection_id']}:{slug}:{digest}"
