"""What a request is, parsed from its path and query (kube's ``RequestInfo``, k8s.io/apiserver
``pkg/endpoints/request/requestinfo.go``): for those who measure it, the metrics
(``MetricsMiddleware``) and the per-client report (``fakeapi.clients``), ``request_info``; for
the resource handlers, the served resource a path names (``parse_path``); for the authorizer,
kube's attributes of any request (``request_attributes``).

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
from urllib.parse import parse_qs, unquote_plus

from starlette.types import Scope

from ..auth.authentication import UserInfo
from ..auth.authorization import Attributes
from ..machinery.list_options import parse_bool
from ..machinery.path import is_valid_path_segment_name
from ..machinery.selectors import FieldSelector
from ..machinery.status import StatusError, not_found_path
from ..metrics.collector import RequestKey
from ..registry.create_only import CreateOnly
from ..registry.registry import Registry
from ..registry.rest import ResourceStore

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


class ResourceRequest:
    """A resource request's path, parsed once (kube's ``RequestInfo``): the stored resource it
    names (``served``), or the create-only one (``creater``: access reviews, bindings)."""

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


def parse_path(registry: Registry, group: str, version: str, rest: str) -> ResourceRequest:
    """``[namespaces/<ns>/]<plural>[/<name>[/<subresource>]]``."""
    parts = rest.split("/")
    if parts and not parts[-1]:
        parts.pop()  # a trailing slash routes as without
    if "" in parts:
        raise not_found_path()  # an empty segment matches no route
    namespace = None
    # namespaces/<ns>/status and /finalize are the namespace's own subresources, not a resource.
    namespace_subresource = group == "" and len(parts) >= 3 and parts[2] in ("status", "finalize")
    if len(parts) >= 3 and parts[0] == "namespaces" and not namespace_subresource:
        namespace, parts = parts[1], parts[2:]
    if not parts or len(parts) > 3:
        raise not_found_path()
    served = registry.resources.get((group, version, parts[0]))
    if served is None:
        creater = registry.create_only.get((group, version, parts[0]))
        # A create-only resource has one route: its collection, in its scope.
        resource_type = registry.catalogue.lookup(group, version, parts[0])
        if (creater is None or resource_type is None or len(parts) > 1
                or (namespace is not None) != resource_type.namespaced):
            raise not_found_path()
        return ResourceRequest(group, parts[0], None, namespace, None, None, creater)
    if namespace is not None and not served.resource_type.namespaced:
        raise not_found_path()
    if namespace is None and served.resource_type.namespaced and len(parts) > 1:
        raise not_found_path()  # across namespaces only a collection is served (list, watch)
    name = parts[1] if len(parts) > 1 else None
    sub = parts[2] if len(parts) > 2 else None
    return ResourceRequest(group, parts[0], served, namespace, name, sub)


#: kube's ``specialVerbs``, ``namespaceSubresources``.
_PATH_VERBS = ("proxy", "watch")
_NAMESPACE_SUBRESOURCES = ("status", "finalize")
_METHOD_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


def request_attributes(user: UserInfo, method: str, path: str, query_string: bytes) -> Attributes:
    """kube's ``RequestInfoFactory.NewRequestInfo`` as authorization attributes: ``/api`` and
    ``/apis`` paths with a version and a resource are resource requests (the verb from the
    method, ``list``/``watch``/``deletecollection`` without a name, ``proxy``/``watch`` path
    prefixes), anything else a non-resource request whose verb is the lower-cased method."""
    parts = [part for part in path.strip("/").split("/")] if path.strip("/") else []
    if len(parts) < 3 or parts[0] not in ("api", "apis"):
        return Attributes(user, method.lower(), False, path=path)
    prefix, parts = parts[0], parts[1:]
    group = ""
    if prefix == "apis":
        if len(parts) < 3:
            return Attributes(user, method.lower(), False, path=path)
        group, parts = parts[0], parts[1:]
    version, parts = parts[0], parts[1:]
    verb_from_path = parts[0] in _PATH_VERBS
    if verb_from_path:
        if len(parts) < 2:
            # kube answers "unable to determine kind and namespace": a non-resource request here
            return Attributes(user, method.lower(), False, path=path)
        verb, parts = parts[0], parts[1:]
    else:
        verb = _METHOD_VERBS.get(method, "")
    namespace = ""
    if parts[0] == "namespaces" and len(parts) > 1:
        namespace = parts[1]
        if len(parts) > 2 and parts[2] not in _NAMESPACE_SUBRESOURCES:
            parts = parts[2:]
    subresource = parts[2] if len(parts) >= 3 and verb != "proxy" else ""
    name = parts[1] if len(parts) >= 2 else ""
    resource = parts[0]
    if not name and verb == "get":
        verb, name = _list_or_watch(query_string)
    if not name and verb == "delete":
        verb = "deletecollection"
    return Attributes(user, verb, True, path=path, api_group=group, api_version=version, namespace=namespace,
                      resource=resource, subresource=subresource, name=name)


def _list_or_watch(query_string: bytes) -> tuple[str, str]:
    """A GET without a name: ``watch`` or ``list``, and the name a ``metadata.name`` field
    selector requires (kube authorizes such a request as one for that object)."""
    watch_value = field_selector = None
    if query_string:
        for part in query_string.decode("latin-1").split("&"):
            key, _, value = part.partition("=")
            if key == "watch" and watch_value is None:
                watch_value = unquote_plus(value)
            elif key == "fieldSelector" and field_selector is None:
                field_selector = unquote_plus(value)
    watch = parse_bool(watch_value) if watch_value is not None else False
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
