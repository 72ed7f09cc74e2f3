"""``metav1.Status`` errors as kube-apiserver sends them.

Constructors mirror apimachinery's ``pkg/api/errors/errors.go`` (and the few apiserver packages
that build their own Status: ``storage/errors.go``, ``handlers/negotiation/errors.go``), with the
same reasons, codes, message formats and ``details``. ``to_dict`` is the JSON kube-apiserver writes
(``responsewriters.ErrorToAPIStatus``): Go's field order and ``omitempty`` rules, so a Status built
here serialises byte-for-byte like kube's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .golang import go_quote, go_value

#: ``storage.OptimisticLockErrorMsg``: the Conflict message for a stale resourceVersion.
OPTIMISTIC_LOCK_MESSAGE = "the object has been modified; please apply your changes to the latest version and try again"

FieldError = tuple[str, str, str]
"""A ``field.Error`` as ``(field, type, body)``: type is the cause reason (``FieldValueRequired``,
...) and body is ``ErrorBody()``, e.g. ``Required value: name is required``."""


def qualified_resource(group: str, resource: str) -> str:
    """``schema.GroupResource.String()``: ``pods``, ``deployments.apps``."""
    return f"{resource}.{group}" if group else resource


def qualified_kind(group: str, kind: str) -> str:
    """``schema.GroupKind.String()``: ``Pod``, ``Deployment.apps``."""
    return f"{kind}.{group}" if group else kind


@dataclass(frozen=True, slots=True)
class Cause:
    """``metav1.StatusCause``; Go's ``Type`` is serialised as ``reason``."""

    reason: str = ""
    message: str = ""
    field: str = ""

    def to_dict(self) -> dict[str, str]:
        return {k: v for k, v in (("reason", self.reason), ("message", self.message), ("field", self.field)) if v}


@dataclass(frozen=True, slots=True)
class Details:
    """``metav1.StatusDetails``. ``kind`` holds the resource (plural) for NotFound, AlreadyExists,
    Conflict, Forbidden and MethodNotAllowed, and the Kind for Invalid, as upstream does."""

    name: str = ""
    group: str = ""
    kind: str = ""
    uid: str = ""
    causes: tuple[Cause, ...] = ()
    retry_after_seconds: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: v for k, v in (
            ("name", self.name), ("group", self.group), ("kind", self.kind), ("uid", self.uid)) if v}
        if self.causes:
            out["causes"] = [cause.to_dict() for cause in self.causes]
        if self.retry_after_seconds:
            out["retryAfterSeconds"] = self.retry_after_seconds
        return out


class StatusError(Exception):
    """A failed request, carried to the HTTP layer as the ``metav1.Status`` it is sent as.

    ``details`` is None where upstream's constructor sets no details (the JSON then has no
    ``details`` key) and a ``Details``, possibly empty (``"details":{}``), where it does.
    ``continue_token`` is ``metadata.continue`` (a 410 for a compacted continue offers one).
    """

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        details: Details | None = None,
        continue_token: str = "",
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.continue_token = continue_token

    def __str__(self) -> str:
        return self.message

    @property
    def retry_after_seconds(self) -> int:
        """What kube also sends as the ``Retry-After`` header when it is positive."""
        return self.details.retry_after_seconds if self.details else 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {"continue": self.continue_token} if self.continue_token else {},
            "status": "Failure",
        }
        if self.message:
            out["message"] = self.message
        if self.reason:
            out["reason"] = self.reason
        if self.details is not None:
            out["details"] = self.details.to_dict()
        out["code"] = self.code
        return out


def _resource_details(group: str, resource: str, name: str, retry_after_seconds: int = 0) -> Details:
    return Details(name=name, group=group, kind=resource, retry_after_seconds=retry_after_seconds)


def not_found(group: str, resource: str, name: str) -> StatusError:
    """``NewNotFound``: ``pods "x" not found``."""
    return StatusError(404, "NotFound", f"{qualified_resource(group, resource)} {go_quote(name)} not found",
                       _resource_details(group, resource, name))


def not_found_path() -> StatusError:
    """The 404 for a path no API serves: go-restful's, through ``NewGenericServerResponse``."""
    return StatusError(404, "NotFound", "the server could not find the requested resource", Details())


def method_not_allowed_path() -> StatusError:
    """The 405 for a path served, but not with this method (no route for it): go-restful's,
    through ``NewGenericServerResponse``."""
    return StatusError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", Details())


def already_exists(group: str, resource: str, name: str) -> StatusError:
    """``NewAlreadyExists``: ``pods "x" already exists``."""
    return StatusError(409, "AlreadyExists", f"{qualified_resource(group, resource)} {go_quote(name)} already exists",
                       _resource_details(group, resource, name))


def generate_name_conflict(group: str, resource: str, name: str) -> StatusError:
    """``NewGenerateNameConflict`` as ``rest.CheckGeneratedNameError`` sends it (retry after 1 s)
    when every name generated from ``metadata.generateName`` was taken."""
    return StatusError(
        409, "AlreadyExists",
        f"{qualified_resource(group, resource)} {go_quote(name)} already exists, "
        "the server was not able to generate a unique name for the object",
        _resource_details(group, resource, name, retry_after_seconds=1),
    )


def conflict(group: str, resource: str, name: str, message: str) -> StatusError:
    """``NewConflict``: ``Operation cannot be fulfilled on pods "x": <message>``; a stale
    resourceVersion uses ``OPTIMISTIC_LOCK_MESSAGE``."""
    return StatusError(
        409, "Conflict",
        f"Operation cannot be fulfilled on {qualified_resource(group, resource)} {go_quote(name)}: {message}",
        _resource_details(group, resource, name),
    )


def bad_request(message: str) -> StatusError:
    """``NewBadRequest``: the message only, no details."""
    return StatusError(400, "BadRequest", message)


def field_errors_message(errors: Iterable[FieldError]) -> str:
    """``field.ErrorList.ToAggregate().Error()``: each error as ``<field>: <body>``, repeats
    dropped, one error bare and several as ``[a, b]``."""
    messages = list(dict.fromkeys(f"{field}: {body}" for field, _type, body in errors))
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"


def invalid(group: str, kind: str, name: str, errors: Sequence[FieldError]) -> StatusError:
    """``NewInvalid``: ``Deployment.apps "x" is invalid: spec.replicas: Invalid value: -1: ...``,
    with one cause per field error (repeats kept, as upstream)."""
    message = f"{qualified_kind(group, kind)} {go_quote(name)} is invalid"
    if errors:
        message += ": " + field_errors_message(errors)
    causes = tuple(Cause(reason=type_, message=body, field=field) for field, type_, body in errors)
    return StatusError(422, "Invalid", message, Details(name=name, group=group, kind=kind, causes=causes))


def method_not_supported(group: str, resource: str, action: str) -> StatusError:
    """``NewMethodNotSupported``: ``create is not supported on resources of kind "pods"``."""
    return StatusError(
        405, "MethodNotAllowed",
        f"{action} is not supported on resources of kind {go_quote(qualified_resource(group, resource))}",
        Details(group=group, kind=resource),
    )


def forbidden(group: str, resource: str, name: str, message: str, causes: tuple[Cause, ...] = ()) -> StatusError:
    """``NewForbidden``, whose message depends on which of resource and name are known;
    ``causes`` are what the refusing code appends (a terminating namespace)."""
    if not resource and not group:
        text = f"forbidden: {message}"
    elif not name:
        text = f"{qualified_resource(group, resource)} is forbidden: {message}"
    else:
        text = f"{qualified_resource(group, resource)} {go_quote(name)} is forbidden: {message}"
    details = _resource_details(group, resource, name)
    return StatusError(403, "Forbidden", text, replace(details, causes=causes) if causes else details)


def resource_expired(message: str) -> StatusError:
    """``NewResourceExpired``: 410, reason Expired (what clients test for; ``NewGone`` is deprecated)."""
    return StatusError(410, "Expired", message)


def timeout(message: str, retry_after_seconds: int, causes: tuple[Cause, ...] = ()) -> StatusError:
    """``NewTimeoutError``: 504 ``Timeout: <message>`` (``causes`` are what storage errors add)."""
    return StatusError(504, "Timeout", f"Timeout: {message}",
                       Details(causes=causes, retry_after_seconds=retry_after_seconds))


def too_large_resource_version(requested: int, current: int) -> StatusError:
    """``storage.NewTooLargeResourceVersionError`` as the watch cache sends it (retry after 1 s):
    ``Timeout: Too large resource version: 12, current: 10`` with cause ResourceVersionTooLarge,
    which client-go's reflector looks for."""
    return timeout(f"Too large resource version: {requested}, current: {current}", 1,
                   (Cause(reason="ResourceVersionTooLarge", message="Too large resource version"),))


def too_many_requests(message: str, retry_after_seconds: int) -> StatusError:
    """``NewTooManyRequests``: 429 with ``details.retryAfterSeconds``."""
    return StatusError(429, "TooManyRequests", message, Details(retry_after_seconds=retry_after_seconds))


def service_unavailable(message: str, retry_after_seconds: int = 0) -> StatusError:
    """``NewServiceUnavailable``: 503 with the message as given and no details; kube's filters
    that answer 503 with a ``Retry-After`` (a shutting-down apiserver) are mirrored by
    ``retry_after_seconds``, which adds it as ``details.retryAfterSeconds`` too."""
    details = Details(retry_after_seconds=retry_after_seconds) if retry_after_seconds else None
    return StatusError(503, "ServiceUnavailable", message, details)


def internal_error(message: str) -> StatusError:
    """``NewInternalError``: ``Internal error occurred: <message>``, the error also as a cause."""
    return StatusError(500, "InternalError", f"Internal error occurred: {message}",
                       Details(causes=(Cause(message=message),)))


def unsupported_media_type(*, accepted: Sequence[str]) -> StatusError:
    """415 for a request body in a media type the endpoint does not decode
    (``negotiation.NewUnsupportedMediaTypeError``)."""
    return StatusError(
        415, "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: " + ", ".join(accepted),
    )


def not_acceptable(*, accepted: Sequence[str]) -> StatusError:
    """406 for an Accept header the endpoint cannot answer (``negotiation.NewNotAcceptableError``)."""
    return StatusError(406, "NotAcceptable", "only the following media types are accepted: " + ", ".join(accepted))


def request_entity_too_large(message: str) -> StatusError:
    """``NewRequestEntityTooLargeError``: ``Request entity too large: <message>``."""
    return StatusError(413, "RequestEntityTooLarge", f"Request entity too large: {message}")


def apply_conflict(causes: Sequence[Cause], message: str) -> StatusError:
    """``NewApplyConflict``: a 409 Conflict whose details hold only the causes (one
    ``FieldManagerConflict`` per conflicting field), no name or kind."""
    return StatusError(409, "Conflict", message, Details(causes=tuple(causes)))


def unclassified_error(message: str) -> StatusError:
    """What ``responsewriters.ErrorToAPIStatus`` makes of an error that is not a Status: a 500
    with reason ``StatusReasonUnknown`` (the empty string) and the error's text as message."""
    return StatusError(500, "", message)


# ``field.Error`` constructors (apimachinery ``util/validation/field/errors.go``): the error type
# and ``ErrorBody()``, whose bad value is printed as Go's ``%v``/``%q``/``%#v`` would (``go_value``).

def required_error(field: str, detail: str = "") -> FieldError:
    """``field.Required``."""
    return field, "FieldValueRequired", f"Required value: {detail}" if detail else "Required value"


def forbidden_error(field: str, detail: str) -> FieldError:
    """``field.Forbidden``."""
    return field, "FieldValueForbidden", f"Forbidden: {detail}" if detail else "Forbidden"


def invalid_error(field: str, value: Any, detail: str, *, type_invalid: bool = False) -> FieldError:
    """``field.Invalid`` (``field.TypeInvalid`` with ``type_invalid``: same body, another type)."""
    body = f"Invalid value: {go_value(value)}"
    return field, "FieldValueTypeInvalid" if type_invalid else "FieldValueInvalid", f"{body}: {detail}" if detail else body


def not_supported_error(field: str, value: Any, supported: Sequence[str]) -> FieldError:
    """``field.NotSupported``: ``Unsupported value: "pink": supported values: "red", "blue"``."""
    body = f"Unsupported value: {go_value(value)}"
    if supported:
        body += ": supported values: " + ", ".join(go_quote(v) for v in supported)
    return field, "FieldValueNotSupported", body


def duplicate_error(field: str, value: Any) -> FieldError:
    """``field.Duplicate``."""
    return field, "FieldValueDuplicate", f"Duplicate value: {go_value(value)}"


def too_long_error(field: str, max_length: int) -> FieldError:
    """``field.TooLong`` (the value is omitted)."""
    detail = f"may not be more than {max_length} bytes" if max_length >= 0 else "value is too long"
    return field, "FieldValueTooLong", f"Too long: {detail}"


def too_many_error(field: str, actual: int, maximum: int) -> FieldError:
    """``field.TooMany``."""
    detail = f"must have at most {maximum} items" if maximum >= 0 else "has too many items"
    shown = f"Too many: {actual}" if actual >= 0 else "Too many"
    return field, "FieldValueTooMany", f"{shown}: {detail}"


def generic_unprocessable_entity() -> StatusError:
    """``NewGenericServerResponse(422, "", GroupResource{}, "", msg, 0, false)``, which the patch
    handler returns for a JSON patch that does not apply: the message is the generic one (the
    server message only becomes a cause for unexpected responses, so it is dropped), details empty."""
    return StatusError(422, "Invalid", "the server rejected our request due to an error in our request", Details())
