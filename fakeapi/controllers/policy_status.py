"""The ValidatingAdmissionPolicy status controller (kube-controller-manager's
``validatingadmissionpolicy-status-controller``, ``pkg/controller/validatingadmissionpolicystatus``):
a policy whose ``metadata.generation`` is past its ``status.observedGeneration`` gets its type
checking (``fakeapi.admission.policy.typechecking``) and that generation, by server-side apply of
its status as the field manager ``validatingadmissionpolicy-status``, forced.

As kube's, a policy is looked at when it is created or changed, not when a kind it matches
is: a CRD created after its policy leaves the policy as it was checked.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from ..cacher import DELETED, CacheEvent
from ..registry.registry import Registry
from .workqueue import WorkQueue

if TYPE_CHECKING:
    from ..admission.policy.typechecking import GroupVersionKind

#: The controller's name in kube-controller-manager's ``--controllers``.
CONTROLLER = "validatingadmissionpolicy-status-controller"
MANAGER = "validatingadmissionpolicy-status"
_POLICIES = ("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies")


class _ServedSchemas:
    """The kinds and schemas of what the registry serves now: built-in kinds' from the OpenAPI
    definitions, custom resources' from their CRD's structural schema with kube's published
    ``apiVersion``, ``kind`` and ObjectMeta ``metadata``."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def kinds_for(self, group: str, version: str, resource: str) -> list[GroupVersionKind]:
        served = self.registry.resources.get((group, version, resource))
        if served is not None:
            return [(group, version, served.resource_type.kind)]
        return [(group, version, served.resource_type.kind)
                for (served_group, served_version, _plural), served in self.registry.resources.items()
                if (served_group, served_version, served.resource_type.singular) == (group, version, resource)]

    def schema(self, group: str, version: str, kind: str) -> Mapping[str, Any] | None:
        from ..admission.policy.typechecking import builtin_schema, object_meta_schema  # loaded by _process

        for (served_group, served_version, _plural), served in self.registry.resources.items():
            if (served_group, served_version, served.resource_type.kind) != (group, version, kind):
                continue
            if not served.resource_type.custom:
                return builtin_schema(group, version, kind)
            node = dict(served.custom_schema.node) if served.custom_schema is not None else {"type": "object"}
            string = {"type": "string"}
            node["properties"] = {**(node.get("properties") or {}), "apiVersion": string, "kind": string,
                                  "metadata": object_meta_schema()}
            return node
        return None


class PolicyStatus:
    def __init__(self, registry: Registry) -> None:
        self.policies = registry.resources[_POLICIES].storage
        self.schemas = _ServedSchemas(registry)
        self.queue = WorkQueue(CONTROLLER, self._process)
        self.policies.cacher.listeners.append(self._observe)

    def start(self) -> None:
        for cached in self.policies.cacher.cache.objects.values():
            self.queue.add(cached.name)
        self.queue.start()

    async def stop(self) -> None:
        await self.queue.stop()

    def _observe(self, event: CacheEvent) -> None:
        if event.type != DELETED:
            self.queue.add(event.obj.name)

    def _process(self, key: Hashable) -> None:
        name = str(key)
        cached = self.policies.cacher.cache.objects.get(self.policies.key(None, name))
        if cached is None:
            return
        policy = orjson.loads(cached.raw)
        generation = policy["metadata"].get("generation", 0)
        if generation <= (policy.get("status") or {}).get("observedGeneration", 0):
            return
        # the type checker (CEL's) loads with the first policy to check, not with the server
        from ..admission.policy.typechecking import expression_warnings

        type_checking: dict[str, Any] = {}
        if warnings := expression_warnings(policy.get("spec") or {}, self.schemas):
            type_checking["expressionWarnings"] = warnings
        applied = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                   "metadata": {"name": name}, "status": {"observedGeneration": generation, "typeChecking": type_checking}}
        self.policies.apply(None, name, orjson.dumps(applied), manager=MANAGER, force=True, subresource="status")
