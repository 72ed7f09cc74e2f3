"""ResourceQuota (kube's ``apiserver/pkg/admission/plugin/resourcequota`` with the evaluators
of ``pkg/quota/v1/evaluator/core``): a write to a namespace with quotas is charged to every
quota that covers it, and refused (403) when that would take a quota's ``status.used`` past its
``status.hard``; the charges are written to the quotas' status, by "kube-apiserver", before the
object is stored (not on a dry run). A quota covers a write when its ``status.hard`` names a
resource the write uses and its scopes match the object; a quota whose status is not known yet
(no ``status.used`` for a resource it limits) refuses the writes it covers.

What is counted, as kube counts it: pods (``pods``, ``count/pods``, cpu, memory, ephemeral
storage and hugepages requests and limits, extended resources' requests; scopes Terminating,
NotTerminating, BestEffort, NotBestEffort, PriorityClass, CrossNamespacePodAffinity), services
(``services``, ``services.nodeports``, ``services.loadbalancers``), persistent volume claims
(count and storage requests, also per storage class; scope VolumeAttributesClass), and
``count/<resource>[.<group>]`` for every other created object (plus ``configmaps``, ``secrets``,
``replicationcontrollers``, ``resourcequotas``). Usage is only ever added here; kube-controller-
manager's quota controller recomputes it (and fills a new quota's status)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from ..apis.catalogue import default_catalogue
from ..apis.core.resources import pod_resources
from ..apis.core.strategy import pod_qos_class
from ..apis.core.validation_common import is_extended_resource, is_native_resource
from ..machinery.quantity import Quantity, decode
from ..machinery.selectors import LabelRequirement
from . import Admission, Json, refusal, validating_all

Resources = dict[str, Quantity]
ScopeSelector = tuple[str, str, list[str]]  # scope name, operator, values

#: ``install.DefaultIgnoredResources``: never charged.
_IGNORED = frozenset((
    ("", "bindings"), ("", "componentstatuses"), ("", "events"), ("events.k8s.io", "events"),
    ("authentication.k8s.io", "tokenreviews"), ("authentication.k8s.io", "selfsubjectreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"), ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"), ("authorization.k8s.io", "selfsubjectrulesreviews"),
))
#: ``legacyObjectCountAliases``.
_LEGACY_ALIASES = {"configmaps": "configmaps", "resourcequotas": "resourcequotas",
                   "replicationcontrollers": "replicationcontrollers", "secrets": "secrets"}
_ONE = decode("1")
_ZERO = decode("0")


def _count_name(group: str, plural: str) -> str:
    """``ObjectCountQuotaResourceNameFor``."""
    return f"count/{plural}.{group}" if group else f"count/{plural}"


class _Evaluator:
    """``generic.objectCountEvaluator``: one of each created object."""

    def __init__(self, group: str, plural: str) -> None:
        self.names = [_count_name(group, plural)]
        if not group and plural in _LEGACY_ALIASES:
            self.names.append(_LEGACY_ALIASES[plural])

    def handles(self, obj: Json, old: Json | None, subresource: str | None) -> bool:
        return subresource is None and old is None

    def matching_resources(self, names: list[str]) -> list[str]:
        return [name for name in names if name in self.names]

    def scope_matches(self, selector: ScopeSelector, obj: Json) -> bool:
        return False

    def constraints(self, required: list[str], obj: Json) -> str:
        return ""

    def usage(self, obj: Json) -> Resources:
        return dict.fromkeys(self.names, _ONE)


_POD_RESOURCES = frozenset(("count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
                            "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
                            "pods"))
_POD_CONSTRAINED = frozenset(("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"))


class _PodEvaluator(_Evaluator):
    """``podEvaluator``."""

    def __init__(self) -> None:
        self.names = ["count/pods"]

    def handles(self, obj: Json, old: Json | None, subresource: str | None) -> bool:
        if subresource is None:
            return old is None or _terminating(old) != _terminating(obj)
        return subresource == "resize" and old is not None

    def matching_resources(self, names: list[str]) -> list[str]:
        result = [name for name in names if name in _POD_RESOURCES]
        for name in names:
            if name.startswith(("hugepages-", "requests.hugepages-")):
                result.append(name)
            if _is_extended_resource_for_quota(name):
                result.append(name)
        return result

    def scope_matches(self, selector: ScopeSelector, pod: Json) -> bool:
        """``podMatchesScopeFunc``."""
        scope, operator, _values = selector
        spec = pod.get("spec") or {}
        if scope == "Terminating":
            return _terminating(pod)
        if scope == "NotTerminating":
            return not _terminating(pod)
        if scope == "BestEffort":
            return pod_qos_class(spec) == "BestEffort"
        if scope == "NotBestEffort":
            return pod_qos_class(spec) != "BestEffort"
        if scope == "PriorityClass":
            class_name = spec.get("priorityClassName") or ""
            if operator == "Exists":
                return bool(class_name)
            return _selector_matches(selector, {"PriorityClass": class_name} if class_name else {})
        if scope == "CrossNamespacePodAffinity":
            return _uses_cross_namespace_pod_affinity(spec)
        return False

    def constraints(self, required: list[str], pod: Json) -> str:
        """``podEvaluator.Constraints``: each container sets what the quota limits of cpu and
        memory (unless the pod sets pod-level resources)."""
        spec = pod.get("spec") or {}
        if spec.get("resources") and ((spec["resources"].get("requests")) or spec["resources"].get("limits")):
            return ""
        wanted = _POD_CONSTRAINED.intersection(required)
        missing: dict[str, set[str]] = {}
        for kind in ("containers", "initContainers"):
            for container in spec.get(kind) or ():
                resources = container.get("resources") or {}
                present = _compute_usage(_parsed(resources.get("requests")), _parsed(resources.get("limits")))
                for name in wanted - present.keys():
                    missing.setdefault(name, set()).add(container.get("name") or "")
        if not missing:
            return ""
        return "must specify " + "; ".join(f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing))

    def usage(self, pod: Json) -> Resources:
        """``PodUsageFunc``: nothing but the count for a pod that finished."""
        result: Resources = {"count/pods": _ONE}
        if (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
            return result
        spec = pod.get("spec") or {}
        result.update(_compute_usage(pod_resources(spec, "requests"), pod_resources(spec, "limits")))
        return result


def _parsed(values: Json | None) -> Resources:
    return {name: decode(value) for name, value in (values or {}).items()}


def _compute_usage(requests: Resources, limits: Resources) -> Resources:
    """``podComputeUsageHelper``."""
    result: Resources = {"pods": _ONE}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            result[name] = result[f"requests.{name}"] = requests[name]
        if name in limits:
            result[f"limits.{name}"] = limits[name]
    for name, value in requests.items():
        if name.startswith("hugepages-"):
            result[name] = result[f"requests.{name}"] = value
        elif name.startswith("deviceclass.resource.kubernetes.io/") or is_extended_resource(name):
            result[f"requests.{name}"] = value
    return result


def _is_extended_resource_for_quota(name: str) -> bool:
    """``isExtendedResourceNameForQuota``: ``requests.`` of a resource that is not native
    (has a domain other than kubernetes.io) or of a device class."""
    if not name.startswith("requests."):
        return False
    return not is_native_resource(name) or name.startswith("requests.deviceclass.resource.kubernetes.io/")


def _terminating(pod: Json) -> bool:
    """``IsTerminating``: an active deadline."""
    deadline = (pod.get("spec") or {}).get("activeDeadlineSeconds")
    return isinstance(deadline, int) and deadline >= 0


def _uses_cross_namespace_pod_affinity(spec: Json) -> bool:
    affinity = spec.get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = affinity.get(kind) or {}
        required = terms.get("requiredDuringSchedulingIgnoredDuringExecution") or []
        preferred = [t.get("podAffinityTerm") or {} for t in terms.get("preferredDuringSchedulingIgnoredDuringExecution") or []]
        if any(term.get("namespaces") or term.get("namespaceSelector") is not None for term in [*required, *preferred]):
            return True
    return False


_SELECTION_OPERATORS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


def _selector_matches(selector: ScopeSelector, labels: dict[str, str]) -> bool:
    """``ScopedResourceSelectorRequirementsAsSelector(...).Matches(labels)``: the scope name as
    the label key."""
    scope, operator, values = selector
    selection = _SELECTION_OPERATORS.get(operator)
    return selection is not None and LabelRequirement(scope, selection, frozenset(values)).matches(labels)


_SERVICE_RESOURCES = ("count/services", "services", "services.nodeports", "services.loadbalancers")


class _ServiceEvaluator(_Evaluator):
    """``serviceEvaluator``: on create and every update."""

    def __init__(self) -> None:
        self.names = list(_SERVICE_RESOURCES)

    def handles(self, obj: Json, old: Json | None, subresource: str | None) -> bool:
        return subresource is None

    def usage(self, service: Json) -> Resources:
        spec = service.get("spec") or {}
        ports = spec.get("ports") or []
        result: Resources = {"count/services": _ONE, "services": _ONE, "services.loadbalancers": _ZERO,
                             "services.nodeports": _ZERO}
        service_type = spec.get("type")
        if service_type == "NodePort":
            result["services.nodeports"] = decode(str(len(ports)))
        elif service_type == "LoadBalancer":
            if spec.get("allocateLoadBalancerNodePorts") is False:
                result["services.nodeports"] = decode(str(sum(1 for port in ports if port.get("nodePort"))))
            else:
                result["services.nodeports"] = decode(str(len(ports)))
            result["services.loadbalancers"] = _ONE
        return result


_STORAGE_CLASS_SUFFIX = ".storageclass.storage.k8s.io/"


class _ClaimEvaluator(_Evaluator):
    """``pvcEvaluator``: on create and update of the claim."""

    def __init__(self) -> None:
        self.names = ["count/persistentvolumeclaims", "persistentvolumeclaims", "requests.storage"]

    def handles(self, obj: Json, old: Json | None, subresource: str | None) -> bool:
        return subresource is None

    def matching_resources(self, names: list[str]) -> list[str]:
        return [name for name in names if name in self.names or name.endswith(
            (_STORAGE_CLASS_SUFFIX + "persistentvolumeclaims", _STORAGE_CLASS_SUFFIX + "requests.storage"))]

    def scope_matches(self, selector: ScopeSelector, claim: Json) -> bool:
        """``pvcMatchesScopeFunc``: the VolumeAttributesClass scope."""
        scope, operator, _values = selector
        if scope != "VolumeAttributesClass":
            return False
        spec, status = claim.get("spec") or {}, claim.get("status") or {}
        names = {name for name in (spec.get("volumeAttributesClassName"),
                                   status.get("currentVolumeAttributesClassName"),
                                   (status.get("modifyVolumeStatus") or {}).get("targetVolumeAttributesClassName"))
                 if name}
        if operator == "Exists":
            return bool(names)
        if not names:
            return _selector_matches(selector, {})
        return any(_selector_matches(selector, {"VolumeAttributesClass": name}) for name in names)

    def usage(self, claim: Json) -> Resources:
        spec = claim.get("spec") or {}
        result: Resources = {"persistentvolumeclaims": _ONE, "count/persistentvolumeclaims": _ONE}
        storage_class = spec.get("storageClassName") or \
            ((claim.get("metadata") or {}).get("annotations") or {}).get("volume.beta.kubernetes.io/storage-class") or ""
        if storage_class:
            result[storage_class + _STORAGE_CLASS_SUFFIX + "persistentvolumeclaims"] = _ONE
        requested = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
        if requested is not None:
            storage = decode(requested).round_up(0)
            allocated = ((claim.get("status") or {}).get("allocatedResources") or {}).get("storage")
            if allocated is not None and decode(allocated).cmp(storage) > 0:
                storage = decode(allocated).round_up(0)
            result["requests.storage"] = storage
            if storage_class:
                result[storage_class + _STORAGE_CLASS_SUFFIX + "requests.storage"] = storage
        return result


_EVALUATORS: dict[tuple[str, str], Callable[[], _Evaluator]] = {
    ("", "pods"): _PodEvaluator, ("", "services"): _ServiceEvaluator,
    ("", "persistentvolumeclaims"): _ClaimEvaluator,
}


@cache
def _evaluator(group: str, plural: str) -> _Evaluator:
    make = _EVALUATORS.get((group, plural))
    return make() if make is not None else _Evaluator(group, plural)


def _scope_selectors(quota: Json) -> list[ScopeSelector]:
    """``getScopeSelectorsFromQuota``."""
    spec = quota.get("spec") or {}
    selectors: list[ScopeSelector] = [(scope, "Exists", []) for scope in spec.get("scopes") or ()]
    for requirement in (spec.get("scopeSelector") or {}).get("matchExpressions") or ():
        selectors.append((requirement.get("scopeName") or "", requirement.get("operator") or "",
                          list(requirement.get("values") or ())))
    return selectors


def _matches(evaluator: _Evaluator, quota: Json, obj: Json) -> bool:
    """``generic.Matches``: the quota limits a resource of the object and all its scopes match."""
    hard = list(((quota.get("status") or {}).get("hard") or {}))
    if not evaluator.matching_resources(hard):
        return False
    return all(evaluator.scope_matches(selector, obj) for selector in _scope_selectors(quota))


def _format(values: Resources) -> str:
    """``prettyPrint``: ``name=value`` sorted by name."""
    return ",".join(f"{name}={values[name]}" for name in sorted(values))


@validating_all
def resource_quota(admission: Admission, obj: Json, old: Json | None, subresource: str | None) -> None:
    """``QuotaAdmission.Validate`` (``checkRequest`` and the status updates of ``checkQuotas``)."""
    meta = obj.get("metadata") or {}
    namespace = meta.get("namespace")
    if not namespace:
        return
    group = str(obj.get("apiVersion") or "").rpartition("/")[0]
    resource = default_catalogue().lookup_kind(group, str(obj.get("kind") or ""))
    if resource is None or (group, resource.plural) in _IGNORED:
        return
    evaluator = _evaluator(group, resource.plural)
    if not evaluator.handles(obj, old, subresource):
        return
    quotas = admission.list("", "ResourceQuota", namespace)
    if not quotas:
        return
    charged = _check(evaluator, quotas, obj, old, subresource, lambda message: refusal(group, resource.plural, obj, message))
    if admission.dry_run:
        return
    for quota, used in charged:
        quota_meta = quota["metadata"]
        admission.update_status("", "ResourceQuota", namespace, quota_meta["name"],
                                _with_used(used, quota_meta.get("resourceVersion")))


def _with_used(used: Resources, resource_version: str | None) -> Callable[[Json], Json]:
    def change(quota: Json) -> Json:
        quota.setdefault("status", {})["used"] = {name: str(value) for name, value in used.items()}
        quota["metadata"]["resourceVersion"] = resource_version  # the usage was counted against this version
        return quota
    return change


def _check(evaluator: _Evaluator, quotas: list[Json], obj: Json, old: Json | None, subresource: str | None,
           refuse: Callable[[str], Exception]) -> list[tuple[Json, Resources]]:
    """``CheckRequest``: the quotas whose usage changes, with their new ``used``; raises the
    403 of a quota the write does not fit."""
    interesting: list[Json] = []
    for quota in quotas:
        if not _matches(evaluator, quota, obj):
            continue
        status = quota.get("status") or {}
        restricted = evaluator.matching_resources(list(status.get("hard") or {}))
        name = quota["metadata"]["name"]
        if problem := evaluator.constraints(restricted, obj):
            raise refuse(f"failed quota: {name}: {problem}")
        used = status.get("used") or {}
        if any(resource in restricted and resource not in used for resource in status.get("hard") or {}):
            raise refuse(f"status unknown for quota: {name}, resources: {','.join(sorted(restricted))}")
        interesting.append(quota)
    usage = evaluator.usage(obj)
    if negative := sorted(name for name, value in usage.items() if value.sign() < 0):
        raise refuse(f"quota usage is negative for resource(s): {','.join(negative)}")
    deltas = {id(quota): usage for quota in interesting}
    if old is not None and (old.get("metadata") or {}).get("resourceVersion"):
        previous = evaluator.usage(old)
        delta = {name: value + _negated(previous[name]) if name in previous else value for name, value in usage.items()}
        delta = {name: value if value.sign() > 0 else _ZERO for name, value in delta.items()}
        for quota in interesting:
            if _matches(evaluator, quota, old):
                deltas[id(quota)] = delta
    charged: list[tuple[Json, Resources]] = []
    for quota in interesting:
        delta = {name: value for name, value in deltas[id(quota)].items() if not value.is_zero()}
        if not delta:
            continue
        status = quota.get("status") or {}
        hard = {name: decode(value) for name, value in (status.get("hard") or {}).items()}
        used = {name: decode(value) for name, value in (status.get("used") or {}).items()}
        requested = {name: value for name, value in delta.items() if name in hard}
        new_used = dict(used)
        for name, value in requested.items():
            new_used[name] = new_used[name] + value if name in new_used else value
        if subresource != "status":
            exceeded = sorted(name for name in requested if new_used[name].cmp(hard[name]) > 0)
            if exceeded:
                raise refuse(f"exceeded quota: {quota['metadata']['name']}, "
                             f"requested: {_format({n: requested[n] for n in exceeded})}, "
                             f"used: {_format({n: used[n] for n in exceeded if n in used})}, "
                             f"limited: {_format({n: hard[n] for n in exceeded})}")
        if requested:
            charged.append((quota, new_used))
    return charged


def _negated(value: Quantity) -> Quantity:
    return Quantity(-value.unscaled, value.scale, value.format)
