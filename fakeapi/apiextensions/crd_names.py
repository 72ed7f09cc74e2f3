"""The names a CRD is accepted under and the conditions that follow: what apiextensions-apiserver's
naming controller (``controller/status/naming_controller.go``) and establishing controller
(``controller/establish/establishing_controller.go``) write into a CRD's status.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from ..machinery.golang import go_quote
from ..machinery.metadata import now_rfc3339


def crd_status(
    crd: Mapping[str, Any],
    used_resources: Iterable[str] = (),
    used_kinds: Iterable[str] = (),
    now: str | None = None,
) -> dict[str, Any]:
    """The status once kube's controllers have seen a CRD (its ``storedVersions`` kept, so call
    ``prepare_crd_*`` first).

    ``used_resources`` and ``used_kinds`` are the names other CRDs of the group have been accepted
    with (their ``status.acceptedNames``: plural, singular, short names; kind, listKind), which
    ``accepted_names_of_group`` collects: kube's naming controller compares with those only, not
    with built-in resources. A name in use is not accepted (``PluralConflict``, ...: ``"foos" is
    already in use``), and then ``Established`` stays False (``NotAccepted``); otherwise the names
    are accepted (``NoConflicts``) and the CRD is established (``InitialNamesAccepted``). Condition
    transition times are kept while a condition's status does not change (``SetCRDCondition``).
    """
    status = copy.deepcopy(dict(crd.get("status") or {}))
    names, names_accepted = _accept_names(crd, frozenset(used_resources), frozenset(used_kinds))
    status["acceptedNames"] = names
    if names_accepted[0] == "True":
        established = ("True", "InitialNamesAccepted", "the initial names have been accepted")
    else:
        established = condition_value(status, "Established") or ("False", "NotAccepted", "not all names are accepted")
    conditions = [dict(c) for c in status.get("conditions") or ()]
    timestamp = now or now_rfc3339()
    for condition_type, (value, reason, message) in (("NamesAccepted", names_accepted), ("Established", established)):
        _set_condition(conditions, condition_type, value, reason, message, timestamp)
    status["conditions"] = conditions
    status.setdefault("storedVersions", [])
    return status


def accepted_names_of_group(crds: Iterable[Mapping[str, Any]], group: str, excluding: str = "") -> tuple[set[str], set[str]]:
    """``getAcceptedNamesForGroup``: the resource names and kinds the group's other CRDs hold."""
    resources: set[str] = set()
    kinds: set[str] = set()
    for other in crds:
        if (other.get("spec") or {}).get("group") != group or (other.get("metadata") or {}).get("name") == excluding:
            continue
        accepted = (other.get("status") or {}).get("acceptedNames") or {}
        resources.update((accepted.get("plural") or "", accepted.get("singular") or "", *(accepted.get("shortNames") or ())))
        kinds.update((accepted.get("kind") or "", accepted.get("listKind") or ""))
    return resources, kinds


def _accept_names(crd: Mapping[str, Any], used_resources: frozenset[str], used_kinds: frozenset[str]
                  ) -> tuple[dict[str, Any], tuple[str, str, str]]:
    """``calculateNamesAndConditions``: each requested name is accepted unless another CRD
    holds it (the last conflict found is the one reported)."""
    requested = (crd.get("spec") or {}).get("names") or {}
    accepted = dict((crd.get("status") or {}).get("acceptedNames") or {})
    names = dict(accepted)
    conflict: tuple[str, str, str] | None = None

    def fresh(name: str, used: frozenset[str], reason: str, current: str = "") -> bool:
        nonlocal conflict
        if name != current and name in used:
            conflict = ("False", reason, f"{go_quote(name)} is already in use")
            return False
        return True

    for name, used, reason in (("plural", used_resources, "PluralConflict"),
                               ("singular", used_resources, "SingularConflict")):
        if fresh(requested.get(name) or "", used, reason, accepted.get(name) or ""):
            names[name] = requested.get(name) or ""
    requested_short = list(requested.get("shortNames") or ())
    if requested_short != list(accepted.get("shortNames") or ()):
        held = set(accepted.get("shortNames") or ())
        taken = [s for s in requested_short if s not in held and s in used_resources]
        if taken:  # utilerrors.NewAggregate: one message bare, several as [a, b]
            messages = [f"{go_quote(s)} is already in use" for s in taken]
            conflict = ("False", "ShortNamesConflict", messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]")
        else:
            names["shortNames"] = requested_short
    for name, reason in (("kind", "KindConflict"), ("listKind", "ListKindConflict")):
        if fresh(requested.get(name) or "", used_kinds, reason, accepted.get(name) or ""):
            names[name] = requested.get(name) or ""
    if requested.get("categories") is not None:
        names["categories"] = list(requested["categories"])
    else:
        names.pop("categories", None)
    return _accepted_names_json(names), conflict or ("True", "NoConflicts", "no conflicts found")


def _accepted_names_json(names: Mapping[str, Any]) -> dict[str, Any]:
    """``CustomResourceDefinitionNames`` as kube serialises it: plural and kind always, the rest
    when set."""
    out: dict[str, Any] = {"plural": names.get("plural") or ""}
    for name in ("singular", "shortNames"):
        if names.get(name):
            out[name] = names[name]
    out["kind"] = names.get("kind") or ""
    for name in ("listKind", "categories"):
        if names.get(name):
            out[name] = names[name]
    return out


def condition_value(status: Mapping[str, Any], condition_type: str) -> tuple[str, str, str] | None:
    for condition in status.get("conditions") or ():
        if condition.get("type") == condition_type:
            return condition.get("status", ""), condition.get("reason", ""), condition.get("message", "")
    return None


def _set_condition(conditions: list[dict[str, Any]], condition_type: str, value: str, reason: str,
                   message: str, now: str) -> None:
    """``SetCRDCondition``."""
    for condition in conditions:
        if condition.get("type") == condition_type:
            if condition.get("status") != value or not condition.get("lastTransitionTime"):
                condition["lastTransitionTime"] = now
            condition.update(status=value, reason=reason, message=message)
            return
    conditions.append({"type": condition_type, "status": value, "lastTransitionTime": now,
                       "reason": reason, "message": message})
