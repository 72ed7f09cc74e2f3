"""DefaultIngressClass (kube's ``plugin/pkg/admission/network/defaultingressclass``): a new Ingress
that names no class, by ``spec.ingressClassName`` or the ``kubernetes.io/ingress.class``
annotation, gets the default IngressClass (the newest one marked
``ingressclass.kubernetes.io/is-default-class: "true"``), if there is one."""

from __future__ import annotations

from . import Admission, Json, mutating
from .default_storage_class import default_class

_DEFAULT_ANNOTATIONS = ("ingressclass.kubernetes.io/is-default-class",)
_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


@mutating("networking.k8s.io", "Ingress")
def default_ingress_class(admission: Admission, ingress: Json, old: Json | None, subresource: str | None) -> None:
    if old is not None or subresource is not None:
        return
    spec = ingress.setdefault("spec", {})
    annotations = (ingress.get("metadata") or {}).get("annotations") or {}
    if spec.get("ingressClassName") is not None or _CLASS_ANNOTATION in annotations:
        return
    chosen = default_class(admission, "networking.k8s.io", "IngressClass", _DEFAULT_ANNOTATIONS)
    if chosen is not None:
        spec["ingressClassName"] = chosen["metadata"]["name"]
