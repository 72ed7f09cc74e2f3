"""CertificateSigningRequest strategies (kube's ``pkg/registry/certificates/certificates``)."""

from __future__ import annotations

import copy

from ...machinery import metadata, requester
from ..fields import Json, struct

_REQUESTER_FIELDS = ("username", "uid", "groups", "extra")


def prepare_for_create(csr: Json) -> None:
    """The spec records who asked (whatever the client wrote there); the status starts empty."""
    spec = struct(csr, "spec")
    for name in _REQUESTER_FIELDS:
        spec.pop(name, None)
    user = requester.current_user() or {}
    for name in _REQUESTER_FIELDS:
        if user.get(name):
            spec[name] = user[name]
    csr["status"] = {}


def prepare_for_update(new: Json, old: Json) -> None:
    """An update through the main resource changes metadata only."""
    for name in ("spec", "status"):
        if name in old:
            new[name] = copy.deepcopy(old[name])
        else:
            new.pop(name, None)


def _indices(csr: Json, condition_type: str) -> list[int]:
    conditions = (csr.get("status") or {}).get("conditions") or ()
    return [i for i, c in enumerate(conditions) if c.get("type") == condition_type]


def prepare_for_status_update(new: Json, old: Json) -> None:
    """The status strategy: the spec as stored; Approved and Denied conditions keep their stored
    values where their number did not change (only ``/approval`` sets them); a condition without
    times gets the write's (``populateConditionTimestamps``)."""
    new["spec"] = copy.deepcopy(old.get("spec") or {})
    for condition_type in ("Approved", "Denied"):  # preserveConditionInstances
        old_indices, new_indices = _indices(old, condition_type), _indices(new, condition_type)
        if len(old_indices) == len(new_indices):
            for old_index, new_index in zip(old_indices, new_indices):
                new["status"]["conditions"][new_index] = copy.deepcopy(old["status"]["conditions"][old_index])
    _populate_condition_timestamps(new, old)


def prepare_for_approval_update(new: Json, old: Json) -> Json:
    """The ``/approval`` strategy: the conditions of the request (their times populated), the
    rest of the spec and status as stored; the metadata as the request sent it."""
    _populate_condition_timestamps(new, old)
    conditions = (new.get("status") or {}).get("conditions")
    new["spec"] = copy.deepcopy(old.get("spec") or {})
    status = copy.deepcopy(old.get("status") or {})
    if conditions:
        status["conditions"] = conditions
    else:
        status.pop("conditions", None)
    new["status"] = status
    return new


def _populate_condition_timestamps(new: Json, old: Json) -> None:
    """``populateConditionTimestamps``: a condition without times gets the write's, its last
    transition the stored one of a condition of its type and status if there is one."""
    now = metadata.now_rfc3339()
    old_conditions = (old.get("status") or {}).get("conditions") or ()
    for condition in (new.get("status") or {}).get("conditions") or ():
        if not condition.get("lastUpdateTime"):
            condition["lastUpdateTime"] = now
        if not condition.get("lastTransitionTime"):
            condition["lastTransitionTime"] = next(
                (c["lastTransitionTime"] for c in old_conditions if c.get("type") == condition.get("type")
                 and c.get("status") == condition.get("status") and c.get("lastTransitionTime")), now)
