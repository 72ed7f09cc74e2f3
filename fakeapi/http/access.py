"""Authentication, impersonation and authorization of every request, in kube-apiserver's filter
order (``DefaultBuildHandlerChain``): who the request is (``Registry.authenticator``: 401
``Unauthorized`` when nobody), whom it acts as (``Impersonate-*``), and whether that user may do
what it asks (``Registry.authorizer``: 403 ``Forbidden`` with kube's message) — before any
routing, so a request for something that does not exist is refused the same way.

What the request asks is its ``RequestInfo`` (``request_info``: kube's ``requestinfo.go``, parsed
once where the request entered), as the authorizer's attributes (``request_attributes``); they are
made only when the authorizer can refuse something (with ``AlwaysAllow`` a request costs a scan of
its headers and a dict lookup). The user is
kept in the request's scope (``request_user``) and as the requester the strategies see
(``fakeapi.machinery.requester``).

A connection whose TLS handshake verified a client certificate carries its user in the scope
under ``CERTIFICATE_USER`` (set by the server that accepts the connections, ``fakeapi.http.serving``).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..machinery import requester, warning
from ..machinery.status import StatusError
from ..auth.authentication import Authenticator, UserInfo
from ..auth.authorization import AlwaysAllow, Attributes, forbidden_error
from ..auth.impersonation import impersonate
from ..registry.registry import Registry
from .request_info import RequestInfo, request_info_of
from .responses import status_response

#: Where the request's user is kept in its ASGI scope.
USER = "fakeapi.user"
#: Where a TLS connection's verified client certificate's user is kept (None: no certificate).
CERTIFICATE_USER = "fakeapi.certificate_user"
_UNAUTHORIZED = StatusError(401, "Unauthorized", "Unauthorized")


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
        if authorization:
            # The warnings authenticating a token earned (a legacy one's) lead the response's.
            with warning.recording() as warnings:
                user = self.authenticator.authenticate(authorization.decode("latin-1"), scope.get(CERTIFICATE_USER))
            if warnings:
                send = _warning_sender(send, warnings)
        else:
            user = self.authenticator.authenticate("", scope.get(CERTIFICATE_USER))
        try:
            if user is None:
                raise _UNAUTHORIZED
            authorizer = self.authorizer
            if impersonating:
                headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"]]
                user = impersonate(user, headers, authorizer)
            if not authorizer.always_allows:
                attributes = request_attributes(user, request_info_of(scope))
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


def _warning_sender(send: Send, warnings: list[str]) -> Send:
    """``send`` with ``Warning`` headers of ``warnings`` before the response's own."""
    headers = [(b"warning", value.encode()) for value in warnings]

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*headers, *message.get("headers", ())]}
        await send(message)
    return sending


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


def request_attributes(user: UserInfo, info: RequestInfo) -> Attributes:
    """What ``user`` asks by the request ``info`` is, as the authorizer reads it
    (``GetAuthorizerAttributes``): a resource request's verb, group, version, resource,
    subresource, namespace and name; a non-resource request's verb and path."""
    if not info.resource_request:
        return Attributes(user, info.verb, False, path=info.path)
    return Attributes(user, info.verb, True, path=info.path, api_group=info.api_group, api_version=info.api_version,
                      namespace=info.namespace, resource=info.resource, subresource=info.subresource, name=info.name)
