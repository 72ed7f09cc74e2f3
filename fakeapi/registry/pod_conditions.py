"""``podutil.UpdatePodCondition`` (kube's ``pkg/api/pod``): how the binding and eviction storages
set a pod condition."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]


def update_pod_condition(status: Json, condition: Json, now: str) -> bool:
    """Set ``condition`` (``type``, ``status``, optional ``reason`` and ``message``) in a pod's
    status, as Go writes a ``PodCondition`` (``lastProbeTime`` null); its transition time is
    ``now`` unless a condition of its type had the same status. Returns whether anything changed."""
    written = {"type": condition["type"], "status": condition["status"], "lastProbeTime": None,
               "lastTransitionTime": now}
    for key in ("reason", "message"):
        if condition.get(key):
            written[key] = condition[key]
    conditions = status.setdefault("conditions", [])
    for index, old in enumerate(conditions):
        if old.get("type") == condition["type"]:
            if old.get("status") == condition["status"]:
                written["lastTransitionTime"] = old.get("lastTransitionTime")
            conditions[index] = written
            return written != old
    conditions.append(written)
    return True
