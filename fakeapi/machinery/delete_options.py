"""``metav1.DeleteOptions`` from a DELETE's body and query (``handlers/delete.go``), validated as
``ValidateDeleteOptions`` does."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from . import gostruct, serializer
from .gojson import GoJSONError
from .list_options import parse_bool, parse_int
from .status import bad_request, invalid

FOREGROUND = "Foreground"
BACKGROUND = "Background"
ORPHAN = "Orphan"
_POLICIES = (FOREGROUND, BACKGROUND, ORPHAN)


@dataclass(frozen=True, slots=True)
class DeleteOptions:
    grace_period_seconds: int | None = None
    propagation_policy: str | None = None
    precondition_uid: str | None = None
    precondition_resource_version: str | None = None
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        """``meta.k8s.io/v1`` ``DeleteOptions`` as kube encodes them (Go's field order; what was
        not given is left out), as admission webhooks are sent them."""
        out: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}
        if self.grace_period_seconds is not None:
            out["gracePeriodSeconds"] = self.grace_period_seconds
        preconditions = {key: value for key, value in (("uid", self.precondition_uid),
                                                       ("resourceVersion", self.precondition_resource_version))
                         if value is not None}
        if preconditions:
            out["preconditions"] = preconditions
        if self.propagation_policy is not None:
            out["propagationPolicy"] = self.propagation_policy
        if self.dry_run:
            out["dryRun"] = ["All"]
        return out

    @classmethod
    def parse(cls, body: Any, query: Mapping[str, str]) -> DeleteOptions:
        """kube's delete handler: the options are the body's when it has one (decoded already,
        ``from_body``), else the query's (``Convert_Slice_string_To_*``: a bad number is
        ``strconv.ParseInt``'s 400, any boolean but false is true); then ``ValidateDeleteOptions``."""
        if body is not None:
            options = body
            dry_run = options.get("dryRun") or []
        else:
            options = {key: query[key] for key in ("gracePeriodSeconds", "propagationPolicy", "orphanDependents")
                       if key in query}
            if "gracePeriodSeconds" in options:
                options["gracePeriodSeconds"] = parse_int(options["gracePeriodSeconds"])
            if "orphanDependents" in options:
                options["orphanDependents"] = parse_bool(options["orphanDependents"])
            dry_run = query.getlist("dryRun") if hasattr(query, "getlist") else ([query["dryRun"]] if "dryRun" in query else [])
        preconditions = options.get("preconditions") or {}
        grace = options.get("gracePeriodSeconds")
        policy = options.get("propagationPolicy")
        orphan = options.get("orphanDependents")
        errors = []
        if orphan is not None:
            if policy is not None:
                errors.append(("propagationPolicy", "FieldValueInvalid",
                               f'Invalid value: "{policy}": orphanDependents and deletionPropagation cannot be both set'))
            policy = ORPHAN if orphan else BACKGROUND
        if policy is not None and policy not in _POLICIES:
            errors.append(("propagationPolicy", "FieldValueNotSupported",
                           f'Unsupported value: "{policy}": supported values: "Foreground", "Background", "Orphan", "nil"'))
        if any(value != "All" for value in dry_run):
            errors.append(("dryRun", "FieldValueNotSupported",
                           f'Unsupported value: {orjson.dumps(dry_run).decode()}: supported values: "All"'))
        if errors:
            raise invalid("meta.k8s.io", "DeleteOptions", "", errors)
        return cls(
            grace_period_seconds=grace,
            propagation_policy=policy,
            precondition_uid=preconditions.get("uid"),
            precondition_resource_version=preconditions.get("resourceVersion"),
            dry_run=bool(dry_run),
        )


def from_body(value: Any, raw: bytes) -> dict[str, Any]:
    """A DELETE's body as kube's delete handler decodes it into ``DeleteOptions`` (any group's:
    the kind must be DeleteOptions), errors bare as it sends them."""
    try:
        _group, _version, kind = serializer.interpret(value)
    except GoJSONError as err:
        raise bad_request(f"couldn't get version/kind; json parse error: {err}") from None
    except ValueError as err:
        raise bad_request(str(err)) from None
    if kind and kind != "DeleteOptions":
        api_version = value.get("apiVersion", "")
        raise bad_request(f'no kind "{kind}" is registered for version "{api_version}" in scheme "pkg/runtime/scheme.go:111"')
    try:
        return gostruct.decode_meta(value, "DeleteOptions")
    except gostruct.GoDecodeError as err:
        raise bad_request(str(err)) from None
