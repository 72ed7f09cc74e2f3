"""APIService conditions as kube-aggregator's ``apiregistration/v1/helper`` sets them, shared by
the strategy (a local APIService is Available from its create on) and the availability
controllers (``fakeapi.controllers.apiservice_availability``)."""

from __future__ import annotations

from ..fields import Json

AVAILABLE = "Available"


def available_condition(status: str, reason: str, message: str, now: str) -> Json:
    """An ``Available`` condition in Go's field order."""
    return {"type": AVAILABLE, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}


def local_available_condition(now: str) -> Json:
    """``NewLocalAvailableAPIServiceCondition``."""
    return available_condition("True", "Local", "Local APIServices are always available", now)


def set_condition(api_service: Json, condition: Json) -> None:
    """``SetAPIServiceCondition``: a condition of a type the status has not yet is appended; one
    it has takes the new status (and its lastTransitionTime only when the status changed), reason
    and message."""
    conditions = api_service.setdefault("status", {}).setdefault("conditions", [])
    existing = next((c for c in conditions if c.get("type") == condition["type"]), None)
    if existing is None:
        conditions.append(condition)
        return
    if existing.get("status") != condition["status"]:
        existing["status"] = condition["status"]
        existing["lastTransitionTime"] = condition["lastTransitionTime"]
    existing["reason"] = condition["reason"]
    existing["message"] = condition["message"]
