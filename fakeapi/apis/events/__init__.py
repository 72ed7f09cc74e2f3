"""The events.k8s.io group: its Events are core Events (stored as core/v1, served through a
conversion), validated more strictly when written through events.k8s.io/v1 (kube's
``pkg/apis/core/validation/events.go``, ``requestVersion`` not core/v1 nor events.k8s.io/v1beta1).

The hooks registered here receive the *stored* core/v1 object: the registry runs them, instead of
core's, for writes sent in this version (``registry.writes.request_rules``)."""

from __future__ import annotations

from datetime import datetime

from ...machinery.status import FieldError, invalid_error, required_error
from ...machinery.validation import name_is_dns_subdomain, validate_immutable_field
from ..core.validation_cluster import validate_event as validate_legacy_event
from ..core.validation_common import validate_core_object_meta, validate_core_object_meta_update
from ..fields import Json, get
from ..rules import register


def _legacy(event: Json) -> list[FieldError]:
    """``legacyValidateEvent`` as a request in this version gets it: core's, the reporting
    controller named as this version names it."""
    return [("reportingController", kind, body) if path == "reportingComponent" else (path, kind, body)
            for path, kind, body in validate_legacy_event(event)]


def _validate_series(event: Json) -> list[FieldError]:
    """``validateV1EventSeries``."""
    series = event.get("series")
    if series is None:
        return []
    errors = []
    if (series.get("count") or 0) < 2:
        errors.append(invalid_error("series.count", "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errors.append(required_error("series.lastObservedTime"))
    return errors


def validate_event(event: Json) -> list[FieldError]:
    """``ValidateEventCreate``: the legacy checks, then the strict ones."""
    errors = _legacy(event)
    errors += validate_core_object_meta(event["metadata"], True, name_is_dns_subdomain)
    errors += _validate_series(event)
    if not event.get("eventTime"):
        errors.append(required_error("eventTime"))
    event_type = event.get("type") or ""
    if event_type not in ("Normal", "Warning"):
        errors.append(invalid_error("type", "", f"has invalid value: {event_type}"))
    for name in ("firstTimestamp", "lastTimestamp"):
        if event.get(name):
            errors.append(invalid_error(name, "", "needs to be unset"))
    if event.get("count"):
        errors.append(invalid_error("count", "", "needs to be unset"))
    if get(event, "source", "component") or get(event, "source", "host"):
        errors.append(invalid_error("source", "", "needs to be unset"))
    return errors


def _object_reference(reference: Json | None) -> Json | None:
    """The internal ``core.ObjectReference`` (no JSON tags: Go's field names) of a reference."""
    if reference is None:
        return None
    return {"Kind": reference.get("kind") or "", "Namespace": reference.get("namespace") or "",
            "Name": reference.get("name") or "", "UID": reference.get("uid") or "",
            "APIVersion": reference.get("apiVersion") or "",
            "ResourceVersion": reference.get("resourceVersion") or "", "FieldPath": reference.get("fieldPath") or ""}


def _source(event: Json) -> Json:
    return {"Component": get(event, "source", "component") or "", "Host": get(event, "source", "host") or ""}


def _microseconds(value: str | None) -> datetime | None:
    """A MicroTime as kube compares it in updates: truncated to the microsecond."""
    return datetime.fromisoformat(value).replace(tzinfo=None) if value else None


def validate_event_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateEventUpdate``: the legacy checks, metadata, the series if it changed, and every
    other field immutable (eventTime to the microsecond; kube checks ``reason`` twice)."""
    errors = _legacy(new)
    errors += validate_core_object_meta_update(new["metadata"], old["metadata"])
    if new.get("series") != old.get("series"):
        errors += _validate_series(new)
    errors += validate_immutable_field(_object_reference(new.get("involvedObject") or {}),
                                       _object_reference(old.get("involvedObject") or {}), "involvedObject")
    for name in ("reason", "message"):
        errors += validate_immutable_field(new.get(name) or "", old.get(name) or "", name)
    errors += validate_immutable_field(_source(new), _source(old), "source")
    for name in ("firstTimestamp", "lastTimestamp"):
        errors += validate_immutable_field(new.get(name), old.get(name), name)
    errors += validate_immutable_field(new.get("count") or 0, old.get("count") or 0, "count")
    for name in ("reason", "type"):
        errors += validate_immutable_field(new.get(name) or "", old.get(name) or "", name)
    if _microseconds(new.get("eventTime")) != _microseconds(old.get("eventTime")):
        errors += validate_immutable_field(new.get("eventTime"), old.get("eventTime"), "eventTime")
    errors += validate_immutable_field(new.get("action") or "", old.get("action") or "", "action")
    errors += validate_immutable_field(_object_reference(new.get("related")), _object_reference(old.get("related")),
                                       "related")
    errors += validate_immutable_field(new.get("reportingComponent") or "", old.get("reportingComponent") or "",
                                       "reportingController")
    errors += validate_immutable_field(new.get("reportingInstance") or "", old.get("reportingInstance") or "",
                                       "reportingInstance")
    return errors


register("events.k8s.io", "v1", "Event", validate=validate_event, validate_update=validate_event_update)
