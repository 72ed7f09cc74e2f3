"""An informer's reflector for Locust: LIST, then WATCH from the list's resourceVersion in a
greenlet of its own, re-watch after a clean end, relist after 410 Expired.

What it records (``request_type`` / ``name``):

* ``LIST`` the first list (``resourceVersion=0``, from the watch cache, as client-go's first
  list), ``RELIST`` a list after 410 (``resourceVersion=""``, a consistent read);
* ``WATCH_OPEN`` time to the response headers of each watch request;
* ``WATCH_EVENT`` per ADDED/MODIFIED event of a stamped object: write-to-delivery latency
  (``client.STAMP_ANNOTATION``); ``WATCH_EVENT_UNTIMED`` other events (DELETED, objects no
  load writer stamped), with 0 ms, so they are counted but leave latencies alone;
* ``BOOKMARK`` per bookmark: the gap since the stream's previous line, which shows the cadence.

A stream is read line by line as bytes arrive (geventhttpclient's ``readline`` returns a line
once its newline is in, never waiting for a full block), and each line is decoded only as far
as the fields used: the event type, the object's resourceVersion and annotations (msgspec
skips the rest without building it; an ERROR event's Status is decoded whole).
"""

from __future__ import annotations

import enum
import time
from typing import Any

import gevent
import msgspec
import orjson
from geventhttpclient.response import HTTPSocketPoolResponse

from .client import TRANSPORT_ERRORS, KubeClient, delivery_latency_ms
from .decode import watch_event

#: client-go's reflector asks for a server-side timeout of 5-10 min; 300 s is its minimum.
WATCH_TIMEOUT_SECONDS = 300
RETRY_SECONDS = 1.0


class WatchEnd(enum.Enum):
    ENDED = "ended"  # the server closed the stream: re-watch from the last resourceVersion
    EXPIRED = "expired"  # 410: the resourceVersion left the server's window: relist
    FAILED = "failed"  # could not open or read: wait, then re-watch


class Informer:
    """Lists and watches ``path`` (a collection URL path) until stopped; ``resource_version``
    is the last one seen, as a reflector keeps it."""

    def __init__(self, client: KubeClient, path: str, name: str, *, label_selector: str | None = None) -> None:
        self.client = client
        self.path = path
        self.name = name
        self.label_selector = label_selector
        self.resource_version = ""
        self._greenlet: gevent.Greenlet | None = None

    def start(self) -> None:
        self._greenlet = gevent.spawn(self._run)

    def stop(self) -> None:
        if self._greenlet is not None:
            self._greenlet.kill(block=False)

    def _run(self) -> None:
        self._list("LIST", "0")
        while True:
            end = self._watch()
            if end is WatchEnd.EXPIRED:
                self._list("RELIST", "")
            elif end is WatchEnd.FAILED:
                gevent.sleep(RETRY_SECONDS)

    def _list(self, verb: str, resource_version: str) -> None:
        while True:
            meta = self.client.list(self.path, self.name, verb=verb, resource_version=resource_version,
                                    label_selector=self.label_selector)
            if meta is not None:
                self.resource_version = meta.resourceVersion
                return
            gevent.sleep(RETRY_SECONDS)

    def _watch(self) -> WatchEnd:
        params: dict[str, Any] = {"watch": "true", "resourceVersion": self.resource_version,
                                  "allowWatchBookmarks": "true", "timeoutSeconds": WATCH_TIMEOUT_SECONDS}
        if self.label_selector:
            params["labelSelector"] = self.label_selector
        started = time.perf_counter()
        try:
            response = self.client.open("GET", self.path, params=params)
        except TRANSPORT_ERRORS as err:
            self.client.fire("WATCH_OPEN", self.name, (time.perf_counter() - started) * 1000, 0, err)
            return WatchEnd.FAILED
        try:
            failure = None if response.status_code == 200 else RuntimeError(f"status {response.status_code}")
            self.client.fire("WATCH_OPEN", self.name, (time.perf_counter() - started) * 1000, 0, failure)
            if failure is not None:
                return WatchEnd.FAILED
            return self._read(response)
        except (*TRANSPORT_ERRORS, msgspec.DecodeError, orjson.JSONDecodeError) as err:  # a broken stream or line
            self.client.fire("WATCH_EVENT", f"read {self.name}", 0, 0, err)
            return WatchEnd.FAILED
        finally:
            response.release()  # closes the connection unless the stream ended cleanly

    def _read(self, response: HTTPSocketPoolResponse) -> WatchEnd:
        previous = time.time()
        while line := response.readline(b"\n"):  # b"" once the stream has ended
            now = time.time()
            event = watch_event(line)
            kind = event.type
            if kind == "ERROR":
                status = orjson.loads(line)["object"]
                if status.get("code") == 410:
                    return WatchEnd.EXPIRED
                self.client.fire("WATCH_EVENT", f"ERROR {self.name}", 0, len(line), RuntimeError(status.get("message")))
                return WatchEnd.FAILED
            meta = event.object.metadata
            self.resource_version = meta.resourceVersion
            if kind == "BOOKMARK":
                self.client.fire("BOOKMARK", self.name, (now - previous) * 1000, len(line))
            else:
                latency = delivery_latency_ms(meta.annotations, now) if kind != "DELETED" else None
                if latency is None:
                    self.client.fire("WATCH_EVENT_UNTIMED", f"{kind} {self.name}", 0, len(line))
                else:
                    self.client.fire("WATCH_EVENT", f"{kind} {self.name}", latency, len(line))
            previous = now
        return WatchEnd.ENDED
