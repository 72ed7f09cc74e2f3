"""``RemoteStore``: the store's interface (``fakeapi.store.StoreInterface``) over an etcd v3 client
(grpcio), so the API layer runs unchanged over ``fakeapi etcd`` or a real etcd cluster, the way
kube-apiserver's etcd3 storage runs over etcd (``k8s.io/apiserver/pkg/storage/etcd3``).

What the registry and the watch caches call on a store, this answers with one gRPC call:
``range``/``get`` are etcd Ranges, ``txn`` a Txn, ``lease_grant`` a LeaseGrant, ``compact`` a
Compact, ``revision`` a one-key Range whose header carries the store's current revision (kube's
``GetCurrentResourceVersion``). Those calls are synchronous, as the in-process store's are, and
block the event loop for their round trip (~0.1-0.3 ms on loopback). Watches are not: each
``new_stream`` is a bidirectional Watch call on an asyncio channel, whose responses are queued
for the cacher's ``poll`` exactly as the in-process ``WatchStream`` queues them.

Over ``fakeapi serve --workers``' own store process the calls go to its framed socket instead
(``framed``: gRPC in Python costs more than the store's work), watches included, and a call
made where it can wait (a request's, under ``runtime.run_awaiting``: ``calls_wait``) waits on
the event loop while other requests are served. Their writes then interleave as two API
processes' do: each is a compare-and-swap, which tells when another came between its read and
its write.

Several API processes write to one etcd, so a writer cannot know the revision its write will get
(the in-process registry, the only writer of its store, does). The registry encodes an object
with the revision it expects and repairs its answer when the txn got another; what it reads
back goes through ``value_transform`` (kube's ``value.Transformer`` on the read path, and its
versioner setting ``resourceVersion`` from ``mod_revision``), which puts the key-value's own
``mod_revision`` into the value. etcd's errors come back as the store's ``EtcdError`` classes,
rebuilt from the status message as etcd's Go client rebuilds them (``rpctypes.Error``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, NoReturn
from urllib.parse import urlsplit

import grpc

from ..runtime import can_wait, wait_for
from ..store import (
    EtcdError,
    Event,
    EventType,
    KeyValue,
    LeaseGrantResponse,
    RangeRequest,
    RangeResponse,
    TxnRequest,
    TxnResponse,
    WatchResponse,
)
from ..store import errors as store_errors
from ..store.kvstore import DEFAULT_MAX_TXN_OPS
from ..store.watcher import STREAM_PROGRESS_ID
from . import convert, framed
from .framed import FramedChannel
from .pb import rpc_pb2, rpc_pb2_grpc

#: (value, mod_revision) -> the value as readers must see it.
ValueTransform = Callable[[bytes, int], bytes]

#: How long one call may take before it fails (kube-apiserver's etcd request timeout is 5 s for
#: most calls; a LIST of a large prefix takes longer, so this is generous).
CALL_TIMEOUT = 60.0
#: gRPC's default receive limit is 4 MiB; a range of a large prefix is far bigger.
MAX_MESSAGE_BYTES = 2**31 - 1
#: How long a failed watch call waits before it is made again, doubling up to the maximum.
RESUME_BACKOFF = 0.1
RESUME_BACKOFF_MAX = 2.0
#: A key that sorts before every key kube writes: ranging it reads the current revision only.
_REVISION_PROBE = b"\x00"

_ERRORS: dict[str, type[EtcdError]] = {
    cls.message: cls for cls in vars(store_errors).values()
    if isinstance(cls, type) and issubclass(cls, EtcdError) and cls is not EtcdError
}


class LeaseClock(NamedTuple):
    """What the registry's lease manager reads of a store's lessor: the clock leases expire by.
    etcd's lessor runs on its own machine's clock; on one machine that is this monotonic one."""

    clock: Callable[[], float]


def grpc_target(urls: Sequence[str]) -> str:
    """A gRPC target for etcd's client URLs (``http://HOST:PORT``, comma-free): one address, or
    several as one ``ipv4:`` target (names resolved now) that fails over between them (gRPC's
    pick_first)."""
    addresses = []
    for url in urls:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if parts.scheme != "http" or not parts.hostname or parts.port is None:
            raise ValueError(f"unsupported etcd URL {url!r}: want http://HOST:PORT (no TLS)")
        addresses.append(f"{parts.hostname}:{parts.port}")
    if not addresses:
        raise ValueError("no etcd URL given")
    if len(addresses) == 1:
        return addresses[0]
    return "ipv4:" + ",".join(_ipv4(address) for address in addresses)


def _ipv4(address: str) -> str:
    """``HOST:PORT`` with HOST resolved (gRPC's ``ipv4:`` target takes addresses only)."""
    host, _, port = address.rpartition(":")
    try:
        ipaddress.IPv4Address(host)
        return address
    except ValueError:
        pass
    try:
        return f"{socket.gethostbyname(host)}:{port}"
    except OSError as err:
        raise ValueError(f"etcd member {host!r}: {err}") from None


def _raise(err: grpc.RpcError) -> NoReturn:
    message = err.details() or str(err)  # type: ignore[attr-defined]
    if err.code() is grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in message:  # type: ignore[attr-defined]
        # The server's gRPC limit (etcd's --max-request-bytes plus 512 KiB) refused the message
        # before etcd saw it: kube-apiserver reports that write as etcd's request too large.
        raise store_errors.ErrRequestTooLarge() from None
    cls = _ERRORS.get(message)
    raise (cls() if cls is not None else EtcdError(message)) from None


#: The response message of each unary call, by name.
_RESPONSES = {"Range": rpc_pb2.RangeResponse, "Txn": rpc_pb2.TxnResponse, "Compact": rpc_pb2.CompactionResponse,
              "LeaseGrant": rpc_pb2.LeaseGrantResponse}

_OPTIONS = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES)]


class RemoteStore:
    """``fakeapi.store.StoreInterface`` over etcd's v3 API."""

    journal = None
    max_txn_ops = DEFAULT_MAX_TXN_OPS

    def __init__(self, urls: Sequence[str], value_transform: ValueTransform | None = None,
                 socket_path: str | None = None) -> None:
        self.target = grpc_target(urls)
        self._transform = value_transform
        self._channel = grpc.insecure_channel(self.target, options=_OPTIONS)
        kv, lease = rpc_pb2_grpc.KVStub(self._channel), rpc_pb2_grpc.LeaseStub(self._channel)
        #: The unary calls on the gRPC channel, by their names in ``framed.METHODS``.
        self._unary = {"Range": kv.Range, "Txn": kv.Txn, "Compact": kv.Compact, "LeaseGrant": lease.LeaseGrant}
        self._async_channel: grpc.aio.Channel | None = None
        #: The store process's framed socket (``fakeapi serve --workers``' own store): the calls
        #: made where they can wait go there and wait on the event loop (``calls_wait``).
        self._framed = FramedChannel(socket_path) if socket_path else None
        self.calls_wait = self._framed is not None
        self._streams: set[RemoteWatchStream] = set()
        #: The newest revision any answer carried: what this process knows without asking.
        self.known_revision = 0
        #: The newest compaction this process asked for or was told of.
        self.compact_revision = 0
        self.lessor = LeaseClock(time.monotonic)

    async def aclose(self) -> None:
        for stream in list(self._streams):
            self.close_stream(stream)
        self._channel.close()
        if self._framed is not None:
            self._framed.close()
        if self._async_channel is not None:
            await self._async_channel.close()
            self._async_channel = None

    # ----------------------------------------------------------------- KV

    def _seen(self, revision: int) -> int:
        if revision > self.known_revision:
            self.known_revision = revision
        return revision

    def _call(self, method: str, request: Any) -> Any:
        """The answer of the unary call ``method`` (its name in ``framed.METHODS``) to
        ``request``, its header's revision noted; etcd's error raised as the store's. With a
        framed socket, a call made where it can wait (a request's, under
        ``run_awaiting``) goes there and waits on the event loop, which serves other requests
        meanwhile (the registry's writes are compare-and-swaps: one finds when another came
        between its read and its write); any other call blocks the loop for its round trip
        (~0.1-0.3 ms on loopback)."""
        try:
            if self._framed is not None and can_wait():
                response = _RESPONSES[method].FromString(wait_for(self._framed.call(
                    method, request.SerializeToString(), CALL_TIMEOUT)))
            else:
                response = self._unary[method](request, timeout=CALL_TIMEOUT)
        except grpc.RpcError as err:
            _raise(err)
        self._seen(response.header.revision)
        return response

    @property
    def revision(self) -> int:
        """The store's current revision, asked now (a linearizable one-key Range)."""
        return self._call("Range", rpc_pb2.RangeRequest(key=_REVISION_PROBE, count_only=True)).header.revision

    def range(self, req: RangeRequest) -> RangeResponse:
        resp = self._call("Range", convert.range_message(req))
        return RangeResponse(resp.header.revision, self._kvs(resp.kvs), resp.count, resp.more)

    def get(self, key: bytes, rev: int = 0) -> KeyValue | None:
        kvs = self.range(RangeRequest(key, revision=rev)).kvs
        return kvs[0] if kvs else None

    def txn(self, req: TxnRequest) -> TxnResponse:
        txn = convert.txn_response_of(self._call("Txn", convert.txn_message(req)))
        if self._transform is None:
            return txn
        return txn._replace(responses=[
            r._replace(kvs=self._kvs(r.kvs)) if isinstance(r, RangeResponse) else r for r in txn.responses
        ])

    def compact(self, rev: int) -> int:
        self._call("Compact", rpc_pb2.CompactionRequest(revision=rev))
        self.compact_revision = max(self.compact_revision, rev)
        return rev

    def lease_grant(self, ttl: int, lease_id: int = 0) -> LeaseGrantResponse:
        resp = self._call("LeaseGrant", rpc_pb2.LeaseGrantRequest(TTL=ttl, ID=lease_id))
        if resp.error:
            raise EtcdError(resp.error)
        return LeaseGrantResponse(resp.header.revision, resp.ID, resp.TTL)

    def notify_progress(self) -> int:
        """The client's side of etcd's periodic progress notifications: each of this process's
        watch streams asks for one (an etcd's own interval is ten minutes unless configured), so
        the caches follow writes to other prefixes. Returns the revision known before."""
        for stream in self._streams:
            stream.request_progress()
        return self.known_revision

    def expire_leases(self) -> list[int]:
        """Nothing to do here: etcd's lessor expires its leases on the server."""
        return []

    def commit_time(self, rev: int) -> float:
        """Unknown here: the commit happened in another process (0.0 tells the cacher so)."""
        return 0.0

    def _kvs(self, messages: Any) -> list[KeyValue]:
        transform = self._transform
        if transform is None:
            return [convert.key_value_of(m) for m in messages]
        return [KeyValue(m.key, m.create_revision, m.mod_revision, m.version,
                         transform(m.value, m.mod_revision) if m.value else m.value, m.lease)
                for m in messages]

    def _event(self, m: Any) -> Event:
        kv = self._kvs((m.kv,))[0]
        prev = self._kvs((m.prev_kv,))[0] if m.HasField("prev_kv") else None
        return Event(EventType(m.type), kv, prev)

    # ----------------------------------------------------------------- watch

    def new_stream(self, capacity: int = 0, on_ready: Callable[[], None] | None = None) -> RemoteWatchStream:
        """A Watch call of its own (the caller's loop must be running); ``capacity`` is unused:
        gRPC's flow control (or the framed socket's) is what holds a slow consumer's events back."""
        if self._framed is not None:
            stub: Any = _FramedWatch(self._framed)
        else:
            if self._async_channel is None:
                self._async_channel = grpc.aio.insecure_channel(self.target, options=_OPTIONS)
            stub = rpc_pb2_grpc.WatchStub(self._async_channel)
        stream = RemoteWatchStream(self, stub, on_ready)
        self._streams.add(stream)
        return stream

    def close_stream(self, stream: RemoteWatchStream) -> None:
        stream.close()
        self._streams.discard(stream)


class _FramedWatch:
    """The Watch stub of a framed socket (``framed.FramedChannel``): a call as gRPC's."""

    def __init__(self, channel: FramedChannel) -> None:
        self._channel = channel

    def Watch(self, requests: Any) -> framed.FramedStream:  # noqa: N802 - the stub's name
        return self._channel.stream("Watch", requests, rpc_pb2.WatchResponse)


class RemoteWatchStream:
    """One etcd Watch call as the cacher's ``WatchStreamInterface``: ``watch`` and ``request_progress``
    send requests, a reader task queues the answers for ``poll``. A ``created`` answer is not
    passed on: its header revision is the store's when the watch was made, which says nothing of
    the events still to come from the watch's start revision (a progress notification does).

    When the call fails (the member went away) it is made again, and every watch resumes from
    the revision after the last it delivered, as etcd's Go client resumes its watches on another
    endpoint: the consumer sees no gap and no repeat (or, resuming past a compaction, the
    compacted cancel it would have seen anyway)."""

    def __init__(self, store: RemoteStore, stub: Any, on_ready: Callable[[], None] | None) -> None:
        self._store = store
        self._stub = stub
        self.on_ready = on_ready
        self._requests: asyncio.Queue[Any] = asyncio.Queue()
        self._queue: deque[WatchResponse] = deque()
        #: Our watch id -> (its create request, the revision it resumes from).
        self._watches: dict[int, tuple[Any, int]] = {}
        self._next_id = 0
        self.closed = False
        self._reader = asyncio.get_running_loop().create_task(self._run(), name=f"etcd watch {store.target}")

    @staticmethod
    async def _outgoing(requests: asyncio.Queue[Any]) -> Any:
        while True:
            request = await requests.get()
            if request is None:
                return
            yield request

    def watch(self, key: bytes, range_end: bytes = b"", start_revision: int = 0, *, prev_kv: bool = False,
              filters: tuple[Any, ...] = (), progress_notify: bool = False, watch_id: int = -1) -> int:
        ours = self._next_id if watch_id < 0 else watch_id
        self._next_id = max(self._next_id, ours) + 1
        create = rpc_pb2.WatchCreateRequest(
            key=key, range_end=range_end, start_revision=start_revision, prev_kv=prev_kv,
            filters=[int(f) for f in filters], progress_notify=progress_notify, watch_id=ours,
        )
        self._watches[ours] = (create, start_revision)
        self._requests.put_nowait(rpc_pb2.WatchRequest(create_request=create))
        return ours

    def request_progress(self) -> bool:
        self._requests.put_nowait(rpc_pb2.WatchRequest(progress_request=rpc_pb2.WatchProgressRequest()))
        return True

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._requests.put_nowait(None)
        self._reader.cancel()
        self._queue.clear()

    def poll(self) -> list[WatchResponse]:
        out = list(self._queue)
        self._queue.clear()
        return out

    @property
    def has_pending(self) -> bool:
        return bool(self._queue)

    async def _run(self) -> None:
        backoff = RESUME_BACKOFF
        while not self.closed:
            call = self._stub.Watch(self._outgoing(self._requests))
            try:
                async for m in call:
                    backoff = RESUME_BACKOFF
                    self._receive(m)
            except grpc.RpcError:
                pass  # the member is gone or going: resume below
            finally:
                call.cancel()
            if self.closed:
                return
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, RESUME_BACKOFF_MAX)
            self._requests.put_nowait(None)  # ends the old call's request stream
            self._requests = asyncio.Queue()
            for create, resume_from in self._watches.values():
                create.start_revision = resume_from
                self._requests.put_nowait(rpc_pb2.WatchRequest(create_request=create))

    def _receive(self, m: Any) -> None:
        store = self._store
        revision = store._seen(m.header.revision)
        if m.created and not m.canceled:
            return
        if m.compact_revision:
            store.compact_revision = max(store.compact_revision, m.compact_revision)
        events = tuple(store._event(e) for e in m.events)
        if m.watch_id >= 0 and m.watch_id in self._watches:
            create, _ = self._watches[m.watch_id]
            if m.canceled:
                del self._watches[m.watch_id]
            else:  # after its last event, or after a progress notification's revision
                self._watches[m.watch_id] = (create, (events[-1].kv.mod_revision if events else revision) + 1)
        elif not events:  # a progress notification for the whole stream
            self._watches = {ours: (create, max(resume_from, revision + 1))
                             for ours, (create, resume_from) in self._watches.items()}
        watch_id = STREAM_PROGRESS_ID if m.watch_id < 0 else m.watch_id
        self._offer(WatchResponse(watch_id, revision, events, m.compact_revision, m.canceled, m.cancel_reason))

    def _offer(self, response: WatchResponse) -> None:
        self._queue.append(response)
        if self.on_ready is not None:
            self.on_ready()
