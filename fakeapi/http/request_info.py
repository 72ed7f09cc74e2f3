"""What a resource request is, parsed once where it enters (kube's ``RequestInfo``,
k8s.io/apiserver ``pkg/endpoints/request/requestinfo.go``), for those who measure it: the
metrics (``MetricsMiddleware``) and the per-client report (``fakeapi.clients``).

``verb`` is kube's: get, list, watch, create, update, patch, delete, deletecollection (a GET
without a name is list, or watch with ``watch`` set; a DELETE without one is
deletecollection). The metrics' labels (``key``) follow ``pkg/endpoints/metrics/metrics.go``
(``MonitorRequest``, ``CleanScope``, ``CanonicalVerb``, ``CleanVerb``, ``cleanDryRun``): the
verb is the HTTP method, except GET which is LIST unless one object is named (the path, or a
``metadata.name=`` field selector), WATCH when ``watch`` is set, APPLY for an apply patch,
CONNECT for the connect subresources; scope is ``resource`` for one named object or a create,
else ``namespace`` or ``cluster``. Only requests of served resources have one; discovery,
health and control endpoints do not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import parse_qs

from starlette.types import Scope

from ..machinery.status import StatusError
from ..metrics.collector import RequestKey
from ..registry.registry import Registry
from .resources import parse_path

APPLY_PATCH = "application/apply-patch+yaml"
#: kube's ``validConnectRequests``.
CONNECT_SUBRESOURCES = frozenset({"log", "exec", "portforward", "attach", "proxy"})
#: kube's verb by HTTP method, for a request naming one object and for one that does not.
_OBJECT_VERBS = {"GET": "get", "HEAD": "get", "POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}
_COLLECTION_VERBS = {"GET": "list", "HEAD": "list", "POST": "create", "DELETE": "deletecollection"}


class RequestInfo:
    """One resource request: kube's RequestInfo fields, its metric labels, its query."""

    __slots__ = ("key", "canonical_verb", "watch_list", "verb", "namespace", "name", "resource", "query")

    def __init__(self, key: RequestKey, canonical_verb: str, watch_list: bool, verb: str, namespace: str,
                 name: str, resource: str, query: dict[str, list[str]]) -> None:
        self.key = key
        self.canonical_verb = canonical_verb  # before CleanVerb: GET, LIST, POST, ...
        self.watch_list = watch_list  # a watch with sendInitialEvents=true
        self.verb = verb
        self.namespace = namespace  # "" for none
        self.name = name  # "" for none; a GET's may come from a metadata.name field selector
        #: ``plural[.group][/subresource]``, as kubectl names resources.
        self.resource = resource
        self.query = query  # parse_qs of the query string

    def query_value(self, name: str) -> str:
        """The first value of a query parameter ("" when absent)."""
        values = self.query.get(name)
        return values[0] if values else ""


def request_info(registry: Registry, scope: Scope) -> RequestInfo | None:
    """The request to a served resource ``scope`` is, or None for any other request."""
    parts = scope["path"].split("/", 4)
    if len(parts) < 4 or parts[0] != "":
        return None
    if parts[1] == "api":
        group, version, rest = "", parts[2], "/".join(parts[3:])
    elif parts[1] == "apis" and len(parts) == 5:
        group, version, rest = parts[2], parts[3], parts[4]
    else:
        return None
    try:
        req = parse_path(registry, group, version, rest)
    except StatusError:
        return None
    method: str = scope["method"]
    raw_query: bytes = scope["query_string"]
    query = parse_qs(raw_query.decode("latin-1")) if raw_query else {}
    name = req.name or ""
    if method == "GET" and not name:
        name = _name_from_field_selector(query.get("fieldSelector", ()))
    # CleanScope: a create is "resource" scoped too.
    create = method == "POST" and req.name is None
    scope_label = "resource" if name or create else "namespace" if req.namespace else "cluster"
    canonical = method
    if method in ("GET", "HEAD"):
        canonical = "GET" if scope_label == "resource" else "LIST"
    metric_verb = canonical
    watch = method == "GET" and query.get("watch", ["false"])[0].lower() not in ("0", "false")
    if watch:
        metric_verb = "WATCH"
    elif method == "PATCH" and _header(scope, b"content-type") == APPLY_PATCH:
        metric_verb = "APPLY"
    if req.subresource in CONNECT_SUBRESOURCES:
        metric_verb = "CONNECT"
    key = RequestKey(metric_verb, _dry_run(query.get("dryRun")), group, version, req.resource, req.subresource or "",
                     scope_label)
    watch_list = watch and query.get("sendInitialEvents", ["false"])[0] == "true"
    verb = "watch" if watch else (_OBJECT_VERBS if req.name else _COLLECTION_VERBS).get(method, method.lower())
    resource = f"{req.resource}.{group}" if group else req.resource
    if req.subresource:
        resource = f"{resource}/{req.subresource}"
    return RequestInfo(key, canonical, watch_list, verb, req.namespace or "", name, resource, query)


_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def go_query_string(query: bytes) -> bytes:
    """A query string as Go's ``url.ParseQuery`` leaves it: a pair with a malformed escape
    (``%zz``) or a semicolon is dropped (kube reads the rest)."""
    if b"%" not in query and b";" not in query:
        return query
    return b"&".join(pair for pair in query.split(b"&") if b";" not in pair and not _BAD_ESCAPE.search(pair))


def _name_from_field_selector(selectors: Sequence[str]) -> str:
    """The name a ``metadata.name=x`` (or ``==``) field selector requires, as RequestInfo reads it."""
    for selector in selectors:
        for term in selector.split(","):
            field, eq, value = term.partition("=")
            if eq and field.strip() == "metadata.name":
                return value.removeprefix("=").strip()
    return ""


def _dry_run(values: list[str] | None) -> str:
    """kube's ``cleanDryRun``: "" without dryRun, "invalid" for values other than All, else the
    sorted distinct values joined by commas."""
    if not values:
        return ""
    if any(v != "All" for v in values):
        return "invalid"
    return ",".join(sorted(set(values)))


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return ""
