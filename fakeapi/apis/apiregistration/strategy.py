"""The APIService strategies (kube-aggregator's ``pkg/registry/apiservice/strategy.go``): a
create starts from an empty status (the registry's), Available at once for a local APIService.
What the updates do is the registry's generic rule for a kind with a status subresource: the
main resource keeps the stored status, ``/status`` the stored spec, labels, annotations,
finalizers and owner references (``registry.strategy``); neither sets ``metadata.generation``."""

from __future__ import annotations

from ...machinery.metadata import now_rfc3339
from ..fields import Json
from .conditions import local_available_condition, set_condition


def prepare_for_create(obj: Json) -> None:
    if (obj.get("spec") or {}).get("service") is None:
        set_condition(obj, local_available_condition(now_rfc3339()))

