"""CertificateSigningRequest validation (kube's ``pkg/apis/certificates/validation``)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...machinery.status import (
    FieldError,
    duplicate_error,
    forbidden_error,
    invalid_error,
    not_supported_error,
    required_error,
    too_long_error,
)
from ...machinery.validation import index, invalid_json, is_dns1123_label, is_dns1123_subdomain
from ..core.validation_common import validate_core_object_meta, validate_core_object_meta_update
from ..fields import Json, get

_USAGES = tuple(sorted((
    "signing", "digital signature", "content commitment", "key encipherment", "key agreement", "data encipherment",
    "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth", "client auth", "code signing",
    "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing",
    "microsoft sgc", "netscape sgc")))
_LEGACY_SIGNER = "kubernetes.io/legacy-unknown"
_TRUE_ONLY_TYPES = ("Approved", "Denied", "Failed")
_PEM_BLOCK = re.compile(rb"-----BEGIN ([^-\r\n]*)-----\r?\n(.*?)-----END \1-----", re.S)


@dataclass(frozen=True)
class _Options:
    """``certificateValidationOptions``: what an update tolerates because the stored object has it."""

    allow_setting_certificate: bool = False
    #: ``/approval``: Approved and Denied conditions may be added (never removed).
    allow_setting_approval_conditions: bool = False
    allow_both_approved_and_denied: bool = False
    allow_legacy_signer_name: bool = False
    allow_duplicate_condition_types: bool = False
    allow_empty_condition_type: bool = False
    allow_arbitrary_certificate: bool = False
    allow_unknown_usages: bool = False
    allow_duplicate_usages: bool = False


def _no_name_rule(name: str, prefix: bool) -> list[str]:
    """``ValidateCertificateRequestName``: any name."""
    return []


def _pem_blocks(data: bytes) -> list[tuple[str, bytes, bool]]:
    """The PEM blocks of ``data`` (type, DER bytes, whether it had headers), as ``pem.Decode``
    finds them one after another."""
    blocks = []
    for match in _PEM_BLOCK.finditer(data):
        body = match.group(2)
        headers = b":" in body.split(b"\n\n", 1)[0] if b"\n\n" in body else False
        try:
            der = base64.b64decode(b"".join(body.split()), validate=True)
        except binascii.Error:
            break
        blocks.append((match.group(1).decode(), der, headers))
    return blocks


def _request_error(request: bytes) -> str | None:
    """``validateCSR``: a PEM CERTIFICATE REQUEST whose signature checks."""
    from cryptography import x509  # imported when a CSR is written: it costs a server's start 0.1 s
    blocks = _pem_blocks(request)
    if not blocks or blocks[0][0] != "CERTIFICATE REQUEST":
        return "PEM block type must be CERTIFICATE REQUEST"
    try:
        csr = x509.load_der_x509_csr(blocks[0][1])
    except ValueError:
        return "x509: malformed certificate request"
    if not csr.is_signature_valid:
        return "x509: signature verification failure"
    return None


def requested_organizations(request: bytes) -> list[str]:
    """The organizations of the subject a CSR's PEM request asks for (``ParseCSR``); none for a
    request that does not parse (validation refuses it first)."""
    from cryptography import x509
    from cryptography.x509.oid import NameOID
    blocks = _pem_blocks(request)
    if not blocks or blocks[0][0] != "CERTIFICATE REQUEST":
        return []
    try:
        csr = x509.load_der_x509_csr(blocks[0][1])
    except ValueError:
        return []
    return [str(attribute.value) for attribute in csr.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]


def _certificate_error(data: bytes) -> str | None:
    """``validateCertificate`` of ``status.certificate``."""
    from cryptography import x509
    if not data:
        return None
    blocks = _pem_blocks(data)
    if not blocks:
        return "must contain at least one CERTIFICATE PEM block"
    for block_type, der, headers in blocks:
        if block_type != "CERTIFICATE":
            return f'only CERTIFICATE PEM blocks are allowed, found "{block_type}"'
        if headers:
            return "no PEM block headers are permitted"
        try:
            x509.load_der_x509_certificate(der)
        except ValueError:
            return "x509: malformed certificate"
    return None


def _bytes(value: str | None) -> bytes:
    try:
        return base64.b64decode(value or "")
    except binascii.Error:
        return b""


def _validate_signer_name(signer: str, path: str) -> list[FieldError]:
    """core's ``ValidateSignerName``."""
    if not signer:
        return [required_error(path)]
    segments = signer.split("/")
    if len(segments) != 2:
        return [invalid_error(path, signer, "must be a fully qualified domain and path of the form "
                                            "'example.com/signer-name'")]
    domain, signer_path = segments
    errors = [too_long_error(path, 253)] if len(domain) > 253 else []
    labels = domain.split(".")
    for label in labels:
        problems = is_dns1123_label(label)
        if problems:
            errors += [invalid_error(path, domain, f'validating label "{label}": {p}') for p in problems]
            break
    if len(labels) < 2:
        errors.append(invalid_error(path, domain, "should be a domain with at least two segments separated by dots"))
    for label in signer_path.split("."):
        problems = is_dns1123_subdomain(label)
        if problems:
            errors += [invalid_error(path, signer_path, f'validating label "{label}": {p}') for p in problems]
            break
    if len(signer) > 253 + 253 + 63 + 1 + 1:
        errors.append(too_long_error(path, 253 + 253 + 63 + 1 + 1))
    return errors


def _validate_conditions(conditions: Sequence[Json], options: _Options) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    approved = denied = False
    for i, condition in enumerate(conditions):
        path = index("status.conditions", i)
        condition_type, status = condition.get("type") or "", condition.get("status") or ""
        if not options.allow_empty_condition_type and not condition_type:
            errors.append(required_error(f"{path}.type"))
        allowed = ("True",) if condition_type in _TRUE_ONLY_TYPES else ("False", "True", "Unknown")
        if not status:
            errors.append(required_error(f"{path}.status"))
        elif status not in allowed:
            errors.append(not_supported_error(f"{path}.status", status, allowed))
        if not options.allow_both_approved_and_denied:
            if condition_type == "Approved":
                approved = True
                if denied:
                    errors.append(invalid_error("status.conditions", condition_type,
                                                "Approved and Denied conditions are mutually exclusive"))
            elif condition_type == "Denied":
                denied = True
                if approved:
                    errors.append(invalid_error("status.conditions", condition_type,
                                                "Approved and Denied conditions are mutually exclusive"))
        if not options.allow_duplicate_condition_types:
            if condition_type in seen:
                errors.append(duplicate_error(f"{path}.type", condition_type))
            seen.add(condition_type)
    return errors


def _validate(csr: Json, options: _Options) -> list[FieldError]:
    """``validateCertificateSigningRequest``."""
    errors = validate_core_object_meta(csr["metadata"], False, _no_name_rule)
    spec = csr.get("spec") or {}
    request_error = _request_error(_bytes(spec.get("request")))
    if request_error:
        errors.append(invalid_json("spec.request", spec.get("request") or None, request_error))
    usages = spec.get("usages") or []
    if not usages:
        errors.append(required_error("spec.usages"))
    if not options.allow_unknown_usages:
        errors += [not_supported_error(index("spec.usages", i), usage, _USAGES)
                   for i, usage in enumerate(usages) if usage not in _USAGES]
    if not options.allow_duplicate_usages:
        errors += [duplicate_error(index("spec.usages", i), usage) for i, usage in enumerate(usages)
                   if usage in usages[:i]]
    signer = spec.get("signerName") or ""
    if not options.allow_legacy_signer_name and signer == _LEGACY_SIGNER:
        errors.append(invalid_error("spec.signerName", signer, "the legacy signerName is not allowed via this API version"))
    else:
        errors += _validate_signer_name(signer, "spec.signerName")
    expiration = spec.get("expirationSeconds")
    if expiration is not None and expiration < 600:
        errors.append(invalid_error("spec.expirationSeconds", expiration,
                                    "may not specify a duration less than 600 seconds (10 minutes)"))
    errors += _validate_conditions(get(csr, "status", "conditions") or [], options)
    if not options.allow_arbitrary_certificate:
        certificate_error = _certificate_error(_bytes(get(csr, "status", "certificate")))
        if certificate_error:
            errors.append(invalid_error("status.certificate", "<certificate data>", certificate_error))
    return errors


def validate_create(csr: Json) -> list[FieldError]:
    return _validate(csr, _Options())


def _types(csr: Json) -> list[str]:
    return [c.get("type") or "" for c in get(csr, "status", "conditions") or ()]


def _update_options(new: Json, old: Json, *, allow_setting_certificate: bool = False,
                    allow_setting_approval_conditions: bool = False) -> _Options:
    """``getValidationOptions``: what the stored object already has stays allowed."""
    old_types, old_usages = _types(old), get(old, "spec", "usages") or []
    old_certificate = get(old, "status", "certificate")
    return _Options(
        allow_setting_certificate=allow_setting_certificate,
        allow_setting_approval_conditions=allow_setting_approval_conditions,
        allow_both_approved_and_denied="Approved" in old_types and "Denied" in old_types,
        allow_legacy_signer_name=get(old, "spec", "signerName") == _LEGACY_SIGNER,
        allow_duplicate_condition_types=len(set(old_types)) != len(old_types),
        allow_empty_condition_type="" in old_types,
        allow_arbitrary_certificate=get(new, "status", "certificate") == old_certificate
        or _certificate_error(_bytes(old_certificate)) is not None,
        allow_unknown_usages=any(u not in _USAGES for u in old_usages),
        allow_duplicate_usages=len(set(old_usages)) != len(old_usages),
    )


def _validate_update(new: Json, old: Json, options: _Options) -> list[FieldError]:
    """``validateCertificateSigningRequestUpdate`` (a modified Approved or Denied condition is
    refused without the diff kube appends)."""
    errors = _validate(new, options)
    for condition_type in _TRUE_ONLY_TYPES:
        if _types(new).count(condition_type) < _types(old).count(condition_type):
            errors.append(forbidden_error("status.conditions", f'updates may not remove a condition of type "{condition_type}"'))
    for condition_type in () if options.allow_setting_approval_conditions else ("Approved", "Denied"):
        new_count, old_count = _types(new).count(condition_type), _types(old).count(condition_type)
        if new_count > old_count:
            errors.append(forbidden_error("status.conditions", f'updates may not add a condition of type "{condition_type}"'))
    new_certificate, old_certificate = get(new, "status", "certificate") or "", get(old, "status", "certificate") or ""
    if new_certificate != old_certificate:
        if not options.allow_setting_certificate:
            errors.append(forbidden_error("status.certificate", "updates may not set certificate content"))
        elif old_certificate:
            errors.append(forbidden_error("status.certificate", "updates may not modify existing certificate content"))
    return errors + validate_core_object_meta_update(new["metadata"], old["metadata"])


def validate_update(new: Json, old: Json) -> list[FieldError]:
    return _validate_update(new, old, _update_options(new, old))


def validate_status_update(new: Json, old: Json) -> list[FieldError]:
    return _validate_update(new, old, _update_options(new, old, allow_setting_certificate=True))


def validate_approval_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateCertificateSigningRequestApprovalUpdate``."""
    return _validate_update(new, old, _update_options(new, old, allow_setting_approval_conditions=True))
