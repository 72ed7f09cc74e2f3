"""networking.k8s.io/v1 defaulting (``pkg/apis/networking/v1/defaults.go``)."""

from __future__ import annotations

from ..fields import Json, default, get, items, struct


def set_defaults_network_policy(obj: Json) -> None:
    spec = struct(obj, "spec")
    if not spec.get("policyTypes"):
        spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]
    for direction in ("ingress", "egress"):
        for rule in items(spec, direction):
            for port in items(rule, "ports"):
                default(port, "protocol", "TCP")


def set_defaults_ingress_class(obj: Json) -> None:
    parameters = get(obj, "spec", "parameters")
    if isinstance(parameters, dict):
        default(parameters, "scope", "Cluster")
