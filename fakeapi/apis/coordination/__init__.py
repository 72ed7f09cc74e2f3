"""The coordination.k8s.io group (kube's ``pkg/apis/coordination``): Leases
(``validation/validation.go``, ``pkg/registry/coordination/lease/strategy.go``)."""

from __future__ import annotations

from ...machinery.status import FieldError, forbidden_error, invalid_error
from ...machinery.validation import (
    name_is_dns_subdomain,
    validate_object_meta,
    validate_object_meta_update,
)
from ..fields import Json, get
from ..rules import register

_STRATEGY_FIELDS = ("strategy", "preferredHolder")


def _drop_coordinated_leader_election(new: Json, old: Json | None) -> None:
    """CoordinatedLeaderElection is off in 1.35: its fields go unless the stored Lease has them."""
    spec = new.get("spec")
    if not isinstance(spec, dict):
        return
    for name in _STRATEGY_FIELDS:
        if get(old, "spec", name) is None:
            spec.pop(name, None)


def _validate_spec(spec: Json) -> list[FieldError]:
    errors: list[FieldError] = []
    duration, transitions = spec.get("leaseDurationSeconds"), spec.get("leaseTransitions")
    if duration is not None and duration <= 0:
        errors.append(invalid_error("spec.leaseDurationSeconds", duration, "must be greater than 0"))
    if transitions is not None and transitions < 0:
        errors.append(invalid_error("spec.leaseTransitions", transitions, "must be greater than or equal to 0"))
    if spec.get("preferredHolder") and not spec.get("strategy"):
        errors.append(forbidden_error("spec.preferredHolder", "may only be specified if `strategy` is defined"))
    return errors


def validate_lease(obj: Json) -> list[FieldError]:
    errors = validate_object_meta(obj["metadata"], True, name_is_dns_subdomain)
    return errors + _validate_spec(obj.get("spec") or {})


def validate_lease_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_object_meta_update(new["metadata"], old["metadata"])
    return errors + _validate_spec(new.get("spec") or {})


register("coordination.k8s.io", "v1", "Lease",
         prepare_for_create=lambda obj: _drop_coordinated_leader_election(obj, None),
         prepare_for_update=_drop_coordinated_leader_election,
         validate=validate_lease, validate_update=validate_lease_update)
