"""The FlowSchema status half of kube-apiserver's API Priority and Fairness configuration
controller (``apiserver/pkg/util/flowcontrol``'s ``configController``), which runs inside
kube-apiserver: every FlowSchema has a ``Dangling`` condition saying whether the
PriorityLevelConfiguration it references exists, written by server-side apply of its status as
the field manager ``api-priority-and-fairness-config-consumer-v1``, forced.

A priority level that exists but that the controller cannot use (``queueSetCompleterForPL``'s
broken unions, an exempt type under another name than ``exempt``) counts as missing, as it does
for kube. The condition is written only when its status, reason or message is not the desired
one (a transition time alone never is), so a client's write of the status that drops it (a merge
patch replacing the conditions) has it put back. A FlowSchema is looked at when it is created or
changed, and every FlowSchema referencing a priority level when that level is.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import orjson

from ..cacher import DELETED, CacheEvent
from ..machinery.golang import go_quote
from ..machinery.metadata import now_rfc3339
from ..registry.registry import Registry
from .workqueue import WorkQueue

MANAGER = "api-priority-and-fairness-config-consumer-v1"
_GROUP = "flowcontrol.apiserver.k8s.io"
_FLOW_SCHEMAS = (_GROUP, "v1", "flowschemas")
_PRIORITY_LEVELS = (_GROUP, "v1", "prioritylevelconfigurations")
_DANGLING = "Dangling"

Json = dict[str, Any]


def usable(level: Json) -> bool:
    """Whether the controller can build a priority level's queues (``queueSetCompleterForPL``):
    its type's union member set and only it, the exempt type under the name ``exempt`` only,
    and a limit response's queuing set exactly when it queues."""
    spec = level.get("spec") or {}
    kind, limited = spec.get("type"), spec.get("limited")
    if (kind == "Limited") != (limited is not None) or (kind == "Exempt") != (spec.get("exempt") is not None):
        return False
    if (kind == "Exempt") != (level["metadata"]["name"] == "exempt"):
        return False
    if limited is None:
        return True
    response = limited.get("limitResponse") or {}
    return (response.get("type") == "Reject") == (response.get("queuing") is None)


def dangling_condition(level_name: str, found: bool) -> Json:
    """The condition a FlowSchema referencing ``level_name`` should have (``presyncFlowSchemaStatus``),
    without its transition time."""
    if found:
        return {"type": _DANGLING, "status": "False", "reason": "Found",
                "message": f"This FlowSchema references the PriorityLevelConfiguration object named "
                           f"{go_quote(level_name)} and it exists"}
    return {"type": _DANGLING, "status": "True", "reason": "NotFound",
            "message": f"This FlowSchema references the PriorityLevelConfiguration object named "
                       f"{go_quote(level_name)} but there is no such object"}


class FlowSchemaStatus:
    def __init__(self, registry: Registry) -> None:
        self.flow_schemas = registry.resources[_FLOW_SCHEMAS].storage
        self.priority_levels = registry.resources[_PRIORITY_LEVELS].storage
        self.queue = WorkQueue("apf-flowschema-status", self._process)
        self.flow_schemas.cacher.listeners.append(self._observe_flow_schema)
        self.priority_levels.cacher.listeners.append(self._observe_priority_level)

    def start(self) -> None:
        for cached in self.flow_schemas.cacher.snapshot("", None):
            self.queue.add(cached.name)
        self.queue.start()

    async def stop(self) -> None:
        await self.queue.stop()

    def _observe_flow_schema(self, event: CacheEvent) -> None:
        if event.type != DELETED:
            self.queue.add(event.obj.name)

    def _observe_priority_level(self, event: CacheEvent) -> None:
        level = event.obj.name
        for cached in self.flow_schemas.cacher.snapshot("", None):
            if _referenced_level(orjson.loads(cached.raw)) == level:
                self.queue.add(cached.name)

    def _process(self, key: Hashable) -> None:
        name = str(key)
        cached = self.flow_schemas.cacher.cache.objects.get(self.flow_schemas.key(None, name))
        if cached is None:
            return
        flow_schema = orjson.loads(cached.raw)
        level_name = _referenced_level(flow_schema)
        level = self.priority_levels.cacher.cache.objects.get(self.priority_levels.key(None, level_name))
        desired = dangling_condition(level_name, level is not None and usable(orjson.loads(level.raw)))
        current = next((condition for condition in (flow_schema.get("status") or {}).get("conditions") or ()
                        if condition.get("type") == _DANGLING), {})
        if all(current.get(field) == desired[field] for field in ("status", "reason", "message")):
            return
        applied = {"kind": "FlowSchema", "apiVersion": f"{_GROUP}/v1", "metadata": {"name": name},
                   "status": {"conditions": [{**desired, "lastTransitionTime": now_rfc3339()}]}}
        self.flow_schemas.apply(None, name, orjson.dumps(applied), manager=MANAGER, force=True, subresource="status")


def _referenced_level(flow_schema: Json) -> str:
    return str(((flow_schema.get("spec") or {}).get("priorityLevelConfiguration") or {}).get("name", ""))
