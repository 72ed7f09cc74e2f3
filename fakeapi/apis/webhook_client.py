"""HTTPS calls to webhooks (admission webhooks, CRD conversion webhooks), as kube's webhook client
makes them (``k8s.io/apiserver/pkg/util/webhook``): a POST of the review to ``clientConfig.url``, or to ``https://<service>.<namespace>.svc:<port><path>``
whose address is one of the service's ready endpoints (kube-apiserver's resolver with
``--enable-aggregator-routing``: a webhook server on the host, behind a selector-less Service and
its EndpointSlice, is reachable as in envtest), its certificate verified against ``caBundle`` (the
system's roots without one) and the URL's host, within ``timeoutSeconds`` (sent as the
``timeout`` query parameter too), over kept-alive HTTP/1.1 connections (aiohttp: an eighth of the
CPU per call of an HTTP/2 client in Python, which kube's Go client would use; no webhook server
answers differently for it).

Failures read as Go's ``*url.Error`` does (``Post "<url>": <reason>``), so a client sees kube's
message."""

from __future__ import annotations

import asyncio
import base64
import binascii
import random
import ssl
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from ..machinery.golang import go_quote
from .discovery.endpoints import SERVICE_NAME_LABEL, host_port, ready_addresses

Json = dict[str, Any]

if TYPE_CHECKING:
    import aiohttp

#: (group, kind, namespace) -> the objects of that kind in the namespace: the registry's lister.
Lister = Callable[[str, str, str | None], list[Json]]
#: (group, kind, namespace, name) -> the object, or None.
Lookup = Callable[[str, str, str | None, str], Json | None]

_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, */*",
            "User-Agent": "kube-apiserver-admission"}


class WebhookCallFailed(Exception):
    """The call failed before an answer could be read (Go's ``*url.Error``'s text)."""


class WebhookClients:
    """One pooled HTTP session per CA bundle, made on first use on the event loop that calls
    (``aclose`` ends them with the server)."""

    def __init__(self, lookup: Lookup, lister: Lister) -> None:
        self._lookup = lookup
        self._list = lister
        self._sessions: dict[str, aiohttp.ClientSession] = {}

    def _session(self, ca_bundle: str) -> aiohttp.ClientSession:
        session = self._sessions.get(ca_bundle)
        if session is None:
            import aiohttp  # on the first call: a third of a second of start-up a server without webhooks does not pay

            context = ssl.create_default_context()
            if ca_bundle:
                try:
                    context = ssl.create_default_context(cadata=base64.b64decode(ca_bundle).decode("ascii"))
                    # Go's verifier takes each certificate of the bundle as a trust anchor, a CA's
                    # or not: envtest's caBundle is the webhook's serving certificate itself.
                    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
                except (binascii.Error, UnicodeDecodeError, ssl.SSLError):
                    pass  # kube's client fails to verify the server then, as this one will
            session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=context, limit=0),
                                            skip_auto_headers=("Accept-Encoding",), trust_env=False)
            self._sessions[ca_bundle] = session
        return session

    async def aclose(self) -> None:
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.close()

    async def post(self, client_config: Json, body: bytes, timeout_seconds: int) -> tuple[int, Any, str]:
        """The webhook's status code, its decoded JSON answer (None: not JSON) and its body as
        text where it is text (``"unknown"`` otherwise, as client-go has it); raises
        ``WebhookCallFailed``."""
        import aiohttp
        from yarl import URL

        query = f"?timeout={timeout_seconds}s"
        headers = dict(_HEADERS)
        server_hostname = None
        url = client_config.get("url")
        if url:
            display = target = url + query
        else:
            service = client_config.get("service") or {}
            namespace, name, port = service.get("namespace", ""), service.get("name", ""), service.get("port", 443)
            server_hostname = f"{name}.{namespace}.svc"
            display = f"https://{server_hostname}:{port}{service.get('path') or ''}{query}"
            address = self._resolve(namespace, name, port, display)
            target = f"https://{address}{service.get('path') or ''}{query}"
            headers["Host"] = f"{server_hostname}:{port}"
        try:
            # Redirects are followed as Go's http.Client follows them for kube's REST client (no
            # CheckRedirect): up to 10, a 307 or 308 posting again (Go's ServeMux answers envtest's
            # https://host:port//path with a 307 to /path), a 301, 302 or 303 getting.
            async with self._session(client_config.get("caBundle") or "").post(
                    URL(target, encoded=True), data=body, headers=headers, server_hostname=server_hostname,
                    timeout=aiohttp.ClientTimeout(total=timeout_seconds), max_redirects=10) as response:
                content = await response.read()
                status, content_type = response.status, response.headers.get("Content-Type", "")
        except (asyncio.TimeoutError, aiohttp.ServerTimeoutError):
            raise WebhookCallFailed(f'Post "{display}": context deadline exceeded') from None
        except aiohttp.ClientConnectorCertificateError as err:
            raise WebhookCallFailed(f'Post "{display}": {_certificate_reason(err.certificate_error)}') from None
        except aiohttp.ClientConnectorError as err:
            raise WebhookCallFailed(f'Post "{display}": {_connect_reason(err, target)}') from None
        except aiohttp.ClientError as err:
            raise WebhookCallFailed(f'Post "{display}": {err}') from None
        text = content.decode("utf-8", "replace").strip() if content_type.startswith("text/") else "unknown"
        try:
            return status, orjson.loads(content), text
        except orjson.JSONDecodeError:
            return status, None, text

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


def _certificate_reason(error: BaseException) -> str:
    """Go's reason for a certificate that does not verify."""
    if "Hostname mismatch" in str(error) or "IP address mismatch" in str(error):
        return "tls: failed to verify certificate: x509: certificate is valid for other names"
    return "tls: failed to verify certificate: x509: certificate signed by unknown authority"


def _connect_reason(err: aiohttp.ClientConnectorError, target: str) -> str:
    """Go's reason for a failed connection: ``dial tcp <addr>: connect: connection refused``."""
    from yarl import URL

    address = URL(target)
    if isinstance(err.os_error, ConnectionRefusedError):
        return f"dial tcp {host_port(address.host or '', address.port)}: connect: connection refused"
    return f"dial tcp {host_port(address.host or '', address.port)}: {err.os_error.strerror or err.os_error}"


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
