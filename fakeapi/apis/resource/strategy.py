"""resource.k8s.io strategies (kube's ``pkg/registry/resource/*/strategy.go`` and
``pkg/api/resourceclaimspec``): the fields of features that are off in kube 1.35 by default are
dropped from a write unless the stored object already uses them."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .. import features
from ..fields import Json, get, items


def _requests(spec: Json | None) -> list[Json]:
    return items(get(spec, "devices"), "requests")


def _device_requests(spec: Json | None) -> Iterator[Json]:
    """Every exact request and subrequest of a claim spec: what holds tolerations and capacity."""
    for request in _requests(spec):
        if isinstance(request.get("exactly"), dict):
            yield request["exactly"]
        yield from items(request, "firstAvailable")


def _drop_unless(gate: str, in_use: Callable[[Json | None], bool], old: Json | None) -> bool:
    """kube's rule for a field of a feature: kept if the gate is on or the stored object uses it."""
    return not features.enabled(gate) and not in_use(old)


def drop_disabled_claim_spec_fields(new: Json | None, old: Json | None) -> None:
    """``resourceclaimspec.DropDisabledFields``."""
    if not isinstance(new, dict):
        return
    if _drop_unless("DRAPrioritizedList", lambda spec: any(r.get("firstAvailable") for r in _requests(spec)), old):
        for request in _requests(new):
            request.pop("firstAvailable", None)
    if _drop_unless("DRADeviceTaints", lambda spec: any(r.get("tolerations") for r in _device_requests(spec)), old):
        for request in _device_requests(new):
            request.pop("tolerations", None)
    if _drop_unless("DRAAdminAccess", lambda spec: any(get(r, "exactly", "adminAccess") is not None
                                                       for r in _requests(spec)), old):
        for request in _requests(new):
            if isinstance(request.get("exactly"), dict):
                request["exactly"].pop("adminAccess", None)

    def consumable_capacity_in_use(spec: Json | None) -> bool:
        return (any(c.get("distinctAttribute") is not None for c in items(get(spec, "devices"), "constraints"))
                or any(r.get("capacity") is not None for r in _device_requests(spec)))
    if _drop_unless("DRAConsumableCapacity", consumable_capacity_in_use, old):
        for constraint in items(get(new, "devices"), "constraints"):
            constraint.pop("distinctAttribute", None)
        for request in _device_requests(new):
            request.pop("capacity", None)


def _results(claim: Json | None) -> list[Json]:
    return items(get(claim, "status", "allocation", "devices"), "results")


def drop_disabled_claim_status_fields(new: Json, old: Json | None) -> None:
    """``dropDisabledStatusFields`` for the gates that are off: consumable capacity's share IDs
    and consumed capacity, binding conditions."""
    def capacity_in_use(claim: Json | None) -> bool:
        return (any(r.get("shareID") is not None or r.get("consumedCapacity") is not None for r in _results(claim))
                or any(d.get("shareID") is not None for d in items(get(claim, "status"), "devices")))
    if _drop_unless("DRAConsumableCapacity", capacity_in_use, old):
        for result in _results(new):
            result.pop("shareID", None)
            result.pop("consumedCapacity", None)
        for device in items(get(new, "status"), "devices"):
            device.pop("shareID", None)
    bindings = ("bindingConditions", "bindingFailureConditions")
    if _drop_unless("DRADeviceBindingConditions",
                    lambda claim: any(r.get(name) for r in _results(claim) for name in bindings), old):
        for result in _results(new):
            for name in bindings:
                result.pop(name, None)


def prepare_resource_claim_for_create(claim: Json) -> None:
    drop_disabled_claim_spec_fields(claim.get("spec"), None)
    drop_disabled_claim_status_fields(claim, None)


def prepare_resource_claim_for_update(new: Json, old: Json) -> None:
    drop_disabled_claim_spec_fields(new.get("spec"), old.get("spec"))


def prepare_resource_claim_for_status_update(new: Json, old: Json) -> None:
    drop_disabled_claim_status_fields(new, old)


def prepare_resource_claim_template_for_create(template: Json) -> None:
    drop_disabled_claim_spec_fields(get(template, "spec", "spec"), None)


def prepare_resource_claim_template_for_update(new: Json, old: Json) -> None:
    drop_disabled_claim_spec_fields(get(new, "spec", "spec"), get(old, "spec", "spec"))


def drop_disabled_device_class_fields(new: Json, old: Json | None) -> None:
    """DRAExtendedResource is off: ``spec.extendedResourceName`` goes unless already stored."""
    if _drop_unless("DRAExtendedResource", lambda c: get(c, "spec", "extendedResourceName") is not None, old):
        spec = new.get("spec")
        if isinstance(spec, dict):
            spec.pop("extendedResourceName", None)


def _devices(slice_: Json | None) -> list[Json]:
    return items(get(slice_, "spec"), "devices")


_PER_DEVICE_NODE_FIELDS = ("consumesCounters", "nodeName", "nodeSelector", "allNodes")
_BINDING_FIELDS = ("bindingConditions", "bindingFailureConditions", "bindsToNode")


def drop_disabled_resource_slice_fields(new: Json, old: Json | None) -> None:
    """The resource slice strategy's ``dropDisabledFields``."""
    spec = new.get("spec") if isinstance(new.get("spec"), dict) else {}
    if _drop_unless("DRADeviceTaints", lambda s: any(d.get("taints") for d in _devices(s)), old):
        for device in _devices(new):
            device.pop("taints", None)

    def partitionable_in_use(slice_: Json | None) -> bool:
        return (bool(get(slice_, "spec", "sharedCounters")) or get(slice_, "spec", "perDeviceNodeSelection") is not None
                or any(d.get("consumesCounters") or any(d.get(name) is not None for name in _PER_DEVICE_NODE_FIELDS[1:])
                       for d in _devices(slice_)))
    if _drop_unless("DRAPartitionableDevices", partitionable_in_use, old):
        spec.pop("sharedCounters", None)
        spec.pop("perDeviceNodeSelection", None)
        for device in _devices(new):
            for name in _PER_DEVICE_NODE_FIELDS:
                device.pop(name, None)
    binding_on = features.enabled("DRADeviceBindingConditions") and features.enabled("DRAResourceClaimDeviceStatus")
    if not binding_on and not any(d.get("bindingConditions") or d.get("bindingFailureConditions")
                                  or d.get("bindsToNode") is not None for d in _devices(old)):
        for device in _devices(new):
            for name in _BINDING_FIELDS:
                device.pop(name, None)

    def consumable_in_use(slice_: Json | None) -> bool:
        return any(d.get("allowMultipleAllocations") is not None
                   or any(isinstance(c, dict) and c.get("requestPolicy") is not None
                          for c in (d.get("capacity") or {}).values())
                   for d in _devices(slice_))
    if _drop_unless("DRAConsumableCapacity", consumable_in_use, old):
        for device in _devices(new):
            device.pop("allowMultipleAllocations", None)
            for capacity in (device.get("capacity") or {}).values():
                if isinstance(capacity, dict):
                    capacity.pop("requestPolicy", None)
