"""The ``AdmissionReview`` a webhook is sent and what kube makes of its answer
(``webhook/request/admissionreview.go``, ``webhook/errors/statuserror.go``)."""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass
from typing import Any

import orjson

from ...machinery.golang import go_quote
from ...machinery.status import Cause, Details, StatusError
from .request import Attributes, Json

#: The AdmissionReview versions kube sends, in its order of preference.
REVIEW_VERSIONS = ("v1", "v1beta1")


class CallError(Exception):
    """kube's ``ErrCallingWebhook``: the webhook could not be asked or its answer not used;
    ``failurePolicy`` decides whether the request fails. ``status`` is what a mutating webhook's
    failure is answered with where kube keeps one (None: ``NewInternalError`` of the message)."""

    def __init__(self, webhook: str, reason: str, status: StatusError | None = None) -> None:
        super().__init__(f"failed calling webhook {go_quote(webhook)}: {reason}")
        self.status = status


def review_version(attrs: Attributes, webhook: str, accepted: tuple[str, ...]) -> str:
    """The first of the webhook's ``admissionReviewVersions`` kube knows (``CreateAdmissionObjects``)."""
    for version in accepted:
        if version in REVIEW_VERSIONS:
            return version
    raise CallError(webhook, "could not create admission objects: webhook does not accept known AdmissionReview "
                             "versions (v1, v1beta1)")


def admission_request(attrs: Attributes, uid: str = "") -> Json:
    """The ``AdmissionRequest`` of ``attrs`` (in the version a webhook or policy is given them:
    ``Attributes.in_version``) in Go's field order (what a match condition reads as
    ``request``); ``object``, ``oldObject`` and ``options`` are null when absent."""
    request: Json = {"uid": uid, "kind": attrs.kind_json(), "resource": attrs.resource_json()}
    if attrs.subresource:
        request["subResource"] = attrs.subresource
    request["requestKind"] = request["kind"] if attrs.request_kind is None else attrs.request_kind
    request["requestResource"] = request["resource"] if attrs.request_resource is None else attrs.request_resource
    if attrs.subresource:
        request["requestSubResource"] = attrs.subresource
    if attrs.name:
        request["name"] = attrs.name
    if attrs.namespace:
        request["namespace"] = attrs.namespace
    request["operation"] = attrs.operation
    request["userInfo"] = attrs.request.user
    request["object"] = attrs.object
    request["oldObject"] = attrs.old_object
    request["dryRun"] = attrs.request.dry_run
    request["options"] = attrs.request.options
    return request


def review_request(attrs: Attributes, version: str) -> tuple[str, bytes]:
    """A new request uid and the ``AdmissionReview`` naming it, encoded as kube encodes it."""
    uid = _random_uuid()
    review = {"kind": "AdmissionReview", "apiVersion": f"admission.k8s.io/{version}",
              "request": admission_request(attrs, uid)}
    return uid, orjson.dumps(review)


def _random_uuid() -> str:
    """``uuid.uuid4()``'s text (kube's ``uuid.NewUUID``: random, version 4, RFC 4122's variant),
    in half the time: made from the random bytes without a ``UUID`` object."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40
    raw[8] = raw[8] & 0x3F | 0x80
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


@dataclass(frozen=True)
class AdmissionResponse:
    allowed: bool
    patch: bytes
    result: Json | None
    warnings: tuple[str, ...]


def verify_response(webhook: str, uid: str, version: str, mutating: bool, body: Any) -> AdmissionResponse:
    """``VerifyAdmissionResponse`` of a decoded answer; raises ``CallError`` where kube does."""
    def invalid(reason: str) -> CallError:
        return CallError(webhook, f"received invalid webhook response: {reason}",
                         StatusError(503, "ServiceUnavailable", "error validating webhook response"))

    response = body.get("response") if isinstance(body, dict) else None
    if not isinstance(response, dict):
        raise invalid("webhook response was absent")
    patch = _patch_bytes(webhook, response.get("patch"))
    patch_type = response.get("patchType")
    if version == "v1":
        if response.get("uid", "") != uid:
            raise invalid(f"expected response.uid={go_quote(uid)}, got {go_quote(str(response.get('uid', '')))}")
        api_version = str(body.get("apiVersion", ""))
        group, _, gv_version = api_version.rpartition("/")
        got = f"{group}/{gv_version}, Kind={body.get('kind', '')}"  # GroupVersionKind.String()
        if got != "admission.k8s.io/v1, Kind=AdmissionReview":
            raise invalid(f"expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got {got}")
        if mutating:
            if patch and patch_type is None:
                raise invalid("webhook returned response.patch but not response.patchType")
            if not patch and patch_type is not None:
                raise invalid("webhook returned response.patchType but not response.patch")
            if patch_type is not None and not patch_type:
                raise invalid('webhook returned invalid response.patchType of ""')
            if patch_type is not None and patch_type != "JSONPatch":
                raise CallError(webhook, f"unsupported patch type {go_quote(patch_type)}")
        else:
            if patch:
                raise invalid("validating webhook may not return response.patch")
            if patch_type is not None:
                raise invalid("validating webhook may not return response.patchType")
    result = response.get("status")  # Go's Result field
    return AdmissionResponse(bool(response.get("allowed")), patch if mutating else b"",
                             result if isinstance(result, dict) else None,
                             tuple(w for w in response.get("warnings") or () if isinstance(w, str)))


def _patch_bytes(webhook: str, value: Any) -> bytes:
    """``response.patch``: base64 in JSON, as Go's ``[]byte``."""
    if not value:
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, TypeError, ValueError):
        raise CallError(webhook, "failed to call webhook: illegal base64 data in response.patch") from None


def denied(webhook: str, result: Json | None) -> StatusError:
    """``ToStatusErr``: the webhook's refusal as the client gets it: its status as it gave it
    (reason and details included), the code at least 400, the message saying who denied."""
    result = result or {}
    code = result.get("code") or 0
    denied_by = f"admission webhook {go_quote(webhook)} denied the request"
    if result.get("message"):
        message = f"{denied_by}: {result['message']}"
    elif result.get("reason"):
        message = f"{denied_by}: {result['reason']}"
    else:
        message = f"{denied_by} without explanation"
    given = result.get("details")
    details = None
    if isinstance(given, dict):
        details = Details(name=given.get("name") or "", group=given.get("group") or "", kind=given.get("kind") or "",
                          uid=given.get("uid") or "", retry_after_seconds=given.get("retryAfterSeconds") or 0,
                          causes=tuple(Cause(c.get("reason") or "", c.get("message") or "", c.get("field") or "")
                                       for c in given.get("causes") or () if isinstance(c, dict)))
    return StatusError(code if isinstance(code, int) and code >= 400 else 400, result.get("reason") or "", message,
                       details)


def dry_run_unsupported(webhook: str) -> StatusError:
    """``NewDryRunUnsupportedErr``."""
    return StatusError(400, "BadRequest", f"admission webhook {go_quote(webhook)} does not support dry run")
