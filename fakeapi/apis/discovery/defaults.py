"""discovery.k8s.io/v1 defaulting (``pkg/apis/discovery/v1/defaults.go``)."""

from __future__ import annotations

from ..fields import Json, default, items


def set_defaults_endpoint_slice(obj: Json) -> None:
    for port in items(obj, "ports"):
        default(port, "name", "")
        default(port, "protocol", "TCP")
