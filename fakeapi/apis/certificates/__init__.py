"""The certificates.k8s.io group (kube's ``pkg/apis/certificates``): CertificateSigningRequests,
their strategies (``pkg/registry/certificates/certificates/strategy.go``: the requester recorded
in the spec, a spec no update changes) and validation of create, update and status.

The ``/approval`` subresource sets the Approved and Denied conditions (and nothing else of the
spec or status); who may approve for a signer is the CertificateApproval admission plugin's
(``fakeapi.admission.certificate_signers``).

Not ported: the diff kube prints when a status write modifies an Approved or Denied condition,
and Go's exact x509 parse errors of a malformed
request (a request that is not a PEM ``CERTIFICATE REQUEST`` block gets kube's message)."""

from __future__ import annotations

from ..rules import SubresourceStrategy, register
from . import strategy, validation

register("certificates.k8s.io", "v1", "CertificateSigningRequest",
         prepare_for_create=strategy.prepare_for_create, prepare_for_update=strategy.prepare_for_update,
         prepare_for_status_update=strategy.prepare_for_status_update,
         validate=validation.validate_create, validate_update=validation.validate_update,
         validate_status_update=validation.validate_status_update,
         reset_fields=(("spec",), ("status",)), status_reset_fields=(("spec",), ("status", "conditions")),
         subresources={"approval": SubresourceStrategy(strategy.prepare_for_approval_update,
                                                       validation.validate_approval_update,
                                                       (("spec",), ("status", "certificate")))})
