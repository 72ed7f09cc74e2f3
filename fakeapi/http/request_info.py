"""What a request is, parsed once where it enters (kube's ``RequestInfo``, k8s.io/apiserver
``pkg/endpoints/request/requestinfo.go``, built by ``filters/requestinfo.go``'s
``WithRequestInfo``): ``RequestInfoFilter``, outermost but for panic recovery, keeps it in the
request's ASGI scope (``REQUEST_INFO``), and every later filter and handler reads it from there:
the metrics and the per-client report (``MetricsMiddleware``), the deadline and in-flight limits,
authorization (``AccessMiddleware``), the request faults and the resource handlers. The path is
split once and the query string parsed once (``query``, a Starlette ``QueryParams``); nobody
parses either again.

Every request has one. Its kube fields (``RequestInfoFactory.NewRequestInfo``): ``/api`` and
``/apis`` paths with a version and a resource are resource requests (the verb from the method,
``list``/``watch``/``deletecollection`` without a name, ``proxy``/``watch`` path prefixes, a
``metadata.name`` field selector naming the object of a list or watch), anything else a
non-resource request whose verb is the lower-cased method. ``verb`` is kube's: get, list, watch,
create, update, patch, delete, deletecollection.

A resource request for what the registry serves also has ``served`` (``ResourceRequest``: the
stored or create-only resource it names, the path's namespace, name and subresource as the
handlers route them; None for any other request, which the handlers answer 404), and its
metrics' labels (``key``), which follow ``pkg/endpoints/metrics/metrics.go`` (``MonitorRequest``,
``CleanScope``, ``CanonicalVerb``, ``CleanVerb``, ``cleanDryRun``): the verb is the HTTP method,
except GET which is LIST unless one object is named (the path, or a ``metadata.name=`` field
selector), WATCH for a watch, APPLY for an apply patch, CONNECT for the connect subresources;
scope is ``resource`` for one named object or a create, else ``namespace`` or ``cluster``.
Discovery, health and control endpoints have none: they are not measured.

A query parameter given twice counts with its first value (an empty one too), as kube's filters
read it (Go's ``url.Values.Get``, ``query_value``); the handlers read ``query`` as they always
have.
"""

from __future__ import annotations

import re

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ..machinery.list_options import parse_bool
from ..machinery.path import is_valid_path_segment_name
from ..machinery.selectors import FieldSelector
from ..machinery.status import StatusError
from ..metrics.collector import RequestKey
from ..registry.create_only import CreateOnly
from ..registry.registry import Registry
from ..registry.rest import ResourceStore

#: Where a request's ``RequestInfo`` is kept in its ASGI scope.
REQUEST_INFO = "fakeapi.request_info"
APPLY_PATCH = "application/apply-patch+yaml"
#: kube's ``validConnectRequests``.
CONNECT_SUBRESOURCES = frozenset({"log", "exec", "portforward", "attach", "proxy"})
#: kube's ``specialVerbs``, ``namespaceSubresources``.
_PATH_VERBS = ("proxy", "watch")
_NAMESPACE_SUBRESOURCES = ("status", "finalize")
#: kube's verb of a resource request by HTTP method (another method's is "").
_METHOD_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


class ResourceRequest:
    """The resource a request's path names as the handlers route it: the stored resource
    (``served``), or the create-only one (``creater``: access reviews, bindings)."""

    __slots__ = ("group", "resource", "served", "creater", "namespace", "name", "subresource")

    def __init__(self, group: str, resource: str, served: ResourceStore | None, namespace: str | None, name: str | None,
                 subresource: str | None, creater: CreateOnly | None = None):
        self.group = group
        self.resource = resource
        self.served = served
        self.creater = creater
        self.namespace = namespace
        self.name = name
        self.subresource = subresource


class RequestInfo:
    """One request, as the module doc tells."""

    __slots__ = ("method", "path", "query", "resource_request", "verb", "api_group", "api_version", "namespace",
                 "resource", "subresource", "name", "served", "key", "canonical_verb", "watch_list",
                 "group_resource")

    def __init__(self, method: str, path: str, query: QueryParams) -> None:
        self.method = method
        self.path = path
        self.query = query
        self.resource_request = False
        self.verb = method.lower()
        self.api_group = ""
        self.api_version = ""
        self.namespace = ""
        self.resource = ""
        self.subresource = ""
        self.name = ""  # a list's or watch's may come from a metadata.name field selector
        self.served: ResourceRequest | None = None
        # The metrics' and the client report's, for a request of a served resource only:
        self.key: RequestKey | None = None
        self.canonical_verb = ""  # before CleanVerb: GET, LIST, POST, ...
        self.watch_list = False  # a watch with sendInitialEvents=true
        #: ``plural[.group][/subresource]``, as kubectl names resources.
        self.group_resource = ""

    def query_value(self, name: str) -> str:
        """The first value of a query parameter ("" when absent), as Go's ``url.Values.Get``."""
        values = self.query.getlist(name)
        return values[0] if values else ""


class RequestInfoFilter:
    """kube's ``WithRequestInfo``, pure ASGI: the query string as Go reads it
    (``go_query_string``), then the request's ``RequestInfo`` in its scope."""

    def __init__(self, app: ASGIApp, registry: Registry) -> None:
        self.app = app
        self.registry = registry

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope["query_string"] = go_query_string(scope["query_string"])
            scope[REQUEST_INFO] = request_info(self.registry, scope)
        await self.app(scope, receive, send)


def request_info_of(scope: Scope) -> RequestInfo:
    """The ``RequestInfo`` ``RequestInfoFilter`` kept in a request's scope."""
    return scope[REQUEST_INFO]  # type: ignore[no-any-return]


def request_query(request: Request) -> QueryParams:
    """A request's query, parsed once where it entered (its ``RequestInfo``'s)."""
    return request_info_of(request.scope).query


def request_info(registry: Registry, scope: Scope) -> RequestInfo:
    """What the request ``scope`` is (see the module doc)."""
    method: str = scope["method"]
    path: str = scope["path"]
    query_string = scope["query_string"]
    info = RequestInfo(method, path, QueryParams(query_string) if query_string else _NO_QUERY)
    segments = path.split("/")
    if not _resource_fields(info, _trimmed(segments)):
        return info
    # The handlers' routes: /api/<version>/<rest> and /apis/<group>/<version>/<rest>.
    if segments[0] or len(segments) < 4:
        return info
    if segments[1] == "api":
        served = parse_path(registry, "", segments[2], segments[3:])
    elif segments[1] == "apis" and len(segments) >= 5:
        served = parse_path(registry, segments[2], segments[3], segments[4:])
    else:
        return info
    if served is not None:
        _measured(info, served, scope)
    return info


def _trimmed(segments: list[str]) -> list[str]:
    """The path's segments without the empty ones at either end (``strings.Trim(path, "/")``)."""
    start, end = 0, len(segments)
    while start < end and not segments[start]:
        start += 1
    while end > start and not segments[end - 1]:
        end -= 1
    return segments[start:end]


def _resource_fields(info: RequestInfo, parts: list[str]) -> bool:
    """``NewRequestInfo``'s fields of a resource request; False (and nothing set) for a
    non-resource request."""
    if len(parts) < 3 or parts[0] not in ("api", "apis"):
        return False
    prefix, parts = parts[0], parts[1:]
    group = ""
    if prefix == "apis":
        if len(parts) < 3:
            return False
        group, parts = parts[0], parts[1:]
    version, parts = parts[0], parts[1:]
    if parts[0] in _PATH_VERBS:
        if len(parts) < 2:
            # kube answers "unable to determine kind and namespace": a non-resource request here
            return False
        verb, parts = parts[0], parts[1:]
    else:
        verb = _METHOD_VERBS.get(info.method, "")
    namespace = ""
    if parts[0] == "namespaces" and len(parts) > 1:
        namespace = parts[1]
        if len(parts) > 2 and parts[2] not in _NAMESPACE_SUBRESOURCES:
            parts = parts[2:]
    info.subresource = parts[2] if len(parts) >= 3 and verb != "proxy" else ""
    name = parts[1] if len(parts) >= 2 else ""
    info.resource = parts[0]
    if not name and verb == "get":
        verb, name = _list_or_watch(info.query)
    if not name and verb == "delete":
        verb = "deletecollection"
    info.resource_request = True
    info.verb = verb
    info.api_group = group
    info.api_version = version
    info.namespace = namespace
    info.name = name
    return True


def _list_or_watch(query: QueryParams) -> tuple[str, str]:
    """A GET without a name: ``watch`` or ``list``, and the name a ``metadata.name`` field
    selector requires (kube authorizes such a request as one for that object)."""
    watch_values = query.getlist("watch")
    watch = parse_bool(watch_values[0]) if watch_values else False
    selectors = query.getlist("fieldSelector")
    field_selector = selectors[0] if selectors else ""
    try:
        # Only a selector on metadata.name can name the object: others are not parsed here.
        selector = FieldSelector.parse(field_selector) if field_selector and "metadata.name" in field_selector else None
    except StatusError:
        return ("watch" if watch else "list"), ""  # kube's query decoding failed: no name
    name = ""
    if selector is not None:
        for requirement in selector.requirements:
            if requirement.field == "metadata.name" and requirement.equal:
                if not is_valid_path_segment_name(requirement.value):
                    name = requirement.value
                break
    return ("watch" if watch else "list"), name


def _measured(info: RequestInfo, served: ResourceRequest, scope: Scope) -> None:
    """The fields of a request of a served resource: ``served``, its metrics' labels."""
    info.served = served
    method = info.method
    # CleanScope: a create is "resource" scoped too.
    scope_label = "resource" if info.name or info.verb == "create" else "namespace" if info.namespace else "cluster"
    canonical = method
    if method in ("GET", "HEAD"):
        canonical = "GET" if scope_label == "resource" else "LIST"
    metric_verb = canonical
    watch = info.verb == "watch"
    if watch:
        metric_verb = "WATCH"
    elif method == "PATCH" and _header(scope, b"content-type") == APPLY_PATCH:
        metric_verb = "APPLY"
    subresource = served.subresource or ""
    if subresource in CONNECT_SUBRESOURCES:
        metric_verb = "CONNECT"
    info.key = RequestKey(metric_verb, _dry_run(info.query.getlist("dryRun")), served.group, info.api_version,
                          served.resource, subresource, scope_label)
    info.canonical_verb = canonical
    info.watch_list = watch and info.query_value("sendInitialEvents") == "true"
    resource = f"{served.resource}.{served.group}" if served.group else served.resource
    info.group_resource = f"{resource}/{subresource}" if subresource else resource


def parse_path(registry: Registry, group: str, version: str, parts: list[str]) -> ResourceRequest | None:
    """``[namespaces/<ns>/]<plural>[/<name>[/<subresource>]]`` (the path's segments after the
    version); None where no handler serves the path (the handlers' 404)."""
    if parts and not parts[-1]:
        parts = parts[:-1]  # a trailing slash routes as without
    if "" in parts:
        return None  # an empty segment matches no route
    namespace = None
    # namespaces/<ns>/status and /finalize are the namespace's own subresources, not a resource.
    namespace_subresource = group == "" and len(parts) >= 3 and parts[2] in ("status", "finalize")
    if len(parts) >= 3 and parts[0] == "namespaces" and not namespace_subresource:
        namespace, parts = parts[1], parts[2:]
    if not parts or len(parts) > 3:
        return None
    served = registry.resources.get((group, version, parts[0]))
    if served is None:
        creater = registry.create_only.get((group, version, parts[0]))
        # A create-only resource has one route: its collection, in its scope.
        resource_type = registry.catalogue.lookup(group, version, parts[0]) if creater is not None else None
        if (creater is None or resource_type is None or len(parts) > 1
                or (namespace is not None) != resource_type.namespaced):
            return None
        return ResourceRequest(group, parts[0], None, namespace, None, None, creater)
    if namespace is not None and not served.resource_type.namespaced:
        return None
    if namespace is None and served.resource_type.namespaced and len(parts) > 1:
        return None  # across namespaces only a collection is served (list, watch)
    name = parts[1] if len(parts) > 1 else None
    sub = parts[2] if len(parts) > 2 else None
    return ResourceRequest(group, parts[0], served, namespace, name, sub)


#: The query of every request without one: parsing nothing costs as much as a short query, and
#: a ``QueryParams`` is immutable.
_NO_QUERY = QueryParams()
_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def go_query_string(query: bytes) -> bytes:
    """A query string as Go's ``url.ParseQuery`` leaves it: a pair with a malformed escape
    (``%zz``) or a semicolon is dropped (kube reads the rest)."""
    if b"%" not in query and b";" not in query:
        return query
    return b"&".join(pair for pair in query.split(b"&") if b";" not in pair and not _BAD_ESCAPE.search(pair))


def _dry_run(values: list[str]) -> str:
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
