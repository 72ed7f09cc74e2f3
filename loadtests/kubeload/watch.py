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

Streams are read chunk by chunk (``iter_content(chunk_size=None)`` yields each HTTP chunk as
it arrives); a line iterator would hold the last event back until more bytes came.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterable, Iterator
from typing import Any

import gevent
import orjson
import requests

from .client import KubeClient, delivery_latency_ms

#: client-go's reflector asks for a server-side timeout of 5-10 min; 300 s is its minimum.
WATCH_TIMEOUT_SECONDS = 300
#: Longer than the server's bookmark interval, so a quiet but healthy stream never times out.
READ_TIMEOUT_SECONDS = 90
RETRY_SECONDS = 1.0


class WatchEnd(enum.Enum):
    ENDED = "ended"  # the server closed the stream: re-watch from the last resourceVersion
    EXPIRED = "expired"  # 410: the resourceVersion left the server's window: relist
    FAILED = "failed"  # could not open or read: wait, then re-watch


def split_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Complete lines as soon as their newline arrives, whatever the chunking."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        *lines, pending = pending.split(b"\n")
        yield from (line for line in lines if line)


class Informer:
    """Lists and watches ``path`` (a collection URL path) until stopped; ``resource_version``
    is the last one seen, as a reflector keeps it."""

    def __init__(self, client: KubeClient, path: str, name: str, *, label_selector: str | None = None) -> None:
        self.client = client
        self.path = path
        self.name = name
        self.label_selector = label_selector
        self.resource_version = ""
        self.objects = 0  # items of the last list
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
            page = self.client.list(self.path, self.name, verb=verb, resource_version=resource_version,
                                    label_selector=self.label_selector)
            if page is not None:
                self.resource_version = page["metadata"]["resourceVersion"]
                self.objects = len(page.get("items") or ())
                return
            gevent.sleep(RETRY_SECONDS)

    def _watch(self) -> WatchEnd:
        params: dict[str, Any] = {"watch": "true", "resourceVersion": self.resource_version,
                                  "allowWatchBookmarks": "true", "timeoutSeconds": WATCH_TIMEOUT_SECONDS}
        if self.label_selector:
            params["labelSelector"] = self.label_selector
        started = time.perf_counter()
        try:
            response = self.client.session.get(self.client.host + self.path, params=params, stream=True,
                                               timeout=(10, READ_TIMEOUT_SECONDS))
        except requests.RequestException as err:
            self.client.fire("WATCH_OPEN", self.name, (time.perf_counter() - started) * 1000, 0, err)
            return WatchEnd.FAILED
        try:
            failure = None if response.status_code == 200 else RuntimeError(f"status {response.status_code}")
            self.client.fire("WATCH_OPEN", self.name, (time.perf_counter() - started) * 1000, 0, failure)
            if failure is not None:
                return WatchEnd.FAILED
            return self._read(response)
        except requests.RequestException as err:
            self.client.fire("WATCH_EVENT", f"read {self.name}", 0, 0, err)
            return WatchEnd.FAILED
        finally:
            response.close()

    def _read(self, response: requests.Response) -> WatchEnd:
        previous = time.time()
        for line in split_lines(response.iter_content(chunk_size=None)):
            now = time.time()
            event = orjson.loads(line)
            kind, obj = event["type"], event["object"]
            if kind == "ERROR":
                if obj.get("code") == 410:
                    return WatchEnd.EXPIRED
                self.client.fire("WATCH_EVENT", f"ERROR {self.name}", 0, len(line), RuntimeError(obj.get("message")))
                return WatchEnd.FAILED
            self.resource_version = obj["metadata"]["resourceVersion"]
            if kind == "BOOKMARK":
                self.client.fire("BOOKMARK", self.name, (now - previous) * 1000, len(line))
            else:
                latency = delivery_latency_ms(obj, now) if kind != "DELETED" else None
                if latency is None:
                    self.client.fire("WATCH_EVENT_UNTIMED", f"{kind} {self.name}", 0, len(line))
                else:
                    self.client.fire("WATCH_EVENT", f"{kind} {self.name}", latency, len(line))
            previous = now
        return WatchEnd.ENDED
