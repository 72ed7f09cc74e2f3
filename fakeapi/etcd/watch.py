"""One ``Watch`` RPC: a bidi stream of ``WatchRequest`` in and ``WatchResponse`` out over one
store ``WatchStream`` (etcd's ``serverWatchStream``, v3rpc/watch.go).

A reader task applies requests as they arrive: create (answered ``created``, or created and
canceled with watch id -1 and the reason), cancel (answered ``canceled`` after every event the
watch was already given), progress requests (queued in the store stream behind earlier events).
The RPC's own task writes: control answers first, then whatever the store stream has ready, so a
watch's ``created`` always precedes its events. A client that half-closes keeps receiving, as
with etcd; the stream ends when the client cancels the RPC.

Responses are shaped as etcd's: events without prev_kv unless asked; a watcher overtaken by
compaction gets ``canceled`` with ``compact_revision`` and header revision 0; a progress
notification answering ``progress_request`` has watch id -1; a watch created with ``fragment``
gets responses larger than the request limit split in several, all but the last marked
``fragment`` (``sendFragments``).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Protocol

import grpc

from ..store import ErrCompacted, EtcdError, Store, WatchResponse
from . import convert
from .faults import ERRORS
from .pb import rpc_pb2
from .wire import Encoder

#: ``clientv3.InvalidWatchID``.
INVALID_WATCH_ID = -1


class WatchServer(Protocol):
    """What a session needs of the server it runs in (``server.EtcdServer``): declared here so
    that the server, which opens sessions, is the one that imports."""

    store: Store
    encoder: Encoder
    cluster_id: int
    member_id: int
    raft_term: int
    #: The open sessions, which the server ends when it loses its leader (a fault).
    watch_sessions: set[WatchSession]

    @property
    def max_receive_bytes(self) -> int: ...

    def header(self, revision: int | None = None) -> Any: ...


class WatchSession:
    def __init__(self, server: WatchServer, context: grpc.aio.ServicerContext) -> None:
        self.server = server
        self.store = server.store
        self.context = context
        self.ready = asyncio.Event()
        self.stream = self.store.new_stream(on_ready=self.ready.set)
        self.control: deque[Any] = deque()  # responses to write before the stream's
        self.fragment_ids: set[int] = set()
        self.fragment_limit = server.max_receive_bytes
        self.encoder = server.encoder
        self.dropped = False

    def drop(self) -> None:
        """End the stream as etcd does when it loses its leader (a fault)."""
        self.dropped = True
        self.ready.set()

    async def run(self) -> None:
        reader = asyncio.create_task(self._read())
        self.server.watch_sessions.add(self)
        try:
            while True:
                await self.ready.wait()
                self.ready.clear()
                if self.dropped:
                    await self.context.abort(*ERRORS["no-leader"])
                if reader.done() and reader.exception() is not None:
                    raise reader.exception()  # type: ignore[misc]
                self._take_stream()
                while self.control:
                    await self.context.write(self.control.popleft())
                if self.stream.has_pending:
                    # Watchers that fell behind while the client read slowly catch up a batch
                    # per poll, and nothing else wakes this loop for the rest.
                    self.ready.set()
        finally:
            self.server.watch_sessions.discard(self)
            reader.cancel()
            self.store.close_stream(self.stream)

    # ----------------------------------------------------------------- requests

    async def _read(self) -> None:
        try:
            while True:
                request = await self.context.read()
                if request is grpc.aio.EOF:
                    return  # half-closed: keep sending, as etcd does
                which = request.WhichOneof("request_union")
                if which == "create_request":
                    self._create(request.create_request)
                elif which == "cancel_request":
                    self._cancel(request.cancel_request.watch_id)
                elif which == "progress_request":
                    self.stream.request_progress()
                self.ready.set()
        finally:
            self.ready.set()  # let the writer see a failed read

    def _create(self, create: Any) -> None:
        header = self.server.header()
        if create.start_revision < 0:
            self._rejected(header, str(ErrCompacted()))
            return
        try:
            watch_id = self.stream.watch(
                create.key, create.range_end, create.start_revision, prev_kv=create.prev_kv,
                filters=convert.watch_filters(create.filters),
                progress_notify=create.progress_notify, watch_id=create.watch_id or -1,
            )
        except EtcdError as err:
            self._rejected(header, str(err))
            return
        if create.fragment:
            self.fragment_ids.add(watch_id)
        self.control.append(rpc_pb2.WatchResponse(header=header, watch_id=watch_id, created=True))

    def _rejected(self, header: Any, reason: str) -> None:
        self.control.append(rpc_pb2.WatchResponse(
            header=header, watch_id=INVALID_WATCH_ID, created=True, canceled=True,
            cancel_reason=reason,
        ))

    def _cancel(self, watch_id: int) -> None:
        self._take_stream()  # what the watch was given before the cancel goes out before it
        if self.stream.cancel(watch_id):
            self.fragment_ids.discard(watch_id)
            self.control.append(rpc_pb2.WatchResponse(
                header=self.server.header(), watch_id=watch_id, canceled=True
            ))

    # ----------------------------------------------------------------- responses

    def _take_stream(self) -> None:
        for resp in self.stream.poll():
            message = self._message(resp)
            if resp.watch_id in self.fragment_ids and len(resp.events) > 1:
                whole = rpc_pb2.WatchResponse.FromString(message)
                self.control.extend(_fragments(whole, self.fragment_limit))
            else:
                self.control.append(message)

    def _message(self, resp: WatchResponse) -> Any:
        """The response's message, or its bytes (events and progress: the hot path)."""
        if resp.canceled:
            server = self.server
            header = rpc_pb2.ResponseHeader(
                cluster_id=server.cluster_id, member_id=server.member_id,
                revision=resp.header_revision, raft_term=server.raft_term,
            )
            return rpc_pb2.WatchResponse(
                header=header, watch_id=resp.watch_id, canceled=True,
                compact_revision=resp.compact_revision, cancel_reason=resp.cancel_reason,
            )
        return self.encoder.watch_events(resp.header_revision, resp.watch_id, resp.events)


def _fragments(message: Any, limit: int) -> list[Any]:
    """etcd's ``sendFragments``: a response of ``limit`` bytes or more is split, each part
    holding as many events as fit under the limit (at least one)."""
    if message.ByteSize() < limit:
        return [message]
    events = list(message.events)
    parts = []
    index = 0
    while True:
        part = rpc_pb2.WatchResponse()
        part.CopyFrom(message)
        del part.events[:]
        part.fragment = True
        for ev in events[index:]:
            part.events.append(ev)
            if len(part.events) > 1 and part.ByteSize() >= limit:
                del part.events[-1]
                break
            index += 1
        if index == len(events):
            part.fragment = False
        parts.append(part)
        if not part.fragment:
            return parts
