"""LimitRanger (kube's ``plugin/pkg/admission/limitranger``): the LimitRanges of a pod's
namespace default its containers' resources on create (``default`` limits, ``defaultRequest``
requests of the ``Container`` limits, noted in the ``kubernetes.io/limit-ranger`` annotation),
then the pod, and a PersistentVolumeClaim on create and update, must fit their ``min``,
``max`` and ``maxLimitRequestRatio`` (403 otherwise). Pod updates are not checked (containers'
resources cannot change), subresources neither. The defaults come before the strategy's
``PrepareForCreate``, so the pod's QoS class counts them."""

from __future__ import annotations

from typing import Any

from ..apis import features
from ..apis.core.resources import pod_resources, resource_list
from ..machinery.quantity import Quantity, decode
from . import Admission, Json, mutating, refusal, validating

ANNOTATION = "kubernetes.io/limit-ranger"
#: ``resource.MaxMilliValue``.
_MAX_MILLI_VALUE = ((1 << 63) - 1) // 1000
_POD_LEVEL_RESOURCES = ("cpu", "memory")


def _limit_ranges(admission: Admission, obj: Json) -> list[Json]:
    return admission.list("", "LimitRange", (obj.get("metadata") or {}).get("namespace"))


def _items(limit_range: Json) -> list[Json]:
    return (limit_range.get("spec") or {}).get("limits") or []


def _deleting(old: Json | None) -> bool:
    return old is not None and bool((old.get("metadata") or {}).get("deletionTimestamp"))


@mutating("", "Pod")
def limit_ranger_defaults(admission: Admission, pod: Json, old: Json | None, subresource: str | None) -> None:
    """``PodMutateLimitFunc`` for each LimitRange of the namespace, on pod create."""
    if old is not None or subresource is not None:
        return
    for limit_range in _limit_ranges(admission, pod):
        requests: dict[str, Any] = {}
        limits: dict[str, Any] = {}
        for item in _items(limit_range):
            if item.get("type") == "Container":
                requests.update(item.get("defaultRequest") or {})
                limits.update(item.get("default") or {})
        _merge_pod_resources(pod, requests, limits)


def _merge_pod_resources(pod: Json, requests: Json, limits: Json) -> None:
    """``mergePodResourceRequirements``: what a container lacks of the defaults, noted."""
    notes: list[str] = []
    spec = pod.get("spec") or {}
    for kind, prefix in (("containers", "container"), ("initContainers", "init container")):
        for container in spec.get(kind) or ():
            set_limits = _merge(container, "limits", limits)
            set_requests = _merge(container, "requests", requests)
            name = container.get("name") or ""
            if set_requests:
                notes.append(f"{', '.join(sorted(set_requests))} request for {prefix} {name}")
            if set_limits:
                notes.append(f"{', '.join(sorted(set_limits))} limit for {prefix} {name}")
    if not notes:
        return
    meta = pod.setdefault("metadata", {})
    annotations = meta.get("annotations")
    if annotations is None:
        annotations = meta["annotations"] = {}
    annotations[ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)


def _merge(container: Json, which: str, defaults: Json) -> list[str]:
    """The ``defaults`` the container's requests or limits lack, added."""
    if not defaults:
        return []
    resources = container.get("resources")
    current = resources.get(which) if resources else None
    added = [name for name in defaults if not current or name not in current]
    if added:
        if resources is None:
            resources = container["resources"] = {}
        if current is None:
            current = resources[which] = {}
        for name in added:
            current[name] = defaults[name]
    return added


@validating("", "Pod")
def limit_ranger_pod_limits(admission: Admission, pod: Json, old: Json | None, subresource: str | None) -> None:
    """``PodValidateLimitFunc`` for each LimitRange of the namespace, on pod create."""
    if old is not None or subresource is not None:
        return
    for limit_range in _limit_ranges(admission, pod):
        errors: list[str] = []
        spec = pod.get("spec") or {}
        for item in _items(limit_range):
            limit_type = item.get("type") or ""
            if limit_type == "Container":
                for kind in ("containers", "initContainers"):
                    for container in spec.get(kind) or ():
                        errors += _constraints(item, limit_type, resource_list(container, "requests"),
                                               resource_list(container, "limits"))
            elif limit_type == "Pod":
                errors += _constraints(item, limit_type, _pod_total(spec, "requests"), _pod_total(spec, "limits"))
        if errors:
            raise refusal("", "pods", pod, _aggregate(errors))


@validating("", "PersistentVolumeClaim")
def limit_ranger_claim_limits(admission: Admission, claim: Json, old: Json | None, subresource: str | None) -> None:
    """``PersistentVolumeClaimValidateLimitFunc``: the claim's storage requests within min/max."""
    if subresource is not None or _deleting(old):
        return
    for limit_range in _limit_ranges(admission, claim):
        errors: list[str] = []
        requests = resource_list(claim.get("spec") or {}, "requests")
        for item in _items(limit_range):
            if item.get("type") != "PersistentVolumeClaim":
                continue
            for name, value in (item.get("min") or {}).items():
                errors += _min(item["type"], name, decode(value), requests, {})
            for name, value in (item.get("max") or {}).items():
                errors += _max_request(item["type"], name, decode(value), requests)
        if errors:
            raise refusal("", "persistentvolumeclaims", claim, _aggregate(errors))


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def _constraints(item: Json, limit_type: str, requests: dict[str, Quantity],
                 limits: dict[str, Quantity]) -> list[str]:
    errors: list[str] = []
    for name, value in (item.get("min") or {}).items():
        errors += _min(limit_type, name, decode(value), requests, limits)
    for name, value in (item.get("max") or {}).items():
        errors += _max(limit_type, name, decode(value), requests, limits)
    for name, value in (item.get("maxLimitRequestRatio") or {}).items():
        errors += _ratio(limit_type, name, decode(value), requests, limits)
    return errors


_ZERO = decode("0")


def _values(request: Quantity | None, limit: Quantity | None, enforced: Quantity) -> tuple[int, int, int]:
    """``requestLimitEnforcedValues``: milli-values when none overflows, else values."""
    request, limit = request or _ZERO, limit or _ZERO
    values = (request.value(), limit.value(), enforced.value())
    if all(v <= _MAX_MILLI_VALUE for v in values):
        return request.milli_value(), limit.milli_value(), enforced.milli_value()
    return values


def _min(limit_type: str, name: str, enforced: Quantity, requests: dict[str, Quantity],
         limits: dict[str, Quantity]) -> list[str]:
    request, limit = requests.get(name), limits.get(name)
    observed_request, observed_limit, value = _values(request, limit, enforced)
    if request is None:
        return [f"minimum {name} usage per {limit_type} is {enforced}.  No request is specified"]
    if observed_request < value:
        return [f"minimum {name} usage per {limit_type} is {enforced}, but request is {request}"]
    if limit is not None and observed_limit < value:
        return [f"minimum {name} usage per {limit_type} is {enforced}, but limit is {limit}"]
    return []


def _max_request(limit_type: str, name: str, enforced: Quantity, requests: dict[str, Quantity]) -> list[str]:
    request = requests.get(name)
    observed_request, _limit, value = _values(request, None, enforced)
    if request is None:
        return [f"maximum {name} usage per {limit_type} is {enforced}.  No request is specified"]
    if observed_request > value:
        return [f"maximum {name} usage per {limit_type} is {enforced}, but request is {request}"]
    return []


def _max(limit_type: str, name: str, enforced: Quantity, requests: dict[str, Quantity],
         limits: dict[str, Quantity]) -> list[str]:
    request, limit = requests.get(name), limits.get(name)
    observed_request, observed_limit, value = _values(request, limit, enforced)
    if limit is None:
        return [f"maximum {name} usage per {limit_type} is {enforced}.  No limit is specified"]
    if observed_limit > value:
        return [f"maximum {name} usage per {limit_type} is {enforced}, but limit is {limit}"]
    if request is not None and observed_request > value:
        return [f"maximum {name} usage per {limit_type} is {enforced}, but request is {request}"]
    return []


def _ratio(limit_type: str, name: str, enforced: Quantity, requests: dict[str, Quantity],
           limits: dict[str, Quantity]) -> list[str]:
    request, limit = requests.get(name), limits.get(name)
    observed_request, observed_limit, _value = _values(request, limit, enforced)
    if request is None or observed_request == 0:
        return [f"{name} max limit to request ratio per {limit_type} is {enforced}, but no request is specified or "
                "request is 0"]
    if limit is None or observed_limit == 0:
        return [f"{name} max limit to request ratio per {limit_type} is {enforced}, but no limit is specified or "
                "limit is 0"]
    observed = observed_limit / observed_request
    shown = observed
    maximum = float(enforced.value())
    if enforced.value() <= _MAX_MILLI_VALUE:
        observed *= 1000
        maximum = float(enforced.milli_value())
    if observed > maximum:
        return [f"{name} max limit to request ratio per {limit_type} is {enforced}, but provided ratio is {shown:f}"]
    return []


def _pod_total(spec: Json, which: str) -> dict[str, Quantity]:
    """The limitranger's ``podRequests`` / ``podLimits``: no overhead, and only cpu and memory
    taken from the pod level."""
    pod_level = _POD_LEVEL_RESOURCES.__contains__ if features.enabled("PodLevelResources") else _never
    return pod_resources(spec, which, overhead=False, pod_level=pod_level)


def _never(name: str) -> bool:
    return False
