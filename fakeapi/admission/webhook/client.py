"""HTTPS calls to webhooks, as kube's webhook client makes them (``k8s.io/apiserver/pkg/util/webhook``):
a POST of the review to ``clientConfig.url``, or to ``https://<service>.<namespace>.svc:<port><path>``
whose address is one of the service's ready endpoints (kube-apiserver's resolver with
``--enable-aggregator-routing``: a webhook server on the host, behind a selector-less Service and
its EndpointSlice, is reachable as in envtest), its certificate verified against ``caBundle`` (the
system's roots without one) and the URL's host, within ``timeoutSeconds`` (sent as the
``timeout`` query parameter too). HTTP/2 where the server offers it, as Go's client.

Failures read as Go's ``*url.Error`` does (``Post "<url>": <reason>``), so a client sees kube's
message."""

from __future__ import annotations

import base64
import binascii
import random
import ssl
from collections.abc import Callable
from typing import Any

import httpx
import orjson

from .request import Json

#: (group, kind, namespace) -> the objects of that kind in the namespace: the registry's lister.
Lister = Callable[[str, str, str | None], list[Json]]
#: (group, kind, namespace, name) -> the object, or None.
Lookup = Callable[[str, str, str | None, str], Json | None]

_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, */*",
            "User-Agent": "kube-apiserver-admission"}


class WebhookCallFailed(Exception):
    """The call failed before an answer could be read (Go's ``*url.Error``'s text)."""


class WebhookClients:
    """One pooled HTTP client per CA bundle, made on first use on the event loop that calls."""

    def __init__(self, lookup: Lookup, lister: Lister) -> None:
        self._lookup = lookup
        self._list = lister
        self._clients: dict[str, httpx.AsyncClient] = {}

    def _client(self, ca_bundle: str) -> httpx.AsyncClient:
        client = self._clients.get(ca_bundle)
        if client is None:
            context = ssl.create_default_context()
            if ca_bundle:
                try:
                    context = ssl.create_default_context(cadata=base64.b64decode(ca_bundle).decode("ascii"))
                except (binascii.Error, UnicodeDecodeError, ssl.SSLError):
                    context = ssl.create_default_context()  # kube's client fails to verify, as this one will
            client = httpx.AsyncClient(verify=context, http2=True, timeout=None, trust_env=False)
            self._clients[ca_bundle] = client
        return client

    async def post(self, client_config: Json, body: bytes, timeout_seconds: int) -> tuple[int, Any, str]:
        """The webhook's status code, its decoded JSON answer (None: not JSON) and its body as
        text where it is text (``"unknown"`` otherwise, as client-go has it); raises
        ``WebhookCallFailed``."""
        query = f"?timeout={timeout_seconds}s"
        extensions: dict[str, Any] = {}
        headers = dict(_HEADERS)
        url = client_config.get("url")
        if url:
            display = url + query
            target = display
        else:
            service = client_config.get("service") or {}
            namespace, name, port = service.get("namespace", ""), service.get("name", ""), service.get("port", 443)
            host = f"{name}.{namespace}.svc"
            display = f"https://{host}:{port}{service.get('path') or ''}{query}"
            address = self._resolve(namespace, name, port, display)
            target = f"https://{address}{service.get('path') or ''}{query}"
            extensions["sni_hostname"] = host
            headers["Host"] = f"{host}:{port}"
        try:
            response = await self._client(client_config.get("caBundle") or "").post(
                target, content=body, headers=headers, extensions=extensions, timeout=timeout_seconds)
        except httpx.TimeoutException:
            raise WebhookCallFailed(f'Post "{display}": context deadline exceeded') from None
        except httpx.ConnectError as err:
            raise WebhookCallFailed(f'Post "{display}": {_connect_reason(err, target)}') from None
        except httpx.HTTPError as err:
            raise WebhookCallFailed(f'Post "{display}": {err}') from None
        text = response.text.strip() if response.headers.get("content-type", "").startswith("text/") else "unknown"
        try:
            return response.status_code, orjson.loads(response.content), text
        except orjson.JSONDecodeError:
            return response.status_code, None, text

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
        addresses = []
        for endpoint_slice in self._list("discovery.k8s.io", "EndpointSlice", namespace):
            if ((endpoint_slice.get("metadata") or {}).get("labels") or {}).get("kubernetes.io/service-name") != name:
                continue
            slice_port = next((p.get("port") for p in endpoint_slice.get("ports") or ()
                               if (p.get("name") or "") == port_name), None)
            if slice_port is None:
                continue
            for endpoint in endpoint_slice.get("endpoints") or ():
                if (endpoint.get("conditions") or {}).get("ready") is False:
                    continue
                for address in endpoint.get("addresses") or ():
                    addresses.append(f"[{address}]:{slice_port}" if ":" in address else f"{address}:{slice_port}")
        if not addresses:
            raise WebhookCallFailed(f'Post "{display}": no endpoints available for service "{name}"')
        return random.choice(addresses)


def _connect_reason(err: httpx.ConnectError, target: str) -> str:
    """Go's reason for a failed connection: ``dial tcp <addr>: connect: connection refused``, or
    the certificate verification's ``tls: failed to verify certificate: x509: ...``."""
    text = str(err)
    if "CERTIFICATE_VERIFY_FAILED" in text:
        if "Hostname mismatch" in text or "IP address mismatch" in text:
            return "tls: failed to verify certificate: x509: certificate is valid for other names"
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    address = httpx.URL(target)
    host = f"[{address.host}]" if ":" in address.host else address.host
    causes = []
    cause: BaseException | None = err
    while cause is not None:
        causes.append(cause)
        cause = cause.__cause__ or cause.__context__
    if any(isinstance(cause, ConnectionRefusedError) for cause in causes):
        return f"dial tcp {host}:{address.port or 443}: connect: connection refused"
    return f"dial tcp {host}:{address.port or 443}: {causes[-1]}"
