"""``ListOptions`` of a LIST or WATCH request: parsed from the query once, validated like
kube-apiserver's ``ValidateListOptions`` (422 Invalid, kind ListOptions, group meta.k8s.io)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from ._golang import go_quote
from .status import bad_request, invalid

NOT_OLDER_THAN = "NotOlderThan"
EXACT = "Exact"

#: kube-apiserver's --min-request-timeout: a watch without timeoutSeconds lasts a random time in
#: [1800 s, 3600 s), so that clients do not all reconnect at once.
MIN_REQUEST_TIMEOUT = 1800.0


def parse_bool(value: str, name: str) -> bool:
    """Go's strconv.ParseBool, which is what the apiserver's query decoder uses."""
    if value in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if value in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise bad_request(f'invalid value for {name}: strconv.ParseBool: parsing "{value}": invalid syntax')


def parse_int(value: str, name: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise bad_request(
            f'invalid value for {name}: strconv.ParseInt: parsing "{value}": invalid syntax'
        ) from None


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
        opts = cls(
            label_selector=query.get("labelSelector", ""),
            field_selector=query.get("fieldSelector", ""),
            resource_version=query.get("resourceVersion", ""),
            resource_version_match=query.get("resourceVersionMatch", ""),
            continue_token=query.get("continue", ""),
        )
        if "watch" in query:
            opts.watch = parse_bool(query["watch"], "watch")
        if "allowWatchBookmarks" in query:
            opts.allow_watch_bookmarks = parse_bool(query["allowWatchBookmarks"], "allowWatchBookmarks")
        if "sendInitialEvents" in query:
            opts.send_initial_events = parse_bool(query["sendInitialEvents"], "sendInitialEvents")
        if query.get("timeoutSeconds"):
            opts.timeout_seconds = parse_int(query["timeoutSeconds"], "timeoutSeconds")
        if query.get("limit"):
            opts.limit = max(0, parse_int(query["limit"], "limit"))
        return opts

    def resource_version_number(self) -> int:
        """The explicit resourceVersion as an int: the storage versioner's
        ``strconv.ParseUint(rv, 10, 64)``, its error a 400 as the cacher words it."""
        text = self.resource_version
        problem = ""
        if not (text.isascii() and text.isdigit()):
            problem = "invalid syntax"
        elif int(text) >= 1 << 64:
            problem = "value out of range"
        if problem:
            raise bad_request(f"invalid resource version: resourceVersion: Invalid value: {go_quote(text)}: "
                              f"strconv.ParseUint: parsing {go_quote(text)}: {problem}")
        return int(text)

    def watch_timeout(self) -> float:
        if self.timeout_seconds:
            return float(self.timeout_seconds)
        return MIN_REQUEST_TIMEOUT * (1 + random.random())

    def validate(self) -> None:
        """kube's ValidateListOptions; raises 422 Invalid with every violation."""
        causes: list[tuple[str, str, str]] = []
        match = self.resource_version_match
        if match and match not in (NOT_OLDER_THAN, EXACT):
            causes.append((
                "resourceVersionMatch", "FieldValueNotSupported",
                f'Unsupported value: "{match}": supported values: "{EXACT}", "{NOT_OLDER_THAN}", ""',
            ))
        if self.watch:
            if self.send_initial_events is not None:
                if match != NOT_OLDER_THAN:
                    causes.append((
                        "resourceVersionMatch", "FieldValueForbidden",
                        "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                    ))
            elif match:
                causes.append((
                    "resourceVersionMatch", "FieldValueForbidden",
                    "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                ))
            if match and match != NOT_OLDER_THAN and self.send_initial_events is not None:
                causes.append((
                    "resourceVersionMatch", "FieldValueNotSupported",
                    f'Unsupported value: "{match}": supported values: "{NOT_OLDER_THAN}"',
                ))
        else:
            if self.send_initial_events is not None:
                causes.append((
                    "sendInitialEvents", "FieldValueForbidden",
                    "Forbidden: sendInitialEvents is forbidden for list",
                ))
            if match:
                if not self.resource_version:
                    causes.append((
                        "resourceVersionMatch", "FieldValueForbidden",
                        "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
                    ))
                if self.continue_token:
                    causes.append((
                        "resourceVersionMatch", "FieldValueForbidden",
                        "Forbidden: resourceVersionMatch is forbidden when continue is provided",
                    ))
                if match == EXACT and self.resource_version == "0":
                    causes.append((
                        "resourceVersionMatch", "FieldValueForbidden",
                        'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
                    ))
        if causes:
            raise invalid("meta.k8s.io", "ListOptions", "", causes)
        if self.continue_token and self.resource_version not in ("", "0"):
            raise bad_request("specifying resource version is not allowed when using continue")


__all__ = ["ListOptions", "NOT_OLDER_THAN", "EXACT", "parse_bool"]
