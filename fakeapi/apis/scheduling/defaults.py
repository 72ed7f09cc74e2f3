"""scheduling.k8s.io/v1 defaulting (``pkg/apis/scheduling/v1/defaults.go``)."""

from __future__ import annotations

from ..fields import Json, default


def set_defaults_priority_class(obj: Json) -> None:
    default(obj, "preemptionPolicy", "PreemptLowerPriority")
