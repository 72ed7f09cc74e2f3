"""What the generic registry's strategies do to an object on create and update, beyond
server-owned metadata (kube's ``RESTCreateStrategy``/``RESTUpdateStrategy`` of each resource,
and the customresource strategies): status ownership, generation, finalizer rules.

* With a ``status`` subresource, the main resource does not write status: create starts from
  the kind's initial status, update keeps the stored one. ``/status`` writes the other way round:
  the stored object with ``status`` taken from the request, and for built-in kinds its metadata
  too, but what the kind's status strategy keeps (``_STATUS_KEEPS_METADATA``); custom resources
  take only status and managedFields (``customresource/status_strategy.go``).
* ``metadata.generation`` moves by one when anything outside metadata and status changes
  (CRs: ``PrepareForUpdate``); ``/status`` writes never move it.
* Once ``deletionTimestamp`` is set, finalizers may only be removed
  (``ValidateNoNewFinalizers``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import orjson

from ..apis.catalogue import ResourceType
from ..machinery import gostruct
from ..machinery.jsonvalue import json_copy
from ..machinery.schema import kind_schema
from ..machinery.status import invalid

Json = dict[str, Any]

#: Status a freshly created object of these kinds starts with (the kinds' ``PrepareForCreate``);
#: other kinds with a status subresource start with an empty status.
_INITIAL_STATUS: dict[tuple[str, str], Json] = {
    ("", "Pod"): {"phase": "Pending"},
    ("", "Namespace"): {"phase": "Active"},
}
#: Built-in kinds whose ``PrepareForCreate`` keeps the status the request gives, where every
#: other kind's starts over: a kubelet registers its node with its addresses, capacity and
#: conditions in one create (kwok's nodes too; pods read their hostIP from the addresses), and
#: ServiceCIDR's strategy clears nothing.
_STATUS_KEPT_ON_CREATE = frozenset({("", "Node"), ("networking.k8s.io", "ServiceCIDR")})
#: The finalizer the namespace controller removes once a namespace is empty.
NAMESPACE_FINALIZER = "kubernetes"


def has_status_subresource(resource_type: ResourceType) -> bool:
    return "status" in resource_type.subresources


#: Built-in kinds whose strategies set generation but whose status has no observedGeneration.
_GENERATION_WITHOUT_OBSERVED = frozenset((
    ("batch", "Job"), ("batch", "CronJob"),
    ("networking.k8s.io", "Ingress"), ("networking.k8s.io", "NetworkPolicy"),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
))


@cache
def tracks_generation(resource_type: ResourceType) -> bool:
    """Whether objects of the kind carry ``metadata.generation``: custom resources do; built-in
    kinds do when their strategy sets it, which is where the status reports an
    ``observedGeneration`` (deployments, pods, disruption budgets, ...), plus a few without."""
    if resource_type.custom or (resource_type.group, resource_type.kind) in _GENERATION_WITHOUT_OBSERVED:
        return True
    schema = kind_schema(resource_type.group, resource_type.version, resource_type.kind)
    status = schema.field("status") if schema is not None else None
    return status is not None and "observedGeneration" in status.properties


@cache
def _initial_status(group_version: str, group: str, kind: str) -> bytes:
    """The status a new built-in object starts with, as JSON: its status struct's zero value as
    Go prints it (non-omitempty fields show their zeros: a PodDisruptionBudget's counts), then
    what the kind starts with."""
    zero = gostruct.zero_object(group_version, kind) or {}
    return orjson.dumps({**zero.get("status", {}), **_INITIAL_STATUS.get((group, kind), {})})


def prepare_for_create(resource_type: ResourceType, obj: Json) -> None:
    if tracks_generation(resource_type):
        obj["metadata"]["generation"] = 1
    if has_status_subresource(resource_type):
        if resource_type.custom:
            obj.pop("status", None)
        else:
            initial = orjson.loads(_initial_status(resource_type.group_version, resource_type.group, resource_type.kind))
            kept = (resource_type.group, resource_type.kind) in _STATUS_KEPT_ON_CREATE
            obj["status"] = {**initial, **(obj.get("status") or {})} if kept else initial
    if (resource_type.group, resource_type.kind) == ("", "Namespace"):
        finalizers = obj.setdefault("spec", {}).setdefault("finalizers", [])
        if NAMESPACE_FINALIZER not in finalizers:
            finalizers.append(NAMESPACE_FINALIZER)


#: ``metav1.ResetObjectMetaForStatus``: the metadata a status write may not change.
_RESET_FOR_STATUS = ("labels", "annotations", "finalizers", "ownerReferences")
_ALL_METADATA = ("*",)
#: What a built-in kind's status strategy takes from the stored object's metadata (kube: each
#: strategy's ``PrepareForUpdate``). Other built-in kinds' ``/status`` writes keep the request's
#: metadata (pods: a kubelet's labels and annotations); custom resources keep none of it.
_STATUS_KEEPS_METADATA: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): ("ownerReferences",),  # old kubelets corrupted them
    ("apps", "Deployment"): ("labels",),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): _ALL_METADATA,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): _ALL_METADATA,
    **{kind: _RESET_FOR_STATUS for kind in (
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"), ("networking.k8s.io", "ServiceCIDR"),
        ("apiregistration.k8s.io", "APIService"),
        ("storage.k8s.io", "VolumeAttachment"), ("resource.k8s.io", "ResourceClaim"),
        ("resource.k8s.io", "DeviceTaintRule"), ("certificates.k8s.io", "PodCertificateRequest"),
        ("internal.apiserver.k8s.io", "StorageVersion"), ("storagemigration.k8s.io", "StorageVersionMigration"),
    )},
}


def prepare_for_update(resource_type: ResourceType, new: Json, old: Json, subresource: str | None) -> Json:
    """The object to store for an update of ``old`` with ``new`` (already holding the kept
    server-owned metadata) through the main resource or a subresource."""
    if subresource == "status":
        result = json_copy(old)
        if "status" in new:
            result["status"] = new["status"]
        else:
            result.pop("status", None)
        new_meta = new.get("metadata", {})
        kept = (_ALL_METADATA if resource_type.custom
                else _STATUS_KEEPS_METADATA.get((resource_type.group, resource_type.kind), ()))
        if kept != _ALL_METADATA:
            meta = dict(new_meta)
            for key in kept:
                if key in old["metadata"]:
                    meta[key] = old["metadata"][key]
                else:
                    meta.pop(key, None)
            result["metadata"] = meta
        elif new_meta.get("managedFields") is not None:
            result["metadata"]["managedFields"] = new_meta["managedFields"]
        return result
    if has_status_subresource(resource_type):
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)
    if tracks_generation(resource_type) and spec_changed(new, old):
        new["metadata"]["generation"] = old.get("metadata", {}).get("generation", 1) + 1
    return new


def spec_changed(new: Json, old: Json) -> bool:
    """Anything outside metadata and status (and the type fields) differs."""
    keys = (set(new) | set(old)) - {"metadata", "status", "kind", "apiVersion"}
    return any(new.get(k) != old.get(k) for k in keys)


def check_finalizers(resource_type: ResourceType, name: str, new_meta: Json, old_meta: Json) -> None:
    """No new finalizers on an object being deleted (422, kube's wording)."""
    if not old_meta.get("deletionTimestamp"):
        return
    added = [f for f in new_meta.get("finalizers") or () if f not in (old_meta.get("finalizers") or ())]
    if added:
        found = ", ".join(f'"{f}"' for f in added)
        raise invalid(resource_type.group, resource_type.kind, name, [(
            "metadata.finalizers", "FieldValueForbidden",
            f"Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{{{found}}}",
        )])
