"""HTTPS calls to webhooks (admission webhooks, CRD conversion webhooks), as kube's webhook client
makes them (``k8s.io/apiserver/pkg/util/webhook``): a POST of the review to ``clientConfig.url``, or to ``https://<service>.<namespace>.svc:<port><path>``
whose address is one of the service's ready endpoints (kube-apiserver's resolver with
``--enable-aggregator-routing``: a webhook server on the host, behind a selector-less Service and
its EndpointSlice, is reachable as in envtest), its certificate verified against ``caBundle`` (the
system's roots without one) and the URL's host, within ``timeoutSeconds`` (sent as the
``timeout`` query parameter too).

The calls go over kept-alive HTTP/1.1 connections this module speaks itself: an asyncio protocol
writing each request in one write and reading the answer with httptools' C parser (uvicorn's),
about 0.2 ms of CPU a call, less than half of aiohttp's client session (0.46-0.71 ms), which
spent the difference on what a webhook call never needs (cookies, proxies, per-request header
objects). Kube's Go client would speak HTTP/2 to a server offering it; no webhook server
answers differently for it, and an HTTP/2 client in Python costs eight times an HTTP/1.1 call.

Failures read as Go's ``*url.Error`` does (``Post "<url>": <reason>``), so a client sees kube's
message."""

from __future__ import annotations

import asyncio
import base64
import binascii
import random
import ssl
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin, urlsplit

import httptools
import orjson

from ..machinery.golang import go_quote
from .discovery.endpoints import SERVICE_NAME_LABEL, host_port, ready_addresses

Json = dict[str, Any]

#: (group, kind, namespace) -> the objects of that kind in the namespace: the registry's lister.
Lister = Callable[[str, str, str | None], list[Json]]
#: (group, kind, namespace, name) -> the object, or None.
Lookup = Callable[[str, str, str | None, str], Json | None]

#: The request's headers after ``Host`` and before ``Content-Length``, in Go's order.
_HEADERS = b"User-Agent: kube-apiserver-admission\r\nAccept: application/json, */*\r\nContent-Type: application/json\r\n"


#: How many webhook URLs' targets are kept (far more than any cluster configures).
_KEPT_URL_TARGETS = 1024

#: Go's http.Client: the answers it follows, and how many in a row.
_REDIRECTS = frozenset((301, 302, 303, 307, 308))
_MAX_REDIRECTS = 10


class WebhookCallFailed(Exception):
    """The call failed before an answer could be read (Go's ``*url.Error``'s text)."""


class _Disconnected(Exception):
    """The server closed the connection before its answer was complete."""


class _Malformed(Exception):
    """The server's bytes are not an HTTP/1.1 answer."""


class _Connection(asyncio.Protocol):
    """One kept-alive HTTP/1.1 connection to a webhook server, one request at a time (the
    protocol callbacks fill in the answer; ``httptools`` calls ``on_*`` as it parses)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.received = False  # a byte of the answer to the request in flight came
        self.reusable = False
        self._parser = httptools.HttpResponseParser(self)
        self._answer: asyncio.Future[tuple[int, bytes, str, bytes]] | None = None
        self._body: list[bytes] = []
        self._content_type = b""
        self.location = ""  # the answer's Location header
        self._headers_complete = False
        self._until_eof = False

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.received = True
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError:
            self._fail(_Malformed(data.split(b"\r\n", 1)[0].decode("latin-1")))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.reusable = False
        if self._headers_complete and self._until_eof:  # an answer delimited by the connection's end
            self.on_message_complete()
        self._fail(_Disconnected())

    # httptools' callbacks

    def on_header(self, name: bytes, value: bytes) -> None:
        name = name.lower()
        if name == b"content-type":
            self._content_type = value
        elif name == b"location":
            self.location = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        self._headers_complete = True
        # An answer that does not keep the connection may run to its end (RFC 9112 6.3: no
        # Content-Length, not chunked); one with a length completes first and clears this.
        self._until_eof = self._parser.get_status_code() >= 200 and not self._parser.should_keep_alive()

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        self._headers_complete = False
        self.reusable = self._parser.should_keep_alive()
        if self._answer is not None and not self._answer.done():
            self._answer.set_result((self._parser.get_status_code(), self._content_type, self.location,
                                     b"".join(self._body)))

    # the client's side

    def exchange(self, request: bytes) -> asyncio.Future[tuple[int, bytes, str, bytes]]:
        """Send ``request``; the future is the answer's (status, content type, location, body)."""
        assert self.transport is not None
        self._answer = asyncio.get_running_loop().create_future()
        self._body, self._content_type, self.reusable, self.received = [], b"", False, False
        self.location = ""
        self.transport.write(request)
        return self._answer

    def usable(self) -> bool:
        return self.transport is not None and not self.transport.is_closing()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def _fail(self, error: Exception) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_exception(error)


class _Target:
    """Where a call goes: the address connected to, the TLS name verified, the request's first
    lines (``method``, the path and query, the Host header), and its URL as Go's errors show it."""

    __slots__ = ("host", "port", "server_hostname", "path", "host_header", "display", "tls", "method", "_head")

    def __init__(self, host: str, port: int, server_hostname: str | None, path: str, host_header: str,
                 display: str, tls: bool, method: str = "POST") -> None:
        self.host, self.port, self.server_hostname, self.display, self.tls = host, port, server_hostname, display, tls
        self.path, self.host_header, self.method = path, host_header, method
        self._head = f"{method} {path} HTTP/1.1\r\nHost: {host_header}\r\n".encode() + _HEADERS

    @classmethod
    def of_url(cls, url: str, method: str = "POST") -> _Target:
        parts = urlsplit(url)
        tls = parts.scheme != "http"
        host = parts.hostname or ""
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return cls(host, parts.port or (443 if tls else 80), host if tls else None, path, parts.netloc, url, tls,
                   method)

    def request(self, body: bytes) -> bytes:
        if self.method != "POST":
            return self._head + b"\r\n"
        return b"%sContent-Length: %d\r\n\r\n%s" % (self._head, len(body), body)

    def redirected(self, location: str, status: int) -> _Target:
        """Where Go's client goes next on a redirect: 307 and 308 post again, 301, 302 and 303
        get; a Location on the same server keeps its address (a Service's endpoint)."""
        url = urljoin(self.display, location)
        method = self.method if status in (307, 308) else "GET"
        parts = urlsplit(url)
        if parts.netloc != urlsplit(self.display).netloc:
            return _Target.of_url(url, method)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return _Target(self.host, self.port, self.server_hostname, path, self.host_header, url, self.tls, method)


class WebhookClients:
    """Kept-alive connections per address, TLS name and CA bundle, made on first use on the
    event loop that calls (``aclose`` ends them with the server)."""

    def __init__(self, lookup: Lookup, lister: Lister) -> None:
        self._lookup = lookup
        self._list = lister
        self._contexts: dict[str, ssl.SSLContext] = {}
        self._idle: dict[tuple[str, int, str | None, str], list[_Connection]] = {}
        #: (url, timeout) -> where a call to a webhook named by URL goes (a service's endpoint
        #: is chosen anew for each call).
        self._url_targets: dict[tuple[str, int], _Target] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    async def aclose(self) -> None:
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                connection.close()

    async def post(self, client_config: Json, body: bytes, timeout_seconds: int) -> tuple[int, Any, str]:
        """The webhook's status code, its decoded JSON answer (None: not JSON) and its body as
        text where it is text (``"unknown"`` otherwise, as client-go has it); raises
        ``WebhookCallFailed``."""
        target = self._target(client_config, timeout_seconds)
        ca_bundle = client_config.get("caBundle") or ""
        try:
            async with asyncio.timeout(timeout_seconds):
                # Redirects are followed as Go's http.Client follows them for kube's REST client
                # (no CheckRedirect): up to 10 (Go's ServeMux answers envtest's
                # https://host:port//path with a 307 to /path).
                for redirects in range(_MAX_REDIRECTS + 1):
                    status, content_type, location, content = await self._exchange(
                        target, ca_bundle, target.request(body))
                    if status not in _REDIRECTS or not location:
                        break
                    target = target.redirected(location, status)
                    if redirects == _MAX_REDIRECTS:
                        raise WebhookCallFailed(f'Post "{target.display}": stopped after {_MAX_REDIRECTS} redirects')
        except TimeoutError:  # Go's url.Error: the first request's method, the last one's URL
            raise WebhookCallFailed(f'Post "{target.display}": context deadline exceeded') from None
        except ssl.SSLCertVerificationError as err:
            raise WebhookCallFailed(f'Post "{target.display}": {_certificate_reason(err)}') from None
        except _Disconnected:
            raise WebhookCallFailed(f'Post "{target.display}": EOF') from None
        except _Malformed as err:
            raise WebhookCallFailed(f'Post "{target.display}": net/http: HTTP/1.x transport connection broken: '
                                    f'malformed HTTP response {go_quote(str(err))}') from None
        except OSError as err:
            raise WebhookCallFailed(f'Post "{target.display}": {_connect_reason(err, target)}') from None
        text = content.decode("utf-8", "replace").strip() if content_type.startswith(b"text/") else "unknown"
        try:
            return status, orjson.loads(content), text
        except orjson.JSONDecodeError:
            return status, None, text

    async def _exchange(self, target: _Target, ca_bundle: str, request: bytes) -> tuple[int, bytes, str, bytes]:
        """Send the request on an idle connection, else a new one, and read the answer. A kept
        connection the server closed while it was idle is dropped and the request sent again on
        a new one, as Go's transport retries a request no byte of whose answer came."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # connections belong to the loop that made them
            self._idle, self._loop = {}, loop
        key = (target.host, target.port, target.server_hostname, ca_bundle)
        idle = self._idle.setdefault(key, [])
        while True:
            reused = bool(idle)
            connection = idle.pop() if reused else await self._connect(loop, target, ca_bundle)
            if not connection.usable():
                continue
            try:
                answer = await connection.exchange(request)
            except _Disconnected:
                if reused and not connection.received:
                    continue
                raise
            except BaseException:
                connection.close()  # cancelled (the call's deadline) or failed mid-answer
                raise
            if connection.reusable:
                idle.append(connection)
            else:
                connection.close()
            return answer

    async def _connect(self, loop: asyncio.AbstractEventLoop, target: _Target, ca_bundle: str) -> _Connection:
        _transport, connection = await loop.create_connection(
            _Connection, target.host, target.port, ssl=self._context(ca_bundle) if target.tls else None,
            server_hostname=target.server_hostname if target.tls else None)
        return connection

    def _context(self, ca_bundle: str) -> ssl.SSLContext:
        context = self._contexts.get(ca_bundle)
        if context is None:
            context = ssl.create_default_context()
            if ca_bundle:
                try:
                    context = ssl.create_default_context(cadata=base64.b64decode(ca_bundle).decode("ascii"))
                    # Go's verifier takes each certificate of the bundle as a trust anchor, a CA's
                    # or not: envtest's caBundle is the webhook's serving certificate itself.
                    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
                except (binascii.Error, UnicodeDecodeError, ssl.SSLError):
                    pass  # kube's client fails to verify the server then, as this one will
            self._contexts[ca_bundle] = context
        return context

    def _target(self, client_config: Json, timeout_seconds: int) -> _Target:
        query = f"?timeout={timeout_seconds}s"
        url = client_config.get("url")
        if url:
            target = self._url_targets.get((url, timeout_seconds))
            if target is None:
                if len(self._url_targets) >= _KEPT_URL_TARGETS:  # configurations came and went
                    self._url_targets.clear()
                target = self._url_targets[(url, timeout_seconds)] = _Target.of_url(url + query)
            return target
        service = client_config.get("service") or {}
        namespace, name, port = service.get("namespace", ""), service.get("name", ""), service.get("port", 443)
        server_hostname = f"{name}.{namespace}.svc"
        path = (service.get("path") or "") + query
        display = f"https://{server_hostname}:{port}{path}"
        address = urlsplit(f"https://{self._resolve(namespace, name, port, display)}")
        return _Target(address.hostname or "", address.port or 443, server_hostname,
                       path if path.startswith("/") else "/" + path, f"{server_hostname}:{port}", display, True)

    def _resolve(self, namespace: str, name: str, port: int, display: str) -> str:
        """``proxy.ResolveEndpoint``: ``host:port`` of a ready endpoint of the service's port."""
        service = self._lookup("", "Service", namespace, name)
        if service is None:
            raise WebhookCallFailed(f'Post "{display}": service "{name}" not found')
        spec = service.get("spec") or {}
        if spec.get("type", "ClusterIP") not in ("ClusterIP", "LoadBalancer", "NodePort"):
            raise WebhookCallFailed(f'Post "{display}": unsupported service type "{spec.get("type")}"')
        service_port = next((p for p in spec.get("ports") or () if p.get("port") == port), None)
        if service_port is None:
            raise WebhookCallFailed(f'Post "{display}": no service port {port} found for service "{name}"')
        port_name = service_port.get("name") or ""
        slices = [endpoint_slice for endpoint_slice in self._list("discovery.k8s.io", "EndpointSlice", namespace)
                  if ((endpoint_slice.get("metadata") or {}).get("labels") or {}).get(SERVICE_NAME_LABEL) == name]
        addresses = ready_addresses(slices, port_name)
        if not addresses:
            raise WebhookCallFailed(f'Post "{display}": no endpoints available for service "{name}"')
        return random.choice(addresses)


def _certificate_reason(error: ssl.SSLCertVerificationError) -> str:
    """Go's reason for a certificate that does not verify."""
    if "Hostname mismatch" in str(error) or "IP address mismatch" in str(error):
        return "tls: failed to verify certificate: x509: certificate is valid for other names"
    return "tls: failed to verify certificate: x509: certificate signed by unknown authority"


def _connect_reason(err: OSError, target: _Target) -> str:
    """Go's reason for a failed connection: ``dial tcp <addr>: connect: connection refused``."""
    address = host_port(target.host, target.port)
    if isinstance(err, ConnectionRefusedError):
        return f"dial tcp {address}: connect: connection refused"
    return f"dial tcp {address}: {err.strerror or err}"


def server_response_error(code: int, answer: object, text: str) -> str:
    """The error Go's REST client makes of a non-success answer (``transformResponse``): the
    Status the server sent, else ``NewGenericServerResponse``'s message for the code."""
    if isinstance(answer, dict) and answer.get("kind") == "Status" and answer.get("message"):
        return str(answer["message"])
    if code in _GENERIC_MESSAGES:
        return _GENERIC_MESSAGES[code]
    if code >= 500:
        return f"an error on the server ({go_quote(text)}) has prevented the request from succeeding"
    return f"the server responded with the status code {code} but did not return more information"


#: ``errors.NewGenericServerResponse``'s messages by code.
_GENERIC_MESSAGES = {
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    403: "the server does not allow access to the requested resource",
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    406: "the server was unable to respond with a content type that the client supports",
    409: "the server reported a conflict",
    415: "the server was unable to respond with a content type that the client supports",
    422: "the server rejected our request due to an error in our request",
    429: "the server has received too many requests and has asked us to try again later",
    503: "the server is currently unable to handle the request",
    504: "the server was unable to return a response in the time allotted, but may still be processing the request",
}
