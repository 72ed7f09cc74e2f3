"""The store process's framed socket (``fakeapi/etcd/framed.py``), as ``fakeapi serve --workers``'
API workers use it: a ``RemoteStore`` given the socket sends the calls made where they can wait
(under ``run_awaiting``) there, the others over gRPC, and both must answer alike — results,
etcd's errors, faults, size limits, watches (resumed after a lost leader), calls in flight
together, and a store that goes away."""

from __future__ import annotations

import asyncio
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from fakeapi.etcd import EtcdServer, framed
from fakeapi.etcd.client import RemoteStore
from fakeapi.etcd.pb import rpc_pb2
from fakeapi.runtime import can_wait, run_awaiting
from fakeapi.store import (Compare, CompareResult, CompareTarget, EtcdError, EventType, PutRequest, RangeRequest,
                           Store, TxnRequest)
from fakeapi.store.errors import ErrCompacted, ErrRequestTooLarge

T = TypeVar("T")

MAX_REQUEST_BYTES = 64 * 1024


class Served:
    """``fakeapi etcd`` with its framed socket, on an event loop of its own (a thread: the
    client's gRPC calls block theirs), and a client store on both."""

    def __init__(self, tmp_path: Path) -> None:
        self.path = str(tmp_path / "store.sock")
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.server = self.start()
        self.client: RemoteStore | None = None

    def on_server(self, call: Callable[[], T]) -> T:
        """``call()`` run on the server's loop (its faults, its watch sessions)."""
        async def run() -> T:
            return call()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    def start(self) -> EtcdServer:
        async def start() -> EtcdServer:
            server = EtcdServer(Store(), max_request_bytes=MAX_REQUEST_BYTES)
            self.urls = await server.start(["http://127.0.0.1:0"])
            Path(self.path).unlink(missing_ok=True)
            await server.serve_framed(self.path)
            return server
        return asyncio.run_coroutine_threadsafe(start(), self.loop).result(10)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(None), self.loop).result(10)

    async def framed(self, call: Callable[[], T]) -> T:
        """``call()`` where it can wait: over the framed socket."""
        def checked() -> T:
            assert can_wait()
            return call()
        return await run_awaiting(checked)


def _run(tmp_path: Path, test: Callable[[Served, RemoteStore], Any]) -> None:
    served = Served(tmp_path)

    async def main() -> None:
        client = RemoteStore(served.urls, socket_path=served.path)
        try:
            await test(served, client)
        finally:
            await client.aclose()
    try:
        asyncio.run(main())
    finally:
        served.stop()
        served.loop.call_soon_threadsafe(served.loop.stop)


def _put(key: bytes, value: bytes, *, absent: bool = False) -> TxnRequest:
    compare = (Compare(key, CompareTarget.MOD, CompareResult.EQUAL, 0),) if absent else ()
    return TxnRequest(compare=compare, success=(PutRequest(key, value),))


def test_framed_calls_answer_as_grpc_calls(tmp_path: Path) -> None:
    async def test(served: Served, store: RemoteStore) -> None:
        assert store.calls_wait
        over_grpc = store.txn(_put(b"/a", b"1", absent=True))
        over_socket = await served.framed(lambda: store.txn(_put(b"/b", b"2", absent=True)))
        assert over_grpc.succeeded and over_socket.succeeded
        assert over_socket.header_revision == over_grpc.header_revision + 1
        lost = await served.framed(lambda: store.txn(_put(b"/a", b"3", absent=True)))
        assert not lost.succeeded  # a compare that fails is an answer, not an error
        whole = RangeRequest(b"/", b"0")
        assert await served.framed(lambda: store.range(whole)) == store.range(whole)
        assert [kv.value for kv in store.range(whole).kvs] == [b"1", b"2"]
        assert store.known_revision == over_socket.header_revision
        lease = await served.framed(lambda: store.lease_grant(60))
        assert lease.ttl == 60 and lease.id
        assert await served.framed(lambda: store.compact(over_grpc.header_revision)) == over_grpc.header_revision
        with pytest.raises(ErrCompacted):
            await served.framed(lambda: store.range(RangeRequest(b"/a", revision=1)))
    _run(tmp_path, test)


def test_etcd_errors_faults_and_limits_come_back_as_over_grpc(tmp_path: Path) -> None:
    async def test(served: Served, store: RemoteStore) -> None:
        served.on_server(lambda: served.server.faults.apply(
            {"type": "etcd-error", "error": "timeout", "method": "txn", "count": 2}))
        with pytest.raises(EtcdError, match="^etcdserver: request timed out$"):
            store.txn(_put(b"/a", b"1"))
        with pytest.raises(EtcdError, match="^etcdserver: request timed out$"):
            await served.framed(lambda: store.txn(_put(b"/a", b"1")))
        assert store.range(RangeRequest(b"/a")).kvs == []  # the failed writes changed nothing
        big = b"x" * (MAX_REQUEST_BYTES + 1)
        with pytest.raises(ErrRequestTooLarge):
            store.txn(_put(b"/big", big))
        with pytest.raises(ErrRequestTooLarge):
            await served.framed(lambda: store.txn(_put(b"/big", big)))
        # past gRPC's own receive limit too: the socket refuses the frame as gRPC refuses it
        with pytest.raises(ErrRequestTooLarge):
            await served.framed(lambda: store.txn(_put(b"/big", big * 10)))
        assert (await served.framed(lambda: store.txn(_put(b"/a", b"ok")))).succeeded
    _run(tmp_path, test)


def test_calls_in_flight_together_each_get_their_answer(tmp_path: Path) -> None:
    async def test(served: Served, store: RemoteStore) -> None:
        # a delay on every write: each call's handler waits on the store's loop (a task), so
        # the answers come back in another order than the calls went
        served.on_server(lambda: served.server.faults.apply(
            {"type": "etcd-latency", "seconds": 0.05, "method": "txn", "prefix": "/slow"}))
        keys = [f"/{'slow' if i % 2 else 'fast'}/{i}".encode() for i in range(20)]
        answers = await asyncio.gather(*(
            served.framed(lambda key=key: store.txn(_put(key, key, absent=True))) for key in keys))
        assert all(answer.succeeded for answer in answers)
        assert len({answer.header_revision for answer in answers}) == 20
        stored = {kv.key: kv.mod_revision for kv in store.range(RangeRequest(b"/", b"0")).kvs}
        assert {key: answer.header_revision for key, answer in zip(keys, answers)} == stored
    _run(tmp_path, test)


def test_a_watch_over_the_socket_follows_and_resumes_after_a_lost_leader(tmp_path: Path) -> None:
    async def test(served: Served, store: RemoteStore) -> None:
        ready = asyncio.Event()
        stream = store.new_stream(on_ready=ready.set)
        first = store.txn(_put(b"/w/a", b"1")).header_revision
        stream.watch(b"/w/", b"/w0", first)

        async def events(count: int) -> list[Any]:
            got: list[Any] = []
            while len(got) < count:
                await asyncio.wait_for(ready.wait(), 10)
                ready.clear()
                got += [event for response in stream.poll() for event in response.events]
            return got

        assert [(e.type, e.kv.key, e.kv.value) for e in await events(1)] == [(EventType.PUT, b"/w/a", b"1")]
        assert served.on_server(lambda: served.server.faults.apply({"type": "etcd-drop-watches"})) == {"closed": 1}
        await served.framed(lambda: store.txn(_put(b"/w/b", b"2")))
        assert [(e.kv.key, e.kv.value) for e in await events(1)] == [(b"/w/b", b"2")]  # no gap, no repeat
        store.close_stream(stream)
        for _ in range(100):  # the client's cancel ends the store's session
            if not served.on_server(lambda: len(served.server.watch_sessions)):
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the canceled stream's session never ended")
    _run(tmp_path, test)


def test_a_watcher_that_does_not_read_holds_its_events_back(tmp_path: Path) -> None:
    """A worker that stops reading its watch stream: the store's writes to it wait (flow
    control, as gRPC's), so the store process does not buffer what the worker has not read;
    once it reads, every event comes, in order."""
    async def test(served: Served, store: RemoteStore) -> None:
        reader, writer = await asyncio.open_unix_connection(served.path)
        watch = rpc_pb2.WatchRequest(create_request=rpc_pb2.WatchCreateRequest(key=b"/big/", range_end=b"/big0"))
        payload = watch.SerializeToString()
        writer.write(struct.pack("!IIB", len(payload), 1, framed.METHODS.index("Watch")) + payload)
        await writer.drain()

        async def response() -> Any:
            length, call, status = struct.unpack("!IIB", await asyncio.wait_for(reader.readexactly(9), 10))
            assert (call, status) == (1, 0)
            return rpc_pb2.WatchResponse.FromString(await reader.readexactly(length))
        assert (await response()).created  # the watch starts after the revision it was created at
        value = b"x" * 10_000
        for i in range(200):  # 2 MB of events the watcher does not read
            await served.framed(lambda i=i: store.txn(_put(f"/big/{i:04d}".encode(), value)))
        unsent = served.on_server(lambda: served.server.framed_server.unsent_bytes())
        assert unsent < 512 * 1024, unsent
        keys = []
        while len(keys) < 200:
            keys += [event.kv.key for event in (await response()).events]
        assert keys == [f"/big/{i:04d}".encode() for i in range(200)]
        writer.close()
    _run(tmp_path, test)


def test_a_store_gone_fails_the_calls_and_a_new_one_is_reached(tmp_path: Path) -> None:
    async def test(served: Served, store: RemoteStore) -> None:
        assert (await served.framed(lambda: store.txn(_put(b"/a", b"1")))).succeeded
        served.stop()
        with pytest.raises(EtcdError):
            await served.framed(lambda: store.txn(_put(b"/a", b"2")))
        # the same socket served again (a store restarted): the next call connects anew
        served.server = served.start()
        assert (await served.framed(lambda: store.txn(_put(b"/a", b"3")))).header_revision == 2
    _run(tmp_path, test)
