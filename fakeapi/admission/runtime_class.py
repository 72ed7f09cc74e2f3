"""RuntimeClass (kube's ``plugin/pkg/admission/runtimeclass``): a new pod that names a
RuntimeClass gets the class's pod overhead and its scheduling (node selector merged, refusing a
conflicting key; tolerations merged, a toleration another covers dropped); a class that does not
exist, or an overhead other than the class's, is refused (403)."""

from __future__ import annotations

from typing import Any

from ..machinery.quantity import decode
from . import Admission, Json, mutating, refusal, validating

_NOT_MATCHING = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"


def _runtime_class(admission: Admission, pod: Json) -> Json | None:
    """``prepareObjects``: the pod's RuntimeClass (None when it names none)."""
    name = (pod.get("spec") or {}).get("runtimeClassName")
    if name is None:
        return None
    runtime_class = admission.lookup("node.k8s.io", "RuntimeClass", None, name)
    if runtime_class is None:
        raise refusal("", "pods", pod, f'pod rejected: RuntimeClass "{name}" not found')
    return runtime_class


def _same_resources(a: Json | None, b: Json | None) -> bool:
    """``Semantic.DeepEqual`` of two ResourceLists: the same names, equal quantities (a nil and
    an empty list are equal)."""
    a, b = a or {}, b or {}
    return a.keys() == b.keys() and all(decode(a[name]).cmp(decode(b[name])) == 0 for name in a)


@mutating("", "Pod")
def runtime_class(admission: Admission, pod: Json, old: Json | None, subresource: str | None) -> None:
    if old is not None or subresource is not None:
        return
    chosen = _runtime_class(admission, pod)
    if chosen is None:
        return
    spec = pod.setdefault("spec", {})
    overhead = chosen.get("overhead")
    if overhead is not None:  # setOverhead
        pod_fixed = overhead.get("podFixed")
        if spec.get("overhead") is not None and not _same_resources(pod_fixed, spec["overhead"]):
            raise refusal("", "pods", pod, _NOT_MATCHING)
        if pod_fixed is None:
            spec.pop("overhead", None)
        else:
            spec["overhead"] = dict(pod_fixed)
    scheduling = chosen.get("scheduling")
    if scheduling is not None:  # setScheduling
        wanted = scheduling.get("nodeSelector") or {}
        selector = spec.get("nodeSelector")
        if selector is None:
            selector = dict(wanted) or None
        else:
            for key, value in wanted.items():
                if key in selector and selector[key] != value:
                    raise refusal("", "pods", pod, f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                                                   f"pod.spec.nodeSelector[{key}] = {selector[key]}")
                selector[key] = value
        _set_or_drop(spec, "nodeSelector", selector)
        _set_or_drop(spec, "tolerations", merge_tolerations(spec.get("tolerations") or [],
                                                            scheduling.get("tolerations") or []))


@validating("", "Pod")
def runtime_class_overhead(admission: Admission, pod: Json, old: Json | None, subresource: str | None) -> None:
    """``validateOverhead``: the pod's overhead is its class's, or it has none."""
    if old is not None or subresource is not None:
        return
    chosen = _runtime_class(admission, pod)
    overhead = (pod.get("spec") or {}).get("overhead")
    if chosen is not None and chosen.get("overhead") is not None:
        if not _same_resources(chosen["overhead"].get("podFixed"), overhead):
            raise refusal("", "pods", pod, _NOT_MATCHING)
    elif overhead is not None:
        raise refusal("", "pods", pod, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined "
                                       "Overhead")


def _set_or_drop(spec: Json, name: str, value: Any) -> None:
    """A nil map or slice of Go's is left out of the JSON."""
    if value:
        spec[name] = value
    else:
        spec.pop(name, None)


def _toleration(t: Json) -> tuple[str, str, str, str, int | None]:
    return (t.get("key") or "", t.get("operator") or "", t.get("value") or "", t.get("effect") or "",
            t.get("tolerationSeconds"))


def _is_superset(ss: Json, t: Json) -> bool:
    """``isSuperset`` (``pkg/util/tolerations``): ``ss`` tolerates whatever ``t`` tolerates."""
    if _toleration(ss) == _toleration(t):
        return True
    ss_key, ss_op, ss_value, ss_effect, ss_seconds = _toleration(ss)
    t_key, t_op, t_value, t_effect, t_seconds = _toleration(t)
    if t_key != ss_key and (ss_key != "" or ss_op != "Exists"):  # an empty key with Exists matches every key
        return False
    if t_effect != ss_effect and ss_effect != "":  # an empty effect matches every effect
        return False
    if ss_effect == "NoExecute" and ss_seconds is not None and (t_seconds is None or t_seconds > ss_seconds):
        return False
    if ss_op in ("Equal", ""):
        return t_op == "Equal" and t_value == ss_value
    return ss_op == "Exists"


def merge_tolerations(first: list[Json], second: list[Json]) -> list[Json]:
    """``MergeTolerations``: both sets in order, less a toleration another one covers (of two
    equal ones, the first is kept)."""
    every = [*first, *second]
    merged: list[Json] = []
    for i, t in enumerate(every):
        if any(_is_superset(kept, t) for kept in merged):
            continue
        if any(_toleration(t) != _toleration(later) and _is_superset(later, t) for later in every[i + 1:]):
            continue
        merged.append(t)
    return merged
