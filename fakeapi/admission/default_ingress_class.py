"""DefaultIngressClass (kube's ``plugin/pkg/admission/network/defaultingressclass``): a new Ingress
that names no class, by ``spec.ingressClassName`` or the ``kubernetes.io/ingress.class``
annotation, gets the default IngressClass (the newest one marked
``ingressclass.kubernetes.io/is-default-class: "true"``), if there is one."""

from __future__ import annotations

from . import Admission, Json, mutating
from .default_storage_class import name_default_class

_DEFAULT_ANNOTATIONS = ("ingressclass.kubernetes.io/is-default-class",)
_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


@mutating("networking.k8s.io", "Ingress")
def default_ingress_class(admission: Admission, ingress: Json, old: Json | None, subresource: str | None) -> None:
    if old is None and subresource is None:
        name_default_class(admission, ingress, "ingressClassName", _CLASS_ANNOTATION, "networking.k8s.io",
                           "IngressClass", _DEFAULT_ANNOTATIONS)
