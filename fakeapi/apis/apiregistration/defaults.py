"""APIService defaulting (kube-aggregator's ``pkg/apis/apiregistration/v1/defaults.go``)."""

from __future__ import annotations

from ..fields import Json

#: ``SetDefaults_ServiceReference``: the port of a service that names none.
DEFAULT_SERVICE_PORT = 443


def set_defaults_api_service(obj: Json) -> None:
    service = (obj.get("spec") or {}).get("service")
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = DEFAULT_SERVICE_PORT
