"""``metav1.Status`` errors with kube-apiserver's reasons, codes and message formats
(apimachinery ``pkg/api/errors/errors.go``)."""

from __future__ import annotations

from typing import Any

Cause = tuple[str, str, str]  # (field, reason, message)


class StatusError(Exception):
    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        details: dict[str, Any] | None = None,
        retry_after_seconds: int = 0,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.retry_after_seconds = retry_after_seconds
        self.continue_token: str | None = None

    def to_dict(self) -> dict[str, Any]:
        metadata: dict[str, Any] = {}
        if self.continue_token:
            metadata["continue"] = self.continue_token
        out: dict[str, Any] = {
            "kind": "Status", "apiVersion": "v1", "metadata": metadata, "status": "Failure",
            "message": self.message, "reason": self.reason,
        }
        details = dict(self.details or {})
        if self.retry_after_seconds:
            details["retryAfterSeconds"] = self.retry_after_seconds
        if details:
            out["details"] = details
        out["code"] = self.code
        return out


def _qualified(group: str, resource: str) -> str:
    return f"{resource}.{group}" if group else resource


def _details(group: str, kind: str, name: str) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if name:
        d["name"] = name
    if group:
        d["group"] = group
    if kind:
        d["kind"] = kind
    return d


def not_found(group: str, resource: str, name: str) -> StatusError:
    return StatusError(404, "NotFound", f'{_qualified(group, resource)} "{name}" not found',
                       _details(group, resource, name))


def not_found_path() -> StatusError:
    """The 404 for a path no resource serves."""
    return StatusError(404, "NotFound", "the server could not find the requested resource", {})


def already_exists(group: str, resource: str, name: str) -> StatusError:
    return StatusError(409, "AlreadyExists", f'{_qualified(group, resource)} "{name}" already exists',
                       _details(group, resource, name))


def conflict(group: str, resource: str, name: str, message: str) -> StatusError:
    return StatusError(409, "Conflict",
                       f'Operation cannot be fulfilled on {_qualified(group, resource)} "{name}": {message}',
                       _details(group, resource, name))


def bad_request(message: str) -> StatusError:
    return StatusError(400, "BadRequest", message)


def invalid(group: str, kind: str, name: str, causes: list[Cause]) -> StatusError:
    """``NewInvalid``: ``<Kind>.<group> "name" is invalid: <field>: <msg>, ...``."""
    qualified = f"{kind}.{group}" if group else kind
    parts = [f"{field}: {msg}" for field, _reason, msg in causes]
    msg = f'{qualified} "{name}" is invalid: '
    msg += parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"
    details = _details(group, kind, name)
    details["causes"] = [{"reason": r, "message": m, "field": f} for f, r, m in causes]
    return StatusError(422, "Invalid", msg, details)


def method_not_supported(resource: str, method: str) -> StatusError:
    return StatusError(405, "MethodNotAllowed",
                       f"{method} is not supported on resources of kind \"{resource}\"", {})


def resource_expired(message: str) -> StatusError:
    return StatusError(410, "Expired", message)


def too_large_resource_version(requested: int, current: int) -> StatusError:
    """``storage.NewTooLargeResourceVersionError`` as the handlers send it: 504 Timeout."""
    return StatusError(
        504, "Timeout", f"Too large resource version: {requested}, current: {current}",
        {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]},
        retry_after_seconds=1,
    )


def unsupported_media_type(content_type: str) -> StatusError:
    return StatusError(415, "UnsupportedMediaType", f'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml')


def request_entity_too_large(message: str) -> StatusError:
    return StatusError(413, "RequestEntityTooLarge", f"Request entity too large: {message}")
