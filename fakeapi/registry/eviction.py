"""``pods/eviction`` (kube's ``EvictionREST``, ``pkg/registry/core/pod/storage/eviction.go``): a
pod deleted only as far as its PodDisruptionBudget allows.

A pod that is already disrupted (Pending, Succeeded, Failed or being deleted) is deleted at once.
Otherwise the one budget whose selector matches it (more than one is a failure Status; none
allows everything) must allow a disruption: its status must be observed at its generation and
have ``disruptionsAllowed`` above zero — then it is decremented and the pod entered in
``disruptedPods`` by a status update of the budget, as kube-apiserver's loopback client writes it
(field manager ``kube-apiserver``); else the answer is kube's 429 with a ``DisruptionBudget``
cause. An unready pod is deleted without spending the budget when the budget's
``unhealthyPodEvictionPolicy`` is ``AlwaysAllow``, or when the budget has its healthy pods. The
pod gets the ``DisruptionTarget`` condition before the delete, which uses the eviction's
``deleteOptions``.

kube retries on conflicts between its reads and writes; here a request runs in one step of the
store's loop, so nothing can come between them: only a precondition the client gave can fail.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson

from ..machinery import metadata
from ..machinery.delete_options import BACKGROUND, ORPHAN, DeleteOptions
from ..machinery.selectors import label_selector_as_selector
from ..machinery.status import (
    Cause,
    Details,
    StatusError,
    conflict,
    forbidden,
    invalid,
    invalid_error,
    unclassified_error,
)
from .pod_conditions import update_pod_condition
from .rest import ResourceStore
from .create_only import SUCCESS, BodyType, CreateOnly, CreateRequest

Json = dict[str, Any]

#: ``MaxDisruptedPodSize``: evictions the disruption controller has not yet confirmed.
MAX_DISRUPTED_PODS = 2000
#: The field manager of kube-apiserver's loopback client, which writes the budget's status.
LOOPBACK_MANAGER = "kube-apiserver"
_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
#: ``PodDisruptionBudgetStatus`` fields in Go's order.
_BUDGET_STATUS_FIELDS = ("observedGeneration", "disruptedPods", "disruptionsAllowed", "currentHealthy",
                         "desiredHealthy", "expectedPods", "conditions")


def too_many_requests(message: str, cause: str, retry_after_seconds: int) -> StatusError:
    """``errors.NewTooManyRequests`` with the ``DisruptionBudget`` cause the eviction adds."""
    return StatusError(429, "TooManyRequests", message, Details(
        causes=(Cause(reason="DisruptionBudget", message=cause),), retry_after_seconds=retry_after_seconds))


def _still_processing(budget_name: str) -> StatusError:
    """``createTooManyRequestsError``."""
    return too_many_requests(_VIOLATION, f"The disruption budget {budget_name} is still being processed by the server.", 10)


def _is_ready(pod: Json) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or ())


def _already_disrupted(pod: Json) -> bool:
    """``canIgnorePDB``."""
    phase = (pod.get("status") or {}).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or bool(pod["metadata"].get("deletionTimestamp"))


def _enforces_resource_version(pod: Json) -> bool:
    """``shouldEnforceResourceVersion``: not for a pod past disrupting."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not pod["metadata"].get("deletionTimestamp")


class PodEvictions(CreateOnly):
    """``pods/eviction``."""

    body_type = BodyType("policy", ("v1", "v1beta1"), "Eviction")

    def __init__(self, pods: ResourceStore, budgets: ResourceStore, *, gc_finalizers: bool) -> None:
        self._pods = pods
        self._budgets = budgets
        self._gc_finalizers = gc_finalizers

    def create(self, request: CreateRequest) -> Json:
        eviction = request.body
        name = request.named()
        given = eviction.get("deleteOptions") or {}
        if given.get("ignoreStoreReadErrorWithClusterBreakingPotential") is True:
            raise invalid("policy", "Eviction", name, [invalid_error(
                "deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential", True,
                "can not be set for pod eviction, try after removing the option")])
        options = _delete_options(given, ["All"] if request.dry_run else [])
        namespace = request.namespace
        pod = orjson.loads(self._pods.get(namespace, name))
        if _already_disrupted(pod):
            if _enforces_resource_version(pod) and options.precondition_resource_version is None:
                options = replace(options, precondition_resource_version=pod["metadata"]["resourceVersion"])
            self._disrupt(namespace, name, options)
            return SUCCESS
        budgets = self._budgets_of(pod)
        if len(budgets) > 1:
            return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                    "code": 500}
        spends_budget = True
        budget_name = ""
        if budgets:
            budget = budgets[0]
            budget_name = budget["metadata"]["name"]
            spec, status = budget.get("spec") or {}, budget.get("status") or {}
            if not _is_ready(pod) and (spec.get("unhealthyPodEvictionPolicy") == "AlwaysAllow" or (
                    status.get("currentHealthy", 0) >= status.get("desiredHealthy", 0) > 0)):
                # Deleting an unready pod does not disrupt the application: the budget is not spent.
                spends_budget = False
            else:
                self._check_and_decrement(pod, budget, options.dry_run)
        # An unready pod is deleted only as long as it stays unready: as the pod was read.
        checked = options if spends_budget else replace(
            options, precondition_resource_version=pod["metadata"]["resourceVersion"])
        try:
            self._disrupt(namespace, name, checked)
        except StatusError as err:
            if err.code == 409 and not spends_budget and options.precondition_resource_version is None:
                raise _still_processing(budget_name) from None
            raise
        return SUCCESS

    def _budgets_of(self, pod: Json) -> list[Json]:
        """``getPodDisruptionBudgets``: the budgets of the pod's namespace whose selector matches
        its labels (a budget without a selector, or with one kube cannot convert, matches none)."""
        labels = pod["metadata"].get("labels") or {}
        matching = []
        for budget in self._budgets.stored_objects(pod["metadata"].get("namespace")):
            selector = (budget.get("spec") or {}).get("selector")
            if selector is None:
                continue
            try:
                if label_selector_as_selector(selector).matches(labels):
                    matching.append(budget)
            except ValueError:
                continue
        return matching

    def _check_and_decrement(self, pod: Json, budget: Json, dry_run: bool) -> None:
        """``checkAndDecrement``: refuse unless the budget allows a disruption, then spend one."""
        name = budget["metadata"]["name"]
        status = dict(budget.get("status") or {})
        if status.get("observedGeneration", 0) < budget["metadata"].get("generation", 0):
            raise _still_processing(name)
        allowed = status.get("disruptionsAllowed", 0)
        if allowed < 0:
            raise forbidden("policy", "poddisruptionbudget", name, "pdb disruptions allowed is negative")
        if len(status.get("disruptedPods") or {}) > MAX_DISRUPTED_PODS:
            raise forbidden("policy", "poddisruptionbudget", name,
                            "DisruptedPods map too big - too many evictions not confirmed by PDB controller")
        if allowed == 0:
            raise too_many_requests(_VIOLATION, _violation_message(name, status), 0)
        status["disruptionsAllowed"] = allowed - 1
        if status["disruptionsAllowed"] == 0:
            _set_disruption_allowed(status)
        if dry_run:
            return
        disrupted = dict(status.get("disruptedPods") or {})
        disrupted[pod["metadata"]["name"]] = metadata.now_rfc3339()
        status["disruptedPods"] = dict(sorted(disrupted.items()))
        budget["status"] = {key: status[key] for key in _BUDGET_STATUS_FIELDS if key in status}
        namespace = budget["metadata"].get("namespace")
        self._budgets.update(namespace, name, budget, subresource="status", manager=LOOPBACK_MANAGER)

    def _disrupt(self, namespace: str | None, name: str, options: DeleteOptions) -> None:
        """``addConditionAndDeletePod``: the ``DisruptionTarget`` condition (checked against the
        delete's preconditions first), then the delete."""
        if not options.dry_run:
            pod = orjson.loads(self._pods.get(namespace, name))
            meta = pod["metadata"]
            if options.precondition_uid and options.precondition_uid != meta.get("uid"):
                raise conflict("", "Pod", name, f"the UID in the precondition ({options.precondition_uid}) does not match "
                               f"the UID in record ({meta.get('uid')}). The object might have been deleted and then recreated")
            wanted_version = options.precondition_resource_version
            if wanted_version and wanted_version != meta.get("resourceVersion"):
                raise conflict("", "Pod", name, f"the ResourceVersion in the precondition ({wanted_version}) does not "
                               f"match the ResourceVersion in record ({meta.get('resourceVersion')}). The object might "
                               "have been modified")
            now = metadata.now_rfc3339()

            def add_condition(current: Json) -> Json:
                update_pod_condition(current.setdefault("status", {}), {
                    "type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                    "message": "Eviction API: evicting"}, now)
                return current

            updated = orjson.loads(self._pods.rewrite(namespace, name, add_condition, subresource="status"))
            if wanted_version:
                # The condition moved the pod's resourceVersion, and this request did it.
                options = replace(options, precondition_resource_version=updated["metadata"]["resourceVersion"])
        self._pods.delete(namespace, name, options, gc_finalizers=self._gc_finalizers)


def _violation_message(name: str, status: Json) -> str:
    """Why a budget allows no disruption, as ``checkAndDecrement`` words it."""
    condition = next((c for c in status.get("conditions") or () if c.get("type") == "DisruptionAllowed"), None)
    failed = condition is not None and condition.get("status") == "False" and condition.get("message")
    desired, current = status.get("desiredHealthy", 0), status.get("currentHealthy", 0)
    if failed and condition.get("reason") == "SyncFailed":
        return f"The disruption budget {name} does not allow evicting pods currently because it failed sync: {condition['message']}"
    if current <= desired:
        return f"The disruption budget {name} needs {desired} healthy pods and has {current} currently"
    if failed:
        return f"The disruption budget {name} does not allow evicting pods currently ({condition.get('reason', '')}): {condition['message']}"
    return f"The disruption budget {name} does not allow evicting pods currently"


def _set_disruption_allowed(status: Json) -> None:
    """``UpdateDisruptionAllowedCondition`` with ``meta.SetStatusCondition``'s rules."""
    allowed = status.get("disruptionsAllowed", 0) > 0
    wanted = {"type": "DisruptionAllowed", "status": "True" if allowed else "False",
              "observedGeneration": status.get("observedGeneration", 0),
              "reason": "SufficientPods" if allowed else "InsufficientPods"}
    conditions = [dict(c) for c in status.get("conditions") or ()]
    for condition in conditions:
        if condition.get("type") == "DisruptionAllowed":
            if condition.get("status") != wanted["status"]:
                condition["status"] = wanted["status"]
                condition["lastTransitionTime"] = metadata.now_rfc3339()
            condition["reason"] = wanted["reason"]
            condition["observedGeneration"] = wanted["observedGeneration"]
            break
    else:
        conditions.append({"type": "DisruptionAllowed", "status": wanted["status"],
                           "observedGeneration": wanted["observedGeneration"], "lastTransitionTime": metadata.now_rfc3339(),
                           "reason": wanted["reason"], "message": ""})
    status["conditions"] = conditions


def _delete_options(given: Json, dry_run: list[str]) -> DeleteOptions:
    """``propagateDryRun``: the eviction's ``deleteOptions`` with the request's ``dryRun`` (the
    two may not disagree). The delete itself does not validate them further."""
    given_dry_run = list(given.get("dryRun") or ())
    if dry_run and given_dry_run and dry_run != given_dry_run:
        raise unclassified_error(f"Non-matching dry-run options in request and content: [{' '.join(dry_run)}] "
                                 f"and [{' '.join(given_dry_run)}]")
    preconditions = given.get("preconditions") or {}
    policy = given.get("propagationPolicy")
    if given.get("orphanDependents") is not None and policy is None:
        policy = ORPHAN if given["orphanDependents"] else BACKGROUND
    return DeleteOptions(grace_period_seconds=given.get("gracePeriodSeconds"), propagation_policy=policy,
                         precondition_uid=preconditions.get("uid"),
                         precondition_resource_version=preconditions.get("resourceVersion"),
                         dry_run=bool(dry_run or given_dry_run))
