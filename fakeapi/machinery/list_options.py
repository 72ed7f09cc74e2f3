"""``ListOptions`` of a LIST or WATCH request: parsed from the query once, validated like
kube-apiserver's ``ValidateListOptions`` (422 Invalid, kind ListOptions, group meta.k8s.io)."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .golang import go_parse_int64, go_quote
from .status import FieldError, bad_request, forbidden_error, invalid, not_supported_error

NOT_OLDER_THAN = "NotOlderThan"
EXACT = "Exact"

#: kube-apiserver's --min-request-timeout: a watch without timeoutSeconds lasts a random time in
#: [1800 s, 3600 s), so that clients do not all reconnect at once.
MIN_REQUEST_TIMEOUT = 1800.0


def parse_bool(value: str) -> bool:
    """A boolean query parameter as kube's query decoder reads it (``Convert_Slice_string_To_bool``):
    ``0``, ``f`` and ``false`` (any case) are false, anything else true."""
    return value != "0" and value.lower() not in ("f", "false")


def parse_int(value: str) -> int:
    """An int64 query parameter (``Convert_Slice_string_To_int64``): ``strconv.ParseInt``'s error
    is the 400, as kube sends it."""
    number = go_parse_int64(value)
    if number is None:
        problem = "value out of range" if re.fullmatch(r"[+-]?[0-9]+", value) else "invalid syntax"
        raise bad_request(f"strconv.ParseInt: parsing {go_quote(value)}: {problem}")
    return number


def parse_resource_version(text: str) -> tuple[int, str]:
    """A resourceVersion as the storage versioner parses it (``ParseResourceVersion``): the
    number, or 0 and its error (``resourceVersion: Invalid value: "x": strconv.ParseUint: ...``),
    which kube's handlers word their own way."""
    problem = ""
    if not (text.isascii() and text.isdigit()):
        problem = "invalid syntax"
    elif int(text) >= 1 << 64:
        problem = "value out of range"
    if problem:
        return 0, (f"resourceVersion: Invalid value: {go_quote(text)}: "
                   f"strconv.ParseUint: parsing {go_quote(text)}: {problem}")
    return int(text), ""


@dataclass(slots=True)
class ListOptions:
    label_selector: str = ""
    field_selector: str = ""
    watch: bool = False
    allow_watch_bookmarks: bool = False
    resource_version: str = ""
    resource_version_match: str = ""
    timeout_seconds: int | None = None
    limit: int = 0
    continue_token: str = ""
    send_initial_events: bool | None = None

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> ListOptions:
        """The options of a query; a parameter given twice counts with its first value, as
        kube's query decoder reads it (a Starlette ``QueryParams``' own lookup gives the last)."""
        getlist = getattr(query, "getlist", None)

        def first(name: str) -> str | None:
            if getlist is None:
                return query.get(name)
            values = getlist(name)
            return values[0] if values else None

        opts = cls(
            label_selector=first("labelSelector") or "",
            field_selector=first("fieldSelector") or "",
            resource_version=first("resourceVersion") or "",
            resource_version_match=first("resourceVersionMatch") or "",
            continue_token=first("continue") or "",
        )
        for name, attribute in (("watch", "watch"), ("allowWatchBookmarks", "allow_watch_bookmarks"),
                                ("sendInitialEvents", "send_initial_events")):
            value = first(name)
            if value is not None:
                setattr(opts, attribute, parse_bool(value))
        timeout = first("timeoutSeconds")
        if timeout:
            opts.timeout_seconds = parse_int(timeout)
        limit = first("limit")
        if limit:
            opts.limit = max(0, parse_int(limit))
        opts._set_defaults()
        return opts

    def _set_defaults(self) -> None:
        """kube's ``SetListOptionsDefaults`` (its LIST/WATCH and DELETE collection handlers, the
        WatchList feature on): a legacy watch (resourceVersion "" or "0", neither
        ``sendInitialEvents`` nor ``resourceVersionMatch``) is a watch list, so with bookmarks
        allowed its initial events end with the ``k8s.io/initial-events-end`` bookmark."""
        if self.watch and self.send_initial_events is None and not self.resource_version_match \
                and self.resource_version in ("", "0"):
            self.send_initial_events = True
            self.resource_version_match = NOT_OLDER_THAN

    def resource_version_number(self) -> int:
        """The explicit resourceVersion as an int: the storage versioner's
        ``strconv.ParseUint(rv, 10, 64)``, its error a 400 as the cacher's LIST words it."""
        number, problem = parse_resource_version(self.resource_version)
        if problem:
            raise bad_request(f"invalid resource version: {problem}")
        return number

    def watch_timeout(self) -> float:
        if self.timeout_seconds:
            return float(self.timeout_seconds)
        return MIN_REQUEST_TIMEOUT * (1 + random.random())

    def validate(self) -> None:
        """kube's ValidateListOptions (a watch's options by ``validateWatchOptions`` only);
        raises 422 Invalid with every violation."""
        causes: list[FieldError] = []
        match, field = self.resource_version_match, "resourceVersionMatch"
        if self.watch:
            if self.send_initial_events is not None and match != NOT_OLDER_THAN:
                causes.append(forbidden_error(field, f"sendInitialEvents requires setting {field} to {NOT_OLDER_THAN}"))
            if match:
                if self.send_initial_events is None:
                    causes.append(forbidden_error(field, f"{field} is forbidden for watch unless sendInitialEvents is provided"))
                if match != NOT_OLDER_THAN:
                    causes.append(not_supported_error(field, match, [NOT_OLDER_THAN]))
                if self.continue_token:
                    causes.append(forbidden_error(field, f"{field} is forbidden when continue is provided"))
        else:
            if match:
                if not self.resource_version:
                    causes.append(forbidden_error(field, f"{field} is forbidden unless resourceVersion is provided"))
                if self.continue_token:
                    causes.append(forbidden_error(field, f"{field} is forbidden when continue is provided"))
                if match not in (EXACT, NOT_OLDER_THAN):
                    causes.append(not_supported_error(field, match, [EXACT, NOT_OLDER_THAN, ""]))
                if match == EXACT and self.resource_version == "0":
                    causes.append(forbidden_error(field, f'{field} "exact" is forbidden for resourceVersion "0"'))
            if self.send_initial_events is not None:
                causes.append(forbidden_error("sendInitialEvents", "sendInitialEvents is forbidden for list"))
        if causes:
            raise invalid("meta.k8s.io", "ListOptions", "", causes)
        if self.continue_token and self.resource_version not in ("", "0"):
            raise bad_request("specifying resource version is not allowed when using continue")


__all__ = ["ListOptions", "NOT_OLDER_THAN", "EXACT", "parse_bool", "parse_int", "parse_resource_version"]
