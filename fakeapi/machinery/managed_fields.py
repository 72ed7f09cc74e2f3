"""``metadata.managedFields`` as kube's fieldmanager keeps them.

``Managed``, ``decode_managed_fields``, ``encode_managed_fields`` and ``manager_identifier``
mirror apimachinery v0.32.13 ``pkg/util/managedfields/internal/managedfields.go``: managers are
keyed by the JSON of their entry without fieldsType, fieldsV1, time (and apiVersion for Apply),
and entries are written back sorted by operation, time, manager, apiVersion, subresource. The
sets are ``fieldpath``'s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

import orjson

from .fieldpath import FieldSet, VersionedSet
from .golang import go_quote, go_rfc3339
from .value import go_json

# --- managed fields (apimachinery managedfields/internal/managedfields.go) ---------------------

APPLY, UPDATE = "Apply", "Update"
FIELDS_V1 = "FieldsV1"


@dataclass(slots=True)
class Managed:
    """Decoded managedFields: each manager identifier's set and time (RFC 3339, UTC seconds)."""

    fields: dict[str, VersionedSet] = field(default_factory=dict)
    times: dict[str, str | None] = field(default_factory=dict)


class ManagedFieldsError(ValueError):
    """managedFields that ``DecodeManagedFields`` rejects; the message is upstream's."""


@lru_cache(maxsize=1024)
def manager_identifier(manager: str, operation: str, api_version: str, subresource: str) -> str:
    """``BuildManagerIdentifier``: the entry's JSON without fieldsType, fieldsV1 and time, and
    without apiVersion for an Apply (an applier owns its fields whatever version it used).
    Kept: a server's writers are few, and each writes again and again."""
    entry = {"manager": manager, "operation": operation,
             "apiVersion": "" if operation == APPLY else api_version, "subresource": subresource}
    return "{" + ",".join(f"{go_json(k)}:{go_json(v)}" for k, v in entry.items() if v) + "}"


def parse_manager_identifier(identifier: str) -> dict[str, str]:
    """The fields of a ``manager_identifier`` (a new dict, for the caller)."""
    return dict(_identifier_fields(identifier))


@lru_cache(maxsize=1024)
def _identifier_fields(identifier: str) -> tuple[tuple[str, str], ...]:
    return tuple(json.loads(identifier).items())


def format_time(moment: datetime) -> str:
    """``metav1.Time``'s JSON: RFC 3339 in UTC, whole seconds."""
    return go_rfc3339(moment)


@lru_cache(maxsize=256)
def canonical_time(text: str) -> str:
    """A time as ``metav1.Time`` decodes and encodes it again (``format_time(parse_time(text))``);
    kept by text: an object's entries and a second's writes share a few."""
    return format_time(parse_time(text))


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _unix_seconds(time: str | None) -> int:
    return 0 if time is None else int(parse_time(time).timestamp())


def _decode_entry(index: int, entry: Mapping[str, Any]) -> tuple[str, VersionedSet, str | None]:
    operation = entry.get("operation") or ""
    if operation not in (APPLY, UPDATE):
        raise ManagedFieldsError("operation must be `Apply` or `Update`")
    api_version = entry.get("apiVersion") or ""
    if not api_version:
        raise ManagedFieldsError("apiVersion must not be empty")
    fields_type = entry.get("fieldsType") or ""
    if not fields_type:
        raise ManagedFieldsError(f"missing fieldsType in managed fields entry {index}")
    if fields_type != FIELDS_V1:
        raise ManagedFieldsError(f"invalid fieldsType {go_quote(fields_type)} in managed fields entry {index}")
    identifier = manager_identifier(entry.get("manager") or "", operation, api_version, entry.get("subresource") or "")
    try:
        fields = _decoded_fields(entry.get("fieldsV1") or {})
    except (ValueError, TypeError) as err:
        raise ManagedFieldsError(f"error decoding versioned set: error decoding set: {err}") from err
    time = entry.get("time")
    return identifier, VersionedSet(fields, api_version, operation == APPLY), (
        canonical_time(time) if time else None)


def _decoded_fields(fields: Any) -> FieldSet:
    """``FieldSet.from_fields``, each FieldsV1 decoded once: every update decodes the stored
    object's managedFields, and objects made from one template (a ReplicaSet's pods) have the
    same ones. Raises as ``from_fields``."""
    if not isinstance(fields, dict):
        return FieldSet.from_fields(fields)
    try:
        encoded = orjson.dumps(fields)
    except TypeError:  # orjson.JSONEncodeError: what JSON cannot hold (an integer past 64 bits)
        return FieldSet.from_fields(fields)
    return _fields_of_json(encoded)


@lru_cache(maxsize=256)
def _fields_of_json(encoded: bytes) -> FieldSet:
    """The set of a FieldsV1 document (``_decoded_fields``); bounded, the sets being large."""
    return FieldSet.from_fields(orjson.loads(encoded))


def decode_managed_fields(entries: Sequence[Mapping[str, Any]] | None) -> Managed:
    """``DecodeManagedFields``; a later entry with the same identifier replaces an earlier one."""
    managed = Managed()
    for index, entry in enumerate(entries or ()):
        if not isinstance(entry, Mapping):
            raise ManagedFieldsError(f"managed fields entry {index} is not an object")
        identifier, versioned, time = _decode_entry(index, entry)
        managed.fields[identifier] = versioned
        managed.times[identifier] = time
    return managed


def is_reset(entries: Sequence[Mapping[str, Any]] | None) -> bool:
    """``isResetManagedFields``: a client asks to drop all managedFields by sending ``[]`` or
    ``[{}]`` (one zero entry: empty strings and nulls; ``fieldsV1: {}`` is a value)."""
    if entries is None:
        return False
    return len(entries) == 0 or (len(entries) == 1 and all(value in (None, "") for value in entries[0].values()))


def _sort_key(entry: Mapping[str, Any]) -> tuple[str, int, str, str, str]:
    """``sortEncodedManagedFields``: operation, time in Unix seconds (none is 0), manager,
    apiVersion, subresource."""
    return (entry.get("operation", ""), _unix_seconds(entry.get("time")), entry.get("manager", ""),
            entry.get("apiVersion", ""), entry.get("subresource", ""))


def _encode_entry(identifier: str, versioned: VersionedSet, time: str | None) -> dict[str, Any]:
    """``encodeManagerVersionedSet``: a ``ManagedFieldsEntry`` in Go's field order, empty
    strings and a missing time omitted (``omitempty``)."""
    ident = parse_manager_identifier(identifier)
    entry = {"manager": ident.get("manager", ""),
             "operation": APPLY if versioned.applied else ident.get("operation", ""),
             "apiVersion": versioned.api_version, "time": time or "", "fieldsType": FIELDS_V1,
             "fieldsV1": versioned.set.to_fields(), "subresource": ident.get("subresource", "")}
    return {key: value for key, value in entry.items() if value != ""}


def encode_managed_fields(managed: Managed) -> list[dict[str, Any]] | None:
    """``encodeManagedFields``: ``None`` (no ``managedFields``) when nobody manages anything."""
    if not managed.fields:
        return None
    entries = [_encode_entry(identifier, versioned, managed.times.get(identifier))
               for identifier, versioned in managed.fields.items()]
    return sorted(entries, key=_sort_key)


def equal_but_managed_fields_times(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """Whether ``new`` is ``old`` with nothing changed but some managedFields timestamps
    (apiserver ``fieldmanager.IgnoreManagedFieldsTimestampsTransformer``: kube then puts the
    old timestamps back, so the write changes nothing and is skipped). Entries are compared
    pairwise, in order, as kube does; a differing entry count or no changed time is False."""
    new_meta, old_meta = new.get("metadata"), old.get("metadata")
    if not isinstance(new_meta, Mapping) or not isinstance(old_meta, Mapping):
        return False
    new_entries, old_entries = new_meta.get("managedFields"), old_meta.get("managedFields")
    if not new_entries or not isinstance(new_entries, list) or not isinstance(old_entries, list) \
            or len(new_entries) != len(old_entries):
        return False
    times_changed = False
    for new_entry, old_entry in zip(new_entries, old_entries):
        if not isinstance(new_entry, Mapping) or not isinstance(old_entry, Mapping):
            return False
        if new_entry.get("time") != old_entry.get("time"):
            times_changed = True
            if {**new_entry, "time": None} != {**old_entry, "time": None}:
                return False
        elif new_entry != old_entry:
            return False
    if not times_changed:
        return False
    return ({**new, "metadata": {**new_meta, "managedFields": None}}
            == {**old, "metadata": {**old_meta, "managedFields": None}})
