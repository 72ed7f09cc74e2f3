"""A Kubernetes API client for Locust users that records every call under a kube verb.

Locust's HTTP users name a sample by HTTP method; a load test of an apiserver wants kube's
verbs (LIST vs GET, WATCH_OPEN, RELIST...), the ``verb`` label of ``apiserver_request_total``.
So each call goes through one ``requests.Session`` (gevent-patched by ``import locust``) and
fires Locust's request event itself, with ``request_type`` = the verb and ``name`` = what was
asked for. A response outside ``ok`` codes is a failure; nothing raises into the user.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import orjson
import requests
from locust.env import Environment
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

Json = dict[str, Any]

#: Where writers put their wall-clock time; watchers subtract it on delivery. Valid because
#: writer and watcher share a clock (one host, or NTP-synced Locust workers).
STAMP_ANNOTATION = "load.fakeapi.dev/written-at"
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
MERGE_PATCH = {"Content-Type": "application/merge-patch+json", "Accept": "application/json"}


class ApiError(Exception):
    """A response with an unexpected status (the body's Status message, when there is one)."""

    def __init__(self, status: int, body: bytes) -> None:
        try:
            message = orjson.loads(body).get("message", "")
        except (orjson.JSONDecodeError, AttributeError):
            message = body[:200].decode(errors="replace")
        super().__init__(f"{status}: {message}")
        self.status = status


class KubeClient:
    def __init__(self, host: str, environment: Environment) -> None:
        self.host = host.rstrip("/")
        self.session = requests.Session()
        self.session.headers["User-Agent"] = "fakeapi-load"
        # A pooled connection the server closed for idleness (uvicorn: 5 s) fails the next
        # request sent on it; like client-go, retry that once, for idempotent methods only
        # (urllib3's default set: not POST, not PATCH). Status codes are never retried.
        retry = Retry(total=1, connect=1, read=1, status=0, redirect=0, raise_on_status=False)
        self.session.mount("http://", HTTPAdapter(max_retries=retry))
        self._fire = environment.events.request.fire

    def call(self, verb: str, name: str, method: str, path: str, *, params: dict[str, Any] | None = None,
             body: Json | None = None, headers: dict[str, str] | None = None,
             ok: Iterable[int] = (200, 201)) -> requests.Response | None:
        """One request recorded as ``verb``/``name``; the response, or None when it failed
        (connection error or a status outside ``ok``), which is recorded as a failure."""
        started = time.perf_counter()
        exception: Exception | None = None
        response: requests.Response | None = None
        try:
            response = self.session.request(method, self.host + path, params=params, headers=headers or JSON_HEADERS,
                                            data=orjson.dumps(body) if body is not None else None, timeout=(10, 120))
            if response.status_code not in ok:
                exception = ApiError(response.status_code, response.content)
        except requests.RequestException as err:
            exception = err
        self.fire(verb, name, (time.perf_counter() - started) * 1000,
                  len(response.content) if response is not None else 0, exception)
        return None if exception else response

    def fire(self, verb: str, name: str, milliseconds: float, length: int = 0, exception: Exception | None = None) -> None:
        self._fire(request_type=verb, name=name, response_time=milliseconds, response_length=length,
                   exception=exception, context={})

    def list(self, path: str, name: str, *, verb: str = "LIST", resource_version: str | None = None,
             label_selector: str | None = None, limit: int | None = None) -> Json | None:
        """A LIST (every page when ``limit`` is set, each page a sample of its own named
        ``<name> page``, the whole walk a sample named ``name``); the last page, decoded, with
        ``items`` of all pages."""
        params: dict[str, Any] = {}
        if resource_version is not None:
            params["resourceVersion"] = resource_version
        if label_selector:
            params["labelSelector"] = label_selector
        if not limit:
            response = self.call(verb, name, "GET", path, params=params)
            return orjson.loads(response.content) if response is not None else None
        params["limit"] = limit
        started, items, total = time.perf_counter(), [], 0
        while True:
            response = self.call(verb, f"{name} page", "GET", path, params=params)
            if response is None:
                return None
            total += len(response.content)
            page = orjson.loads(response.content)
            items.extend(page.get("items") or ())
            token = page["metadata"].get("continue")
            if not token:
                page["items"] = items
                self.fire(verb, name, (time.perf_counter() - started) * 1000, total)
                return page
            params = {"limit": limit, "continue": token}


def stamp() -> dict[str, str]:
    """The annotation a writer puts on what it writes: now, as Unix seconds."""
    return {STAMP_ANNOTATION: f"{time.time():.6f}"}


def delivery_latency_ms(obj: Json, now: float) -> float | None:
    """Milliseconds from the write that stamped ``obj`` to ``now``; None if unstamped."""
    written = ((obj.get("metadata") or {}).get("annotations") or {}).get(STAMP_ANNOTATION)
    return (now - float(written)) * 1000 if written else None
