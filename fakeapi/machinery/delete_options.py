"""``metav1.DeleteOptions`` from a DELETE's body and query (``handlers/delete.go``), validated as
``ValidateDeleteOptions`` does."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .status import bad_request, invalid

FOREGROUND = "Foreground"
BACKGROUND = "Background"
ORPHAN = "Orphan"
_POLICIES = (FOREGROUND, BACKGROUND, ORPHAN)


@dataclass(frozen=True, slots=True)
class DeleteOptions:
    grace_period_seconds: int | None = None
    propagation_policy: str | None = None
    precondition_uid: str | None = None
    precondition_resource_version: str | None = None
    dry_run: bool = False

    @classmethod
    def parse(cls, body: Any, query: Mapping[str, str]) -> DeleteOptions:
        """Body fields win over query parameters, as kube decodes the body over the query."""
        options = body if isinstance(body, dict) else {}
        if body is not None and not isinstance(body, dict):
            raise bad_request("DeleteOptions must be a JSON object")
        preconditions = options.get("preconditions") or {}
        grace = options.get("gracePeriodSeconds", query.get("gracePeriodSeconds"))
        policy = options.get("propagationPolicy", query.get("propagationPolicy"))
        orphan = options.get("orphanDependents", query.get("orphanDependents"))
        dry_run = options.get("dryRun", [query["dryRun"]] if "dryRun" in query else [])
        errors = []
        if grace is not None:
            try:
                grace = int(grace)
            except (TypeError, ValueError):
                raise bad_request(f'invalid value for gracePeriodSeconds: "{grace}"') from None
        if orphan is not None:
            orphan = orphan in (True, "true", "1")
            if policy is not None:
                errors.append(("propagationPolicy", "FieldValueInvalid",
                               f'Invalid value: "{policy}": orphanDependents and deletionPropagation cannot be both set'))
            policy = ORPHAN if orphan else BACKGROUND
        if policy is not None and policy not in _POLICIES:
            errors.append(("propagationPolicy", "FieldValueNotSupported",
                           f'Unsupported value: "{policy}": supported values: "Foreground", "Background", "Orphan"'))
        if dry_run not in ([], ["All"]):
            errors.append(("dryRun", "FieldValueNotSupported",
                           f'Unsupported value: {dry_run}: supported values: "All"'))
        if errors:
            raise invalid("meta.k8s.io", "DeleteOptions", "", errors)
        return cls(
            grace_period_seconds=grace,
            propagation_policy=policy,
            precondition_uid=preconditions.get("uid"),
            precondition_resource_version=preconditions.get("resourceVersion"),
            dry_run=dry_run == ["All"],
        )
