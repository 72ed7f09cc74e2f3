"""Authentication, impersonation and authorization of every request, in kube-apiserver's filter
order (``DefaultBuildHandlerChain``): who the request is (``Registry.authenticator``: 401
``Unauthorized`` when nobody), whom it acts as (``Impersonate-*``), and whether that user may do
what it asks (``Registry.authorizer``: 403 ``Forbidden`` with kube's message) — before any
routing, so a request for something that does not exist is refused the same way.

What the request asks is kube's ``RequestInfo`` (``requestinfo.go``), parsed from the path and
query alone (``request_attributes``); it is built only when the authorizer can refuse something
(with ``AlwaysAllow`` a request costs a scan of its headers and a dict lookup). The user is
kept in the request's scope (``request_user``) and as the requester the strategies see
(``fakeapi.machinery.requester``).

A connection whose TLS handshake verified a client certificate carries its user in the scope
under ``CERTIFICATE_USER`` (set by the TLS server, ``fakeapi.http.tls``).
"""

from __future__ import annotations

from urllib.parse import unquote_plus

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ..machinery import requester
from ..machinery.list_options import parse_bool
from ..machinery.path import is_valid_path_segment_name
from ..machinery.selectors import FieldSelector
from ..machinery.status import StatusError
from ..auth.authentication import Authenticator, UserInfo
from ..auth.authorization import AlwaysAllow, Attributes, forbidden_error
from ..auth.impersonation import impersonate
from ..registry.registry import Registry
from .responses import status_response

#: Where the request's user is kept in its ASGI scope.
USER = "fakeapi.user"
#: Where a TLS connection's verified client certificate's user is kept (None: no certificate).
CERTIFICATE_USER = "fakeapi.certificate_user"
_UNAUTHORIZED = StatusError(401, "Unauthorized", "Unauthorized")
#: kube's ``specialVerbs``, ``namespaceSubresources``.
_PATH_VERBS = ("proxy", "watch")
_NAMESPACE_SUBRESOURCES = ("status", "finalize")
_METHOD_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


class AccessMiddleware:
    """Pure ASGI (a watch stream passes through untouched)."""

    def __init__(self, app: ASGIApp, registry: Registry) -> None:
        self.app = app
        self.authenticator = registry.authenticator
        self.authorizer = registry.authorizer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        authorization = b""
        impersonating = False
        for name, value in scope["headers"]:
            if name == b"authorization":
                authorization = authorization or value
            elif name.startswith(b"impersonate-"):
                impersonating = True
        user = self.authenticator.authenticate(authorization.decode("latin-1"), scope.get(CERTIFICATE_USER))
        try:
            if user is None:
                raise _UNAUTHORIZED
            authorizer = self.authorizer
            if impersonating:
                headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"]]
                user = impersonate(user, headers, authorizer)
            if not authorizer.always_allows:
                attributes = request_attributes(user, scope["method"], scope["path"], scope["query_string"])
                verdict = authorizer.authorize(attributes)
                if not verdict.allowed:
                    raise forbidden_error(attributes, verdict.reason)
        except StatusError as err:
            response = status_response(err)
            if err.code == 403:
                response.headers["X-Content-Type-Options"] = "nosniff"
            await response(scope, receive, send)
            return
        scope[USER] = user
        with requester.requesting(user.to_json):
            await self.app(scope, receive, send)


def acting_user(authenticator: Authenticator, scope: Scope) -> UserInfo | None:
    """Whom a request acts as (authenticated, then impersonated), for the filters kube runs
    before authorization (the in-flight limits exempt ``system:masters``); None when it
    authenticates as nobody or impersonates wrongly. Impersonation is not authorized here: the
    access middleware refuses what the requester may not impersonate."""
    headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"]]
    authorization = next((value for name, value in headers if name == "authorization"), "")
    user = authenticator.authenticate(authorization, scope.get(CERTIFICATE_USER))
    if user is None or not any(name.startswith("impersonate-") for name, _ in headers):
        return user
    try:
        return impersonate(user, headers, AlwaysAllow())
    except StatusError:
        return None


def request_user(request: Request) -> UserInfo:
    """The user ``request`` acts as (authenticated, then impersonated)."""
    return request.scope[USER]  # type: ignore[no-any-return]


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
