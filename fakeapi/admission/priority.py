"""Priority (kube's ``plugin/pkg/admission/priority``): a new pod gets the priority (and
preemption policy) of its PriorityClass, or of the global default class, or 0; naming a class
that does not exist, or a priority other than the class's, is refused (403). On update the
priority fields are kept from the stored pod when the update leaves them out. Creating a second
global default PriorityClass is refused."""

from __future__ import annotations

from ..machinery.status import StatusError
from . import Admission, Json, mutating, refusal, validating

#: ``scheduling.DefaultPriorityWhenNoDefaultClassExists``.
DEFAULT_PRIORITY = 0


def _default_class(admission: Admission) -> Json | None:
    """``getDefaultPriorityClass``: the global default with the lowest value."""
    chosen = None
    for priority_class in admission.list("scheduling.k8s.io", "PriorityClass", None):
        if priority_class.get("globalDefault") and (chosen is None or chosen.get("value", 0) > priority_class.get("value", 0)):
            chosen = priority_class
    return chosen


def _refuse(pod: Json, message: str) -> StatusError:
    return refusal("", "pods", pod, message)


@mutating("", "Pod")
def priority(admission: Admission, pod: Json, old: Json | None, subresource: str | None) -> None:
    if subresource is not None:
        return
    spec = pod.setdefault("spec", {})
    if old is not None:
        old_spec = old.get("spec") or {}
        for name in ("priority", "preemptionPolicy"):
            if spec.get(name) is None and old_spec.get(name) is not None:
                spec[name] = old_spec[name]
        return
    class_name = spec.get("priorityClassName") or ""
    if not class_name:
        default = _default_class(admission)
        if default is not None:
            class_name = spec["priorityClassName"] = default["metadata"]["name"]
            value, policy = default.get("value", 0), default.get("preemptionPolicy")
        else:
            value, policy = DEFAULT_PRIORITY, "PreemptLowerPriority"
    else:
        priority_class = admission.lookup("scheduling.k8s.io", "PriorityClass", None, class_name)
        if priority_class is None:
            raise _refuse(pod, f"no PriorityClass with name {class_name} was found")
        value, policy = priority_class.get("value", 0), priority_class.get("preemptionPolicy")
    if spec.get("priority") is not None and spec["priority"] != value:
        raise _refuse(pod, f"the integer value of priority ({spec['priority']}) must not be provided in pod spec; "
                           f"priority admission controller computed {value} from the given PriorityClass name")
    spec["priority"] = value
    if policy is not None:
        if spec.get("preemptionPolicy") is not None and spec["preemptionPolicy"] != policy:
            raise _refuse(pod, f"the string value of PreemptionPolicy ({spec['preemptionPolicy']}) must not be "
                               f"provided in pod spec; priority admission controller computed {policy} from the given "
                               "PriorityClass name")
        spec["preemptionPolicy"] = policy


@validating("scheduling.k8s.io", "PriorityClass")
def only_one_default(admission: Admission, priority_class: Json, old: Json | None, subresource: str | None) -> None:
    """``validatePriorityClass``: one global default at most."""
    if subresource is not None or not priority_class.get("globalDefault"):
        return
    default = _default_class(admission)
    name = (priority_class.get("metadata") or {}).get("name") or ""
    if default is not None and (old is None or default["metadata"]["name"] != name):
        raise refusal("scheduling.k8s.io", "priorityclasses", priority_class,
                        f"PriorityClass {default['metadata']['name']} is already marked as default. Only one default "
                        "can exist")
