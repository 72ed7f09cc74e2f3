"""A CRD's defaults: ``apis/apiextensions/v1/defaults.go`` of apiextensions-apiserver
(``SetObjectDefaults_CustomResourceDefinition``), applied when a body is decoded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def default_crd(crd: dict[str, Any]) -> None:
    """``SetObjectDefaults_CustomResourceDefinition``, in place: ``names.singular`` (the lowercase
    kind), ``names.listKind`` (kind + ``List``), ``conversion.strategy: None``, a webhook
    service's port 443, and ``status.storedVersions`` (the storage version) when empty."""
    spec = crd.setdefault("spec", {})
    names = spec.setdefault("names", {})
    if not names.get("singular"):
        names["singular"] = (names.get("kind") or "").lower()
    if not names.get("listKind") and names.get("kind"):
        names["listKind"] = names["kind"] + "List"
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}
    service = ((spec["conversion"].get("webhook") or {}).get("clientConfig") or {}).get("service")
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443
    status = crd.setdefault("status", {})
    if not status.get("storedVersions"):
        storage = storage_version(spec)
        if storage is not None:
            status["storedVersions"] = [storage]


def storage_version(spec: Mapping[str, Any]) -> str | None:
    """The name of the version marked ``storage`` (None when there is none)."""
    return next((v.get("name") for v in spec.get("versions") or () if v.get("storage")), None)
