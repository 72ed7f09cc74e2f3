"""CertificateApproval and CertificateSigning alone, with an authorizer that records what it is
asked: the stored request's signer, then its domain's wildcard; which writes are checked at all
(the whole answers are compared with kube's in tests/kasdiff/test_access.py)."""

from __future__ import annotations

import pytest

from fakeapi.admission import Admission
from fakeapi.cel.access import ALLOW, NO_OPINION, AccessCheck, AccessDecision
from fakeapi.admission.certificate_signers import certificate_approval, certificate_signing
from fakeapi.machinery import requester
from fakeapi.machinery.status import StatusError

USER = {"username": "approver", "groups": ["system:authenticated"]}


class Recorder:
    """An authorizer allowing the (verb, signer) pairs it is given, recording every question."""

    def __init__(self, *allowed: tuple[str, str]) -> None:
        self.allowed = set(allowed)
        self.asked: list[tuple[str, str, str, str]] = []

    def __call__(self, user: dict, check: AccessCheck) -> AccessDecision:
        assert user == USER
        assert (check.resource_request, check.namespace, check.subresource) == (True, "", "")
        self.asked.append((check.verb, check.group, check.resource, check.name))
        return AccessDecision(ALLOW if (check.verb, check.name) in self.allowed else NO_OPINION)


def _csr(signer: str, **status: object) -> dict:
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "c"},
            "spec": {"signerName": signer}, "status": dict(status)}


def _admit(recorder: Recorder, plugin, new: dict, old: dict, subresource: str) -> None:
    with requester.requesting(lambda: USER):
        plugin(Admission(lambda *_: None, authorizer=recorder), new, old, subresource)


def test_approval_asks_for_the_stored_signer_then_its_domain() -> None:
    recorder = Recorder()
    with pytest.raises(StatusError) as refused:
        # the signer of the request is the stored one, whatever the update says
        _admit(recorder, certificate_approval, _csr("evil.io/x"), _csr("example.com/signer"), "approval")
    assert (refused.value.code, refused.value.message) == (
        403, 'certificatesigningrequests.certificates.k8s.io "c" is forbidden: '
             'user not permitted to approve requests with signerName "example.com/signer"')
    assert recorder.asked == [("approve", "certificates.k8s.io", "signers", "example.com/signer"),
                              ("approve", "certificates.k8s.io", "signers", "example.com/*")]


@pytest.mark.parametrize("allowed", [("approve", "example.com/signer"), ("approve", "example.com/*")])
def test_approval_allowed_by_name_or_domain(allowed: tuple[str, str]) -> None:
    _admit(Recorder(allowed), certificate_approval, _csr("example.com/signer"), _csr("example.com/signer"), "approval")


def test_other_writes_are_not_checked() -> None:
    recorder = Recorder()
    stored = _csr("example.com/signer")
    _admit(recorder, certificate_approval, _csr("example.com/signer"), stored, "status")
    _admit(recorder, certificate_signing, _csr("example.com/signer"), stored, "approval")
    _admit(recorder, certificate_signing, _csr("example.com/signer"), stored, None)
    # a /status write that changes neither the certificate nor the conditions
    _admit(recorder, certificate_signing, _csr("example.com/signer", conditions=[]), stored, "status")
    # a write fakeapi makes itself (no request's user), as kube's loopback client's
    certificate_approval(Admission(lambda *_: None, authorizer=recorder), stored, stored, "approval")
    assert recorder.asked == []


@pytest.mark.parametrize("status", [{"certificate": "Y2VydA=="}, {"conditions": [{"type": "Failed", "status": "True"}]}])
def test_signing_a_changed_status_needs_sign(status: dict) -> None:
    recorder = Recorder()
    with pytest.raises(StatusError) as refused:
        _admit(recorder, certificate_signing, _csr("example.com/signer", **status), _csr("example.com/signer"), "status")
    assert refused.value.message.endswith('user not permitted to sign requests with signerName "example.com/signer"')
    _admit(Recorder(("sign", "example.com/*")), certificate_signing, _csr("example.com/signer", **status),
           _csr("example.com/signer"), "status")
