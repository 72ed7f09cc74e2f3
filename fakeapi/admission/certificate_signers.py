"""CertificateApproval and CertificateSigning (kube's ``plugin/pkg/admission/certificates/approval``
and ``.../signing``): who may approve a CertificateSigningRequest (an update of its ``/approval``)
and who may issue its certificate (a ``/status`` update that changes ``status.certificate`` or
the conditions) is decided per signer: the ``approve`` or ``sign`` verb on the synthetic
``signers`` resource of certificates.k8s.io named by the stored request's ``signerName``, or by
its ``<domain>/*`` wildcard (``IsAuthorizedForSignerName``). The stored signer is the one checked:
an update cannot move a request to a signer its author may act for.

ClusterTrustBundleAttest (``.../ctbattest``) has nothing to check in fakeapi: kube-apiserver
v1.35 does not serve ClusterTrustBundles by default (certificates.k8s.io v1beta1 and v1alpha1
are off), so no request reaches it."""

from __future__ import annotations

from ..cel.access import ALLOW, AccessCheck
from ..machinery import requester
from ..machinery.golang import go_quote
from . import Admission, Json, refusal, validating

GROUP = "certificates.k8s.io"
RESOURCE = "certificatesigningrequests"


def _authorized_for_signer(admission: Admission, user: Json, verb: str, signer: str) -> bool:
    """``IsAuthorizedForSignerName``: the signer itself, else every signer of its domain."""
    return any(admission.authorize(user, AccessCheck(verb, True, group=GROUP, resource="signers", name=name)).decision
               == ALLOW for name in (signer, signer.split("/")[0] + "/*"))


def _check_signer(admission: Admission, csr: Json, old: Json, verb: str) -> None:
    user = requester.current_user()
    if user is None:
        return  # fakeapi's own write, as kube's loopback client's (system:masters)
    signer = (old.get("spec") or {}).get("signerName") or ""
    if not _authorized_for_signer(admission, user, verb, signer):
        raise refusal(GROUP, RESOURCE, csr, f"user not permitted to {verb} requests with signerName {go_quote(signer)}")


@validating(GROUP, "CertificateSigningRequest")
def certificate_approval(admission: Admission, csr: Json, old: Json | None, subresource: str | None) -> None:
    if subresource == "approval" and old is not None:
        _check_signer(admission, csr, old, "approve")


@validating(GROUP, "CertificateSigningRequest")
def certificate_signing(admission: Admission, csr: Json, old: Json | None, subresource: str | None) -> None:
    if subresource != "status" or old is None:
        return
    status, old_status = csr.get("status") or {}, old.get("status") or {}
    # Semantic equality: a missing list or string is the empty one
    if (status.get("certificate") or "") == (old_status.get("certificate") or "") \
            and (status.get("conditions") or []) == (old_status.get("conditions") or []):
        return
    _check_signer(admission, csr, old, "sign")
