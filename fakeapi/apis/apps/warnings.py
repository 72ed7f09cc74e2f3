"""Warnings of apps writes (the strategies' ``WarningsOnCreate``/``WarningsOnUpdate``)."""

from __future__ import annotations

from ..fields import Json, get
from ..podtemplates import name_warnings


def deployment_warnings_on_create(obj: Json) -> list[str]:
    """Deployments and ReplicaSets: their pods are named after them."""
    return name_warnings(obj["metadata"].get("name") or "")


def stateful_set_warnings(obj: Json) -> list[str]:
    """Create and update: a negative history limit keeps every revision."""
    limit = get(obj, "spec", "revisionHistoryLimit")
    if isinstance(limit, int) and limit < 0:
        return ["spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is "
                "recommended"]
    return []
