"""CertificateSubjectRestriction (kube's ``plugin/pkg/admission/certificates/subjectrestriction``):
a new CertificateSigningRequest for the ``kubernetes.io/kube-apiserver-client`` signer may not ask
for the ``system:masters`` group (a certificate in it passes every authorization)."""

from __future__ import annotations

import base64
import binascii

from ..apis.certificates.validation import requested_organizations
from . import Admission, Json, refusal, validating

KUBE_APISERVER_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client"


@validating("certificates.k8s.io", "CertificateSigningRequest")
def certificate_subject_restriction(admission: Admission, csr: Json, old: Json | None,
                                    subresource: str | None) -> None:
    spec = csr.get("spec") or {}
    if old is not None or subresource is not None or spec.get("signerName") != KUBE_APISERVER_CLIENT_SIGNER:
        return
    try:
        request = base64.b64decode(spec.get("request") or "", validate=True)
    except (binascii.Error, ValueError):
        return  # validation refused it already
    if "system:masters" in requested_organizations(request):
        raise refusal("certificates.k8s.io", "certificatesigningrequests", csr,
                      f"use of {KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed")
