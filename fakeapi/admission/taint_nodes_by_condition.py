"""TaintNodesByCondition (kube's ``plugin/pkg/admission/nodetaint``): a new Node is tainted
``node.kubernetes.io/not-ready:NoSchedule`` until the node lifecycle controller sees it ready."""

from __future__ import annotations

from . import Admission, Json, mutating

NOT_READY = "node.kubernetes.io/not-ready"


@mutating("", "Node")
def taint_new_node_not_ready(admission: Admission, node: Json, old: Json | None, subresource: str | None) -> None:
    if old is not None or subresource is not None:
        return
    spec = node.setdefault("spec", {})
    taints = spec.get("taints") or []
    if any(t.get("key") == NOT_READY and t.get("effect") == "NoSchedule" for t in taints):
        return
    spec["taints"] = [*taints, {"key": NOT_READY, "effect": "NoSchedule"}]
