"""A Kubernetes API client for Locust users that records every call under a kube verb.

Locust's HTTP users name a sample by HTTP method; a load test of an apiserver wants kube's
verbs (LIST vs GET, WATCH_OPEN, RELIST...), the ``verb`` label of ``apiserver_request_total``.
So each call fires Locust's request event itself, with ``request_type`` = the verb and
``name`` = what was asked for. A response outside ``ok`` codes is a failure; nothing raises
into the user.

The client has to cost far less than the server it loads, or a run measures Locust. Calls go
through geventhttpclient (what Locust's ``FastHttpUser`` is built on): its connection pool and
its C HTTP parser read the responses; the request head is one formatted string (its
``HTTPClient`` merges and validates header objects per request: a quarter of the cost of a
GET). Bodies are decoded only as far as the profile needs (``decode.py``); of a LIST only the
bytes up to its items are kept.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import msgspec
import orjson
from geventhttpclient._parser import HTTPParseError
from geventhttpclient.connectionpool import ConnectionPool
from geventhttpclient.response import HTTPConnectionClosed, HTTPSocketPoolResponse
from locust.env import Environment

from .decode import ListMeta, list_head, list_names, read_list_head

Json = dict[str, Any]

#: Where writers put their wall-clock time; watchers subtract it on delivery. Valid because
#: writer and watcher share a clock (one host, or NTP-synced Locust workers).
STAMP_ANNOTATION = "load.fakeapi.dev/written-at"
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
MERGE_PATCH = {"Content-Type": "application/merge-patch+json", "Accept": "application/json"}
#: Connections one client opens at most (one per call in flight: a user's informers each hold
#: a watch while its lists run); opened when first needed.
CONNECTIONS = 8
CONNECT_TIMEOUT_SECONDS = 10
#: Socket read timeout. Longer than a watch's bookmark interval (kube: 60 s), so a quiet but
#: healthy stream never times out, and than the slowest LIST of a large cluster.
READ_TIMEOUT_SECONDS = 120
#: Bytes asked of the socket per read: a 15 MB LIST in ~230 reads, not 3,700 of 4 KiB.
BLOCK_SIZE = 64 * 1024
#: What the HTTP layer raises for a refused, reset, timed-out or garbled exchange.
TRANSPORT_ERRORS = (OSError, HTTPParseError)
#: Methods sent again, once, when a pooled connection turns out closed (as client-go does).
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})


class ApiError(Exception):
    """A response with an unexpected status (the body's Status message, when there is one)."""

    def __init__(self, status: int, body: bytes) -> None:
        try:
            message = orjson.loads(body).get("message", "")
        except (orjson.JSONDecodeError, AttributeError):
            message = body[:200].decode(errors="replace")
        super().__init__(f"{status}: {message}")
        self.status = status


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes  # a LIST read for its head: the bytes up to its items
    length: int  # bytes of the whole body

    def json(self) -> Json:
        return orjson.loads(self.body)


class KubeClient:
    def __init__(self, host: str, environment: Environment) -> None:
        url = urlsplit(host)
        if url.scheme != "http" or not url.hostname:
            raise ValueError(f"the load client speaks plain http to a host: {host!r}")
        port = url.port or 80
        self._pool = ConnectionPool(url.hostname, port, url.hostname, port, size=CONNECTIONS,
                                    connection_timeout=CONNECT_TIMEOUT_SECONDS, network_timeout=READ_TIMEOUT_SECONDS)
        self._host_headers = f"Host: {url.netloc}\r\nUser-Agent: fakeapi-load\r\n"
        self._fire = environment.events.request.fire

    def open(self, method: str, path: str, *, params: dict[str, Any] | None = None, body: Json | None = None,
             headers: dict[str, str] | None = None) -> HTTPSocketPoolResponse:
        """The response once its headers arrived, its body left to read (a watch streams it;
        its connection goes back to the pool when the body is read to the end, and is closed
        otherwise); raises ``TRANSPORT_ERRORS``. A pooled connection the server closed (for
        idleness; uvicorn: 5 s) fails at the first read: idempotent methods are sent once more
        on a new one (the pool drops connections it sees closed before handing them out)."""
        payload = orjson.dumps(body) if body is not None else b""
        head = "".join((f"{method} {path}?{urlencode(params)}" if params else f"{method} {path}", " HTTP/1.1\r\n",
                        self._host_headers, *(f"{k}: {v}\r\n" for k, v in (headers or JSON_HEADERS).items()),
                        f"Content-Length: {len(payload)}\r\n\r\n"))
        request = head.encode("latin-1") + payload
        failure: Exception | None = None
        for _attempt in range(2 if method in IDEMPOTENT else 1):
            sock = self._pool.get_socket()
            try:
                sock.sendall(request)
            except OSError as err:
                self._pool.release_socket(sock)
                failure = err
                continue
            try:  # from here the response returns its connection to the pool, or closes it
                return HTTPSocketPoolResponse(sock, self._pool, block_size=BLOCK_SIZE, method=method)
            except HTTPConnectionClosed as err:  # closed before a byte of the response came
                failure = err
        assert failure is not None
        raise failure

    def call(self, verb: str, name: str, method: str, path: str, *, params: dict[str, Any] | None = None,
             body: Json | None = None, headers: dict[str, str] | None = None,
             ok: Iterable[int] = (200, 201), list_head_only: bool = False) -> Response | None:
        """One request recorded as ``verb``/``name`` (time to the whole body); the response, or
        None when it failed (transport error or a status outside ``ok``), recorded as a failure.
        ``list_head_only``: a 200's body is kept only up to its items (``list_head`` reads it)."""
        started = time.perf_counter()
        exception: Exception | None = None
        response: Response | None = None
        try:
            raw = self.open(method, path, params=params, body=body, headers=headers)
            if list_head_only and raw.status_code == 200:
                response = Response(200, *read_list_head(raw.read, BLOCK_SIZE))
            else:
                content = raw.read()
                response = Response(raw.status_code, content, len(content))
            if response.status not in ok:
                exception = ApiError(response.status, response.body)
        except TRANSPORT_ERRORS as err:
            exception = err
        self.fire(verb, name, (time.perf_counter() - started) * 1000,
                  response.length if response is not None else 0, exception)
        return None if exception else response

    def fire(self, verb: str, name: str, milliseconds: float, length: int = 0, exception: Exception | None = None) -> None:
        self._fire(request_type=verb, name=name, response_time=milliseconds, response_length=length,
                   exception=exception, context={})

    def list(self, path: str, name: str, *, verb: str = "LIST", resource_version: str | None = None,
             label_selector: str | None = None, limit: int | None = None) -> ListMeta | None:
        """A LIST (every page when ``limit`` is set, each page a sample of its own named
        ``<name> page``, the whole walk a sample named ``name``); the last page's metadata, or
        None when a page failed. Items are not decoded (``list_items`` does)."""
        params: dict[str, Any] = {}
        if resource_version is not None:
            params["resourceVersion"] = resource_version
        if label_selector:
            params["labelSelector"] = label_selector
        if not limit:
            return self._head(verb, name, self.call(verb, name, "GET", path, params=params, list_head_only=True))
        params["limit"] = limit
        started, total = time.perf_counter(), 0
        while True:
            response = self.call(verb, f"{name} page", "GET", path, params=params, list_head_only=True)
            meta = self._head(verb, f"{name} page", response)
            if response is None or meta is None:
                return None
            total += response.length
            if not meta.continue_:
                self.fire(verb, name, (time.perf_counter() - started) * 1000, total)
                return meta
            params = {"limit": limit, "continue": meta.continue_}

    def _head(self, verb: str, name: str, response: Response | None) -> ListMeta | None:
        """A LIST response's metadata; a body that is no list is a failed sample of its own."""
        if response is None:
            return None
        try:
            return list_head(response.body)
        except msgspec.DecodeError as err:
            self.fire(verb, f"{name} (not a list)", 0, response.length, err)
            return None

    def list_names(self, path: str, name: str, *, resource_version: str | None = None) -> list[tuple[str, str]] | None:
        """(namespace, name) of every item of a LIST (decoding nothing else of them)."""
        params = {"resourceVersion": resource_version} if resource_version is not None else None
        response = self.call("LIST", name, "GET", path, params=params)
        if response is None:
            return None
        return list_names(response.body)


def stamp() -> dict[str, str]:
    """The annotation a writer puts on what it writes: now, as Unix seconds."""
    return {STAMP_ANNOTATION: f"{time.time():.6f}"}


def delivery_latency_ms(annotations: dict[str, str] | None, now: float) -> float | None:
    """Milliseconds from the write that stamped an object with ``annotations`` to ``now``;
    None if unstamped."""
    written = annotations.get(STAMP_ANNOTATION) if annotations else None
    return (now - float(written)) * 1000 if written else None
