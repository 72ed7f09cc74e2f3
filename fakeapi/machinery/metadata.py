"""Server-owned metadata: what kube-apiserver's ``BeforeCreate``/``BeforeUpdate`` and the
generic store set or keep (``rest/create.go``, ``rest/update.go``, ``names/generate.go``)."""

from __future__ import annotations

import re
import secrets
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from .status import bad_request, invalid

#: apimachinery's util/rand alphabet (no vowels, no confusable characters).
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_GENERATED_SUFFIX = 5
_MAX_NAME = 63
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")

#: Fields a client may not set on create: the server owns them.
_SERVER_OWNED = ("uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
                 "deletionGracePeriodSeconds", "selfLink", "generation")
#: Fields an update keeps from the stored object.
_KEPT_ON_UPDATE = ("creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds")


#: ``metav1.ObjectMeta``'s fields in struct order, as Go writes them.
OBJECT_META_FIELDS = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
                      "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                      "annotations", "ownerReferences", "finalizers", "managedFields")


#: ObjectMeta's pointer fields: printed whenever set, zero or not.
_POINTERS = frozenset(("deletionTimestamp", "deletionGracePeriodSeconds"))


def go_object_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` as Go writes an ``ObjectMeta``: fields in struct order, empty ones omitted
    (``omitempty``; a set pointer always prints), labels and annotations sorted by key."""
    ordered = {}
    for key in OBJECT_META_FIELDS:
        value = meta.get(key)
        if value is None or (not value and key not in _POINTERS):
            continue
        ordered[key] = dict(sorted(value.items())) if key in ("labels", "annotations") else value
    return ordered


_now_text: tuple[int, str] = (-1, "")


def now_rfc3339() -> str:
    """The time now at metav1.Time's one-second precision; formatted once per second (a
    write reads it for its timestamps and managedFields entries, a burst of writes many times)."""
    global _now_text
    second = int(time.time())
    if _now_text[0] != second:
        _now_text = (second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return _now_text[1]


def rfc3339_in(seconds: int, since: str | None = None) -> str:
    """``since`` (now if None) moved by ``seconds``, at metav1.Time's one-second precision."""
    start = datetime.now(UTC) if since is None else datetime.strptime(since, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return datetime.fromtimestamp(int(start.timestamp()) + seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def generate_name(prefix: str) -> str:
    """``names.SimpleNameGenerator``: prefix cut to leave room, plus 5 random characters."""
    if len(prefix) > _MAX_NAME - _GENERATED_SUFFIX:
        prefix = prefix[: _MAX_NAME - _GENERATED_SUFFIX]
    return prefix + "".join(secrets.choice(_NAME_ALPHABET) for _ in range(_GENERATED_SUFFIX))


def validate_name(group: str, kind: str, name: str) -> None:
    """Object names must be DNS-1123 subdomains (the rule most built-in kinds use)."""
    problems = []
    if len(name) > 253:
        problems.append("must be no more than 253 characters")
    if not _DNS1123_SUBDOMAIN.match(name):
        problems.append(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        )
    if problems:
        raise invalid(group, kind, name, [
            ("metadata.name", "FieldValueInvalid", f'Invalid value: "{name}": {p}') for p in problems
        ])


def ordered(obj: dict[str, Any], kind: str, api_version: str) -> dict[str, Any]:
    """The object with apiVersion, kind and metadata first, the order kube-apiserver emits."""
    out: dict[str, Any] = {"kind": kind, "apiVersion": api_version, "metadata": obj.get("metadata", {})}
    for k, v in obj.items():
        if k not in out:
            out[k] = v
    return out


def check_type(obj: Any, kind: str, api_version: str, *, custom: bool = False) -> dict[str, Any]:
    """The body must be an object of this resource's kind and version (kube: 400 BadRequest); a
    custom resource's kind is checked by its validation."""
    if not isinstance(obj, dict):
        raise bad_request("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml")
    body_kind = obj.get("kind")
    body_version = obj.get("apiVersion")
    if body_kind and body_kind != kind and not custom:
        raise bad_request(f"the kind in the data ({body_kind}) does not match the expected kind ({kind})")
    if body_version and body_version != api_version:
        raise bad_request(
            f"the API version in the data ({body_version}) does not match the expected API version ({api_version})"
        )
    if not custom and obj.get("metadata") is not None and not isinstance(obj["metadata"], dict):
        return obj  # decoding into the Go struct refuses it with Go's message
    return with_metadata(obj)


def with_metadata(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with a ``metadata`` object (an empty one if it had none)."""
    meta = obj.get("metadata")
    if meta is None:
        obj["metadata"] = {}
    elif not isinstance(meta, dict):
        raise bad_request("metadata must be an object")
    return obj


def prepare_create(meta: dict[str, Any], namespace: str | None) -> None:
    """Fill in server-owned fields of a new object (name generation happens at the caller,
    which retries on collisions)."""
    for field in _SERVER_OWNED:
        meta.pop(field, None)
    if namespace is None:
        meta.pop("namespace", None)
    else:
        meta["namespace"] = namespace
    meta["uid"] = str(uuid.uuid4())
    meta["creationTimestamp"] = now_rfc3339()
    drop_empty(meta)


def prepare_update(meta: dict[str, Any], old_meta: dict[str, Any], namespace: str | None) -> None:
    # BeforeUpdate: the stored uid stands in for a missing one only; another is the update's
    # validation error (``field is immutable``).
    if not meta.get("uid") and "uid" in old_meta:
        meta["uid"] = old_meta["uid"]
    for field in _KEPT_ON_UPDATE:
        if field in old_meta:
            meta[field] = old_meta[field]
        else:
            meta.pop(field, None)
    meta.pop("selfLink", None)
    if namespace is None:
        meta.pop("namespace", None)
    else:
        meta["namespace"] = namespace
    if "generation" in old_meta:
        meta["generation"] = old_meta["generation"]
    else:
        meta.pop("generation", None)
    drop_empty(meta)


#: ObjectMeta's collections, all ``omitempty``: an empty one is not stored (as kube's Go structs
#: drop them when they encode).
_OMITTED_WHEN_EMPTY = ("labels", "annotations", "finalizers", "ownerReferences", "managedFields")


def drop_empty(meta: dict[str, Any]) -> None:
    for field in _OMITTED_WHEN_EMPTY:
        if field in meta and not meta[field]:
            del meta[field]


def check_namespace(meta: dict[str, Any], namespace: str | None) -> None:
    """``EnsureObjectNamespaceMatchesRequestNamespace``: an object without a namespace gets the
    request's (admission sees it)."""
    body_ns = meta.get("namespace")
    if namespace is not None and body_ns and body_ns != namespace:
        raise bad_request("the namespace of the provided object does not match the namespace sent on the request")
    if namespace and not body_ns:
        meta["namespace"] = namespace
