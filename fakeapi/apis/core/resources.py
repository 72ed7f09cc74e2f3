"""A pod's resources as kube adds them up (``k8s.io/component-helpers/resource``): the sum over
regular and sidecar containers, the largest init container's needs, pod-level values for the
resources they cover, and the pod overhead. Values are ``Quantity`` objects (v1 JSON in)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...machinery.quantity import Quantity, decode

Json = dict[str, Any]
Resources = dict[str, Quantity]


def is_supported_pod_level_resource(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and hugepages."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def add_resources(total: Resources, more: Resources) -> None:
    """``addResourceList``: ``more`` added into ``total``."""
    for name, value in more.items():
        total[name] = total[name] + value if name in total else value


def max_resources(total: Resources, more: Resources) -> None:
    """``maxResourceList``: each of ``total`` raised to ``more``'s value where that is larger."""
    for name, value in more.items():
        if name not in total or value.cmp(total[name]) > 0:
            total[name] = value


def resource_list(holder: Json, which: str) -> Resources:
    """The ``resources.requests`` or ``resources.limits`` of a container or claim spec, parsed."""
    return {name: decode(value) for name, value in ((holder.get("resources") or {}).get(which) or {}).items()}


def aggregate_container_resources(spec: Json, which: str) -> Resources:
    """``AggregateContainerRequests`` / ``AggregateContainerLimits`` (from the spec, not the
    status): regular and sidecar containers add up; an init container needs its own resources
    plus the sidecars started before it, and the pod needs the largest of those."""
    total: Resources = {}
    for container in spec.get("containers") or ():
        add_resources(total, resource_list(container, which))
    sidecars: Resources = {}
    init_needs: Resources = {}
    for container in spec.get("initContainers") or ():
        own = resource_list(container, which)
        if container.get("restartPolicy") == "Always":
            add_resources(total, own)
            add_resources(sidecars, own)
            needed = dict(sidecars)
        else:
            needed = dict(own)
            add_resources(needed, sidecars)
        max_resources(init_needs, needed)
    max_resources(total, init_needs)
    return total


def pod_resources(spec: Json, which: str, *, overhead: bool = True,
                  pod_level: Callable[[str], bool] = is_supported_pod_level_resource) -> Resources:
    """``PodRequests`` / ``PodLimits``: the containers' aggregate, overridden by the pod-level
    values of the resources ``pod_level`` accepts, plus the overhead (added to every request,
    and to the limits that are set)."""
    total = aggregate_container_resources(spec, which)
    pod_values = (spec.get("resources") or {}).get(which) or {}
    for name, value in pod_values.items():
        if pod_level(name):
            total[name] = decode(value)
    if overhead:
        for name, value in (spec.get("overhead") or {}).items():
            if which == "requests":
                add_resources(total, {name: decode(value)})
            elif name in total and not total[name].is_zero():
                total[name] = total[name] + decode(value)
    return total
