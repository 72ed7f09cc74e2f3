"""resource.k8s.io/v1 defaulting (``pkg/apis/resource/v1/defaults.go`` and the walk of
``zz_generated.defaults.go`` over device requests, tolerations and taints)."""

from __future__ import annotations

import datetime

from ..fields import Json, default_empty, get, items


def _set_defaults_device_request(request: Json) -> None:
    """``SetDefaults_ExactDeviceRequest`` and ``SetDefaults_DeviceSubRequest``."""
    default_empty(request, "allocationMode", "ExactCount")
    if request["allocationMode"] == "ExactCount" and not request.get("count"):
        request["count"] = 1
    for toleration in items(request, "tolerations"):
        default_empty(toleration, "operator", "Equal")


def _set_defaults_claim_spec(spec: Json | None) -> None:
    for request in items(get(spec, "devices"), "requests"):
        exactly = request.get("exactly")
        if isinstance(exactly, dict):
            _set_defaults_device_request(exactly)
        for sub_request in items(request, "firstAvailable"):
            _set_defaults_device_request(sub_request)


def set_defaults_resource_claim(obj: Json) -> None:
    _set_defaults_claim_spec(obj.get("spec"))
    for result in items(get(obj, "status", "allocation", "devices"), "results"):
        for toleration in items(result, "tolerations"):
            default_empty(toleration, "operator", "Equal")


def set_defaults_resource_claim_template(obj: Json) -> None:
    _set_defaults_claim_spec(get(obj, "spec", "spec"))


def set_defaults_resource_slice(obj: Json) -> None:
    now = None
    for device in items(obj.get("spec"), "devices"):
        for taint in items(device, "taints"):
            if taint.get("timeAdded") is None:
                # SetDefaults_DeviceTaint: the time of the write, truncated to the second.
                now = now or datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                taint["timeAdded"] = now
