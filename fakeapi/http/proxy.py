"""kube-aggregator's proxy (``kube-aggregator/pkg/apiserver/handler_proxy.go``): a request for the
group version of a service-backed APIService is passed to that service's server over HTTPS, after
fakeapi authenticated and authorized it, as kube-apiserver passes it.

* Refused here, with Go's ``http.Error`` (text, 503): an APIService whose ``Available``
  condition is not True (``service unavailable``), and a backend that cannot be found (the same:
  kube logs the resolver's error and answers that). A backend that cannot be reached or fails
  before its answer is 503 ``error trying to reach service: <Go's error>`` (apimachinery's
  proxy ``Transport``, written by the aggregator's ``responder.Error``).
* To the backend: the method, the path, the query re-encoded as Go's ``url.Values.Encode``
  writes it (keys sorted), the body streamed as sent, and the client's headers but the
  hop-by-hop ones, those the authentication and impersonation filters consumed
  (``Authorization``, ``Impersonate-*``) and any ``X-Remote-*``; then the authenticating proxy's
  headers naming the user (``X-Remote-User``, ``X-Remote-Uid``, one ``X-Remote-Group`` per group,
  ``X-Remote-Extra-<key>`` per value: ``transport.SetAuthProxyHeaders``), the request's
  audit ID (``AUDIT_ID``: the client's ``Audit-ID``, else a new one), ``X-Forwarded-For`` (Go's
  ``httputil.ReverseProxy``), and ``X-Forwarded-Uri`` (the path, cleaned), ``-Host`` (the
  backend's address) and ``-Proto`` (``https``), which apimachinery's proxy ``Transport`` adds.
* Where the backend is (``BackendResolver``): an ExternalName Service's name, else one of the
  Service's ready endpoints (kube's resolver with ``--enable-aggregator-routing``: fakeapi's
  cluster IPs lead nowhere), as the availability controller finds it. Its certificate is verified
  against the APIService's ``caBundle`` for the name ``<service>.<namespace>.svc``, or not at all
  with ``insecureSkipTLSVerify``; the front proxy's client certificate is presented when the
  server has one (``fakeapi serve --tls``).
* Back to the client: the backend's status, headers (but the hop-by-hop and CORS ones) and
  body, streamed chunk by chunk as they come (a watch stays open as long as the backend's),
  never read whole; but a redirect (a 3xx with a ``Location``), which kube-aggregator refuses
  to pass on (``--aggregator-reject-forwarding-redirect``, on by default): 502 ``the backend
  attempted to redirect this request, which is not permitted``. The ``Location`` of other
  answers is passed as it came: apimachinery's proxy ``Transport`` would rewrite a URL of the
  backend's host, but the aggregator gives it an empty scheme, host and path prefix, with
  which the rewrite leaves every URL as it is.
* An upgrade request (``Connection: Upgrade``: ``exec``, ``attach``, ``portforward`` over SPDY
  or WebSocket, KubeVirt's consoles) goes as apimachinery's ``UpgradeAwareHandler`` sends it:
  on a connection of its own (verified as above), as the client sent it (its hop-by-hop headers
  too) with ``Host`` the backend's address and the same user headers, ``Audit-Id`` and
  ``X-Forwarded-For``. A ``101`` takes the client's connection (``fakeapi.http.upgrades``) and
  splices it to the backend's until either ends; a refusal (400 and above) is copied to the
  client's connection as it came, which then ends; any other answer is 503 ``invalid upgrade
  response: status code N``, a backend that cannot be dialed 503 ``error dialing backend:
  ...``.
  A discovery request (``/apis/<group>/<version>``) has 5 s to be answered, as kube's
  ``NewRequestForProxy`` gives it. A request that is not long-running (not a watch) has the
  server's deadline, as every request in kube's filter chain: ``--request-timeout`` or its
  ``timeout`` parameter (a malformed one is kube's 400), past which it is kube's 504 if the
  backend has not answered yet, or its answer is cut. Each call waits on the event loop, so a
  slow or gone backend costs only the requests routed to it.
"""

from __future__ import annotations

import asyncio
import math
import posixpath
import random
import ssl
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import orjson
from starlette.requests import Request
from starlette.responses import Response

from ..apis.apiregistration.conditions import AVAILABLE
from ..apis.apiregistration.transport import ClientFiles, backend_tls_context
from ..apis.discovery.endpoints import SERVICE_NAME_LABEL, host_port, ready_addresses
from ..auth.authentication import UserInfo
from ..cacher import DELETED, CacheEvent
from ..machinery.status import StatusError
from ..registry.registry import Registry
from .limits import DEFAULT_REQUEST_TIMEOUT, request_timeout, timeout_response
from .request_info import CONNECT_SUBRESOURCES, RequestInfo, request_info_of
from .responses import AUDIT_ID, NO_CACHE, StreamResponse, status_response
from .upgrades import UPGRADE, is_upgrade_request, splice

if TYPE_CHECKING:
    import aiohttp

Json = dict[str, Any]

#: How long a discovery request through the proxy may take (``NewRequestForProxy``).
DISCOVERY_TIMEOUT = 5.0
#: Go's ``httputil.ReverseProxy`` drops these both ways (its ``hopHeaders``), and kube's filters
#: consume the credentials before the proxy sees the request.
_HOP_BY_HOP = frozenset({"connection", "proxy-connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                         "te", "trailer", "transfer-encoding", "upgrade"})
_CONSUMED = frozenset({"authorization", "host"})
#: Left out of a backend's answer: the CORS headers apimachinery's proxy removes
#: (``corsRemovingTransport``), and the Date the HTTP server (uvicorn, fakeapi's own over TLS) sets on every
#: answer itself, which would be a second one (Go's server keeps the proxied one instead).
_NOT_PASSED_BACK = frozenset({"access-control-allow-credentials", "access-control-allow-headers",
                              "access-control-allow-methods", "access-control-allow-origin", "date"})
_UNAVAILABLE = "service unavailable"
#: apimachinery's ``UpgradeAwareHandler`` answer (502) to a backend's redirect.
_REDIRECT_REFUSED = b"the backend attempted to redirect this request, which is not permitted"
#: How long a backend's refusal of an upgrade may take to be copied to the client.
_REFUSAL_COPY_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class Backend:
    """A service-backed APIService, as the proxy reads it."""

    name: str
    group: str
    version: str
    namespace: str
    service: str
    port: int
    ca_bundle: str
    insecure: bool
    available: bool
    group_priority: int
    version_priority: int

    @classmethod
    def of(cls, api_service: Json) -> Backend | None:
        spec = api_service.get("spec") or {}
        service = spec.get("service")
        if service is None:
            return None
        conditions = (api_service.get("status") or {}).get("conditions") or ()
        return cls(api_service["metadata"]["name"], spec.get("group") or "", spec.get("version") or "",
                   service.get("namespace") or "", service.get("name") or "", service.get("port") or 443,
                   spec.get("caBundle") or "", bool(spec.get("insecureSkipTLSVerify")),
                   any(c.get("type") == AVAILABLE and c.get("status") == "True" for c in conditions),
                   spec.get("groupPriorityMinimum") or 0, spec.get("versionPriority") or 0)


class Backends:
    """The service-backed APIServices by group version, kept from the APIServices' cache (the
    proxy's ``handlingInfo``); ``listeners`` hear the name of each one that changed or went."""

    def __init__(self, registry: Registry) -> None:
        self.api_services = registry.resources[("apiregistration.k8s.io", "v1", "apiservices")].storage
        self.by_group_version: dict[tuple[str, str], Backend] = {}
        self.listeners: list[Callable[[str], None]] = []
        self.api_services.cacher.listeners.append(self._observe)

    def start(self) -> None:
        for cached in self.api_services.cacher.snapshot("", None):  # stored before a restart
            self._note(orjson.loads(cached.raw), cached.name)

    def _observe(self, event: CacheEvent) -> None:
        if event.type == DELETED:
            self._forget(event.obj.name)
            for listener in self.listeners:
                listener(event.obj.name)
        else:
            self._note(orjson.loads(event.obj.raw), event.obj.name)

    def _note(self, api_service: Json, name: str) -> None:
        self._forget(name)
        backend = Backend.of(api_service)
        if backend is not None:
            self.by_group_version[(backend.group, backend.version)] = backend
        for listener in self.listeners:
            listener(name)

    def _forget(self, name: str) -> None:
        for key, backend in list(self.by_group_version.items()):
            if backend.name == name:
                del self.by_group_version[key]

    def named(self, name: str) -> Backend | None:
        return next((b for b in self.by_group_version.values() if b.name == name), None)


class BackendResolver:
    """``host:port`` of a Service's server, or None where kube's resolver fails."""

    def __init__(self, registry: Registry) -> None:
        self.services = registry.resources[("", "v1", "services")].storage
        self.endpoint_slices = registry.resources[("discovery.k8s.io", "v1", "endpointslices")].storage

    def resolve(self, namespace: str, name: str, port: int) -> str | None:
        cached = self.services.cacher.cache.objects.get(self.services.key(namespace, name))
        if cached is None:
            return None
        spec = orjson.loads(cached.raw).get("spec") or {}
        if spec.get("type", "ClusterIP") == "ExternalName":
            return host_port(spec.get("externalName") or "", port)
        service_port = next((p for p in spec.get("ports") or () if p.get("port") == port), None)
        if service_port is None:
            return None
        slices = [orjson.loads(s.raw) for s in self.endpoint_slices.cacher.snapshot(
            *self.endpoint_slices.key_range(namespace)) if s.labels.get(SERVICE_NAME_LABEL) == name]
        addresses = ready_addresses(slices, service_port.get("name") or "")
        return random.choice(addresses) if addresses else None


class BackendUnavailable(Exception):
    """The call was not made or got no answer: the proxy's 503 text."""


@dataclass(slots=True)
class BackendAnswer:
    """The backend's status and headers, and its body to be read (``chunks``) or ``close``d."""

    status: int
    headers: list[tuple[str, str]]
    _response: aiohttp.ClientResponse

    async def chunks(self, deadline: float | None = None) -> AsyncIterator[bytes]:
        """The body as it comes, until the event loop's time ``deadline`` (None: none; past it
        the stream fails, which cuts the client's connection); a client gone (the stream
        cancelled) or a failed read closes the backend's connection, as Go's proxy cancels its
        request."""
        pending = self._response.content.iter_any().__aiter__()
        try:
            while True:
                async with asyncio.timeout_at(deadline):
                    try:
                        chunk = await pending.__anext__()
                    except StopAsyncIteration:
                        break
                yield chunk
        except BaseException:
            self._response.close()
            raise
        self._response.release()

    def close(self) -> None:
        """Drops the body unread (and the backend's connection with it)."""
        self._response.close()

    async def read(self) -> bytes:
        try:
            body = await self._response.read()
        except BaseException:
            self._response.close()
            raise
        self._response.release()
        return body


class APIServiceProxy:
    """The calls to the backends, over one pooled session per (CA bundle, verification), with the
    front proxy's client certificate (``client_files``) when there is one; ``aclose`` ends them
    with the server."""

    def __init__(self, registry: Registry, client_files: ClientFiles | None = None,
                 request_timeout: float = DEFAULT_REQUEST_TIMEOUT) -> None:
        self.backends = Backends(registry)
        self.resolver = BackendResolver(registry)
        self.client_files = client_files
        #: The server's --request-timeout (0: none), which a proxied request that is not
        #: long-running has, as every request in kube's filter chain.
        self.request_timeout = request_timeout
        self._sessions: dict[tuple[str, bool], aiohttp.ClientSession] = {}
        self._contexts: dict[tuple[str, bool], ssl.SSLContext] = {}

    def start(self) -> None:
        self.backends.start()

    async def aclose(self) -> None:
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.close()

    def _session(self, backend: Backend) -> aiohttp.ClientSession:
        key = (backend.ca_bundle, backend.insecure)
        session = self._sessions.get(key)
        if session is None:
            import aiohttp  # at the first call, as the webhooks' client: start-up without aggregation does not pay it

            context = self._tls_context(backend)
            session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=context, limit=0), auto_decompress=False, trust_env=False,
                skip_auto_headers=("Accept-Encoding", "User-Agent", "Content-Type"))
            self._sessions[key] = session
        return session

    async def call(self, backend: Backend, method: str, path: str, query: str, headers: list[tuple[str, str]],
                   body: AsyncIterator[bytes] | None, timeout: float | None) -> BackendAnswer:
        """One request to ``backend``'s server (its status, headers and body to come), ``path``
        escaped as sent; raises ``BackendUnavailable`` with the proxy's 503 text."""
        import aiohttp
        from yarl import URL

        if not backend.available:
            raise BackendUnavailable(_UNAVAILABLE)
        address = self.resolver.resolve(backend.namespace, backend.service, backend.port)
        if address is None:
            raise BackendUnavailable(_UNAVAILABLE)
        headers = [*headers, ("X-Forwarded-Uri", forwarded_uri(path)), ("X-Forwarded-Host", address),
                   ("X-Forwarded-Proto", "https")]
        target = URL(f"https://{address}{path}" + (f"?{query}" if query else ""), encoded=True)
        try:
            response = await self._session(backend).request(
                method, target, headers=headers, data=body, allow_redirects=False,
                server_hostname=None if backend.insecure else f"{backend.service}.{backend.namespace}.svc",
                timeout=aiohttp.ClientTimeout(total=timeout))
        except (asyncio.TimeoutError, aiohttp.ServerTimeoutError):
            raise _unreachable("context deadline exceeded") from None
        except aiohttp.ClientConnectorError as err:
            reason = ("connect: connection refused" if isinstance(err.os_error, ConnectionRefusedError)
                      else err.os_error.strerror or str(err.os_error))
            raise _unreachable(f"dial tcp {address}: {reason}") from None
        except aiohttp.ClientError as err:
            raise _unreachable(str(err)) from None
        answer_headers = [(k, v) for k, v in response.headers.items()
                          if k.lower() not in _HOP_BY_HOP and k.lower() not in _NOT_PASSED_BACK]
        return BackendAnswer(response.status, answer_headers, response)

    async def forward(self, request: Request, backend: Backend, user: UserInfo) -> Response:
        """``proxyHandler.ServeHTTP`` for an authorized request of ``backend``'s group version."""
        info = request_info_of(request.scope)
        upgrade = is_upgrade_request(request.scope["headers"])
        # An upgrade keeps the hop-by-hop headers that ask for it (Go's upgrade path sends the
        # request as it came); the reverse proxy of other requests drops them.
        headers = [(k, v) for k, v in request.headers.items() if not _dropped(k, keep_hop_by_hop=upgrade)]
        headers += auth_proxy_headers(user)
        headers.append(("Audit-Id", request.scope[AUDIT_ID]))
        client = request.scope.get("client")
        if client:  # Go's ReverseProxy: the client's address after those the request names
            prior = ", ".join(v for k, v in request.headers.items() if k.lower() == "x-forwarded-for")
            headers = [(k, v) for k, v in headers if k.lower() != "x-forwarded-for"]
            headers.append(("X-Forwarded-For", f"{prior}, {client[0]}" if prior else client[0]))
        # A discovery request: /apis/<group>/<version> and nothing more.
        discovery = not info.resource_request and len(info.path.strip("/").split("/")) == 3
        # Go's proxy sends no body for an empty one (its ContentLength 0).
        has_body = request.headers.get("content-length", "0") != "0" or "transfer-encoding" in request.headers
        path = request.scope.get("raw_path", b"").decode("latin-1") or info.path
        deadline = None
        if not _long_running(info):
            try:
                seconds = request_timeout(info.query_value("timeout"), self.request_timeout)
            except StatusError as err:
                return status_response(err)
            if seconds != math.inf:
                deadline = asyncio.get_running_loop().time() + seconds
        query = go_query_encode(info.query.multi_items())
        try:
            async with asyncio.timeout_at(deadline):
                if upgrade:
                    return await self.upgrade(backend, request.method, path, query, headers)
                answer = await self.call(backend, request.method, path, query, headers,
                                         request.stream() if has_body else None,
                                         DISCOVERY_TIMEOUT if discovery else None)
        except BackendUnavailable as err:
            return proxy_error(str(err), 503)
        except TimeoutError:  # the request's deadline, before the backend answered
            return timeout_response()
        if 300 <= answer.status <= 399 and any(k.lower() == "location" for k, _ in answer.headers):
            # kube-aggregator's --aggregator-reject-forwarding-redirect (on by default).
            answer.close()
            return Response(_REDIRECT_REFUSED, status_code=502, media_type="text/plain; charset=utf-8")
        response = StreamResponse(answer.chunks(deadline), status_code=answer.status)
        response.raw_headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers]
        if any(name == b"cache-control" for name, _ in response.raw_headers):
            # kube's filters set theirs before the proxy adds the backend's: the answer has both.
            response.raw_headers.insert(0, NO_CACHE)
        return response


    async def upgrade(self, backend: Backend, method: str, path: str, query: str,
                      headers: list[tuple[str, str]]) -> Response:
        """apimachinery's ``UpgradeAwareHandler.tryUpgrade``: the request written to a connection
        of its own to the backend, then by the backend's answer: a ``101`` and the client's
        connection taken (``UPGRADE``) and spliced to the backend's until either ends; a
        refusal (400 and above) written to the client's connection as it came, which then ends;
        anything else the proxy's 503 ``invalid upgrade response``. The caller's deadline covers
        the call until the connection is taken, not the tunnel."""
        if not backend.available:
            raise BackendUnavailable(_UNAVAILABLE)
        address = self.resolver.resolve(backend.namespace, backend.service, backend.port)
        if address is None:
            raise BackendUnavailable(_UNAVAILABLE)
        host, _, port = address.rpartition(":")
        try:
            reader, writer = await asyncio.open_connection(
                host.strip("[]"), int(port), ssl=self._tls_context(backend),
                server_hostname=None if backend.insecure else f"{backend.service}.{backend.namespace}.svc")
        except ConnectionRefusedError:
            raise BackendUnavailable(f"error dialing backend: dial tcp {address}: connect: connection refused") from None
        except (OSError, ssl.SSLError) as err:
            raise BackendUnavailable(f"error dialing backend: {err.strerror or err}") from None
        try:
            writer.write(_request_head(method, path, query, address, headers))
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, OSError):
                raise BackendUnavailable("unexpected EOF") from None  # Go's http.ReadResponse
            status = _status_of(head)
            if status is None:
                raise BackendUnavailable("malformed HTTP response")
            if status != 101 and status < 400:
                raise BackendUnavailable(f"invalid upgrade response: status code {status}")
        except BaseException:
            writer.close()
            raise
        return _Spliced(reader, writer, head, status == 101)

    def _tls_context(self, backend: Backend) -> ssl.SSLContext:
        """How a backend is verified (and the front proxy's certificate presented), by its pooled
        session and by an upgrade's own connection alike."""
        key = (backend.ca_bundle, backend.insecure)
        context = self._contexts.get(key)
        if context is None:
            context = self._contexts[key] = backend_tls_context(backend.ca_bundle, backend.insecure, self.client_files)
        return context


class _Spliced(Response):
    """The answer to an upgrade request the backend took or refused: the client's connection
    taken and given the backend's answer; spliced to the backend's connection after a 101,
    closed after a refusal has been copied (within 10 s, as Go's proxy)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes,
                 switched: bool) -> None:
        super().__init__(status_code=101 if switched else _status_of(head) or 502)
        self.backend = (reader, writer)
        self.head = head
        self.switched = switched

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        reader, writer = self.backend
        hijack = scope.get(UPGRADE)
        if hijack is None:  # HTTP/2, or a server that cannot hand its connection over
            writer.close()
            await proxy_error("request connection cannot be hijacked", 503)(scope, receive, send)
            return
        tunnel = await hijack(self.head)
        if self.switched:
            await splice(tunnel, reader, writer)
            return
        try:
            async with asyncio.timeout(_REFUSAL_COPY_SECONDS):
                while data := await reader.read(65536):
                    tunnel.writer.write(data)
                    await tunnel.writer.drain()
        except (TimeoutError, ConnectionError, OSError):
            pass
        finally:
            writer.close()
            tunnel.writer.close()


def _request_head(method: str, path: str, query: str, address: str, headers: list[tuple[str, str]]) -> bytes:
    """Go's ``Request.Write`` of the upgrade request: ``Host`` (the backend's address, as
    ``NewRequestForProxy`` sets it), ``User-Agent`` (the client's, else Go's), the other headers
    by name."""
    user_agent = next((v for k, v in headers if k.lower() == "user-agent"), "Go-http-client/1.1")
    lines = [f"{method} {path}{'?' + query if query else ''} HTTP/1.1", f"Host: {address}", f"User-Agent: {user_agent}"]
    lines += [f"{_canonical(k)}: {v}" for k, v in sorted(headers, key=lambda kv: _canonical(kv[0]))
              if k.lower() not in ("user-agent", "content-length")]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _canonical(name: str) -> str:
    """Go's ``textproto.CanonicalMIMEHeaderKey``: each dash-separated word capitalized."""
    return "-".join(word[:1].upper() + word[1:].lower() for word in name.split("-"))


def _status_of(head: bytes) -> int | None:
    """The status code of an answer's head, None for one that is not HTTP's."""
    version, _, rest = head.partition(b" ")
    code = rest[:3]
    return int(code) if version.startswith(b"HTTP/") and code.isdigit() else None


def _long_running(info: RequestInfo) -> bool:
    """kube's ``BasicLongRunningRequestCheck`` of kube-apiserver: a watch, a proxy, and the
    connect subresources run as long as they take."""
    return info.verb in ("watch", "proxy") or info.subresource in CONNECT_SUBRESOURCES


def _unreachable(reason: str) -> BackendUnavailable:
    """A failed round trip, as apimachinery's proxy ``Transport`` words it."""
    return BackendUnavailable(f"error trying to reach service: {reason}")


def _dropped(header: str, keep_hop_by_hop: bool) -> bool:
    name = header.lower()
    return ((name in _HOP_BY_HOP and not keep_hop_by_hop) or name in _CONSUMED or name.startswith("impersonate-")
            or name.startswith("x-remote-") or name == "audit-id")


def forwarded_uri(path: str) -> str:
    """``X-Forwarded-Uri``: the escaped path as Go's ``path.Join`` cleans it, with its trailing
    slash kept."""
    cleaned = posixpath.normpath(path)
    if cleaned.startswith("//"):  # POSIX keeps a leading double slash; Go's Clean does not
        cleaned = "/" + cleaned.lstrip("/")
    return cleaned + "/" if path.endswith("/") and cleaned != "/" else cleaned


def auth_proxy_headers(user: UserInfo) -> list[tuple[str, str]]:
    """``transport.SetAuthProxyHeaders``: the user, its uid, each group, each extra value (the
    key path-escaped, as Go's ``url.PathEscape``)."""
    headers = [("X-Remote-User", user.name)]
    if user.uid:
        headers.append(("X-Remote-Uid", user.uid))
    headers += [("X-Remote-Group", group) for group in user.groups]
    for key, values in user.extra.items():
        headers += [(f"X-Remote-Extra-{quote(key, safe='')}", value) for value in values]
    return headers


def go_query_encode(pairs: Iterable[tuple[str, str]]) -> str:
    """``url.Values.Encode``: keys sorted (a key's values in their order), each escaped as
    ``url.QueryEscape`` (space as ``+``)."""
    return urlencode(sorted(pairs, key=lambda pair: pair[0]))


def proxy_error(message: str, code: int) -> Response:
    """Go's ``http.Error``: the message and a newline, as plain text."""
    return Response(f"{message}\n".encode(), status_code=code, media_type="text/plain; charset=utf-8",
                    headers={"X-Content-Type-Options": "nosniff"})
