"""``EtcdServer``: a ``Store`` served over etcd's v3 gRPC API (grpcio's asyncio server).

Services: KV, Watch, Lease, Cluster.MemberList and Maintenance (Status, Hash, HashKV, Alarm,
Defragment); Auth and the membership changes are left out (UNIMPLEMENTED). The server runs on
the event loop that owns the store (``fakeapi.store``'s concurrency model): every handler calls
the store synchronously, so each request is atomic without locks.

What etcd's gRPC layer does on top of its store, this does on top of ours, following
``server/etcdserver/api/v3rpc`` of etcd v3.6.6: request checks before the store sees a request
(empty keys, put flags, txn op counts and duplicate keys, sort options), error codes and
messages (``EtcdError.grpc_code``), ``etcdserver: request is too large`` for a write whose raft
entry would exceed ``--max-request-bytes`` and gRPC's own limit at that plus 512 KiB, response
headers (cluster and member id, raft term, revision), watch streams (watch.py), lease
keep-alive streams.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import urlsplit

import grpc
from google.protobuf import message_factory

from ..store import EtcdError, Store
from ..store.errors import ErrRequestTooLarge
from ..store.request_size import DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MEMBER_ID, raft_entry_size, raft_header_size
from . import convert, framed
from .faults import EtcdFaults
from .pb import rpc_pb2
from .watch import WatchSession
from .wire import Encoder

log = logging.getLogger("fakeapi.etcd")

#: The gRPC overhead etcd adds to ``--max-request-bytes`` for the transport's receive limit
#: (``grpcOverheadBytes``).
GRPC_OVERHEAD_BYTES = 512 * 1024
#: What ``etcdctl version`` and ``Status`` report: the etcd release whose API this serves.
ETCD_VERSION = "3.6.6"
STORAGE_VERSION = "3.6.0"
#: etcd's default backend quota (2 GiB) reported by Status.
DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024
#: The cluster id of a single-member etcd started with default flags (``--name default``,
#: ``--initial-advertise-peer-urls http://localhost:2380``), so headers look like one; its
#: member id is ``request_size.DEFAULT_MEMBER_ID``.
DEFAULT_CLUSTER_ID = 0xCDF818194E3A8C32
#: A freshly elected single member is in term 2.
RAFT_TERM = 2
#: The raft index of a fresh single member once it serves (its bootstrap entries).
INITIAL_RAFT_INDEX = 4
#: gRPC's int32 message limit, etcd's ``maxSendBytes``.
MAX_SEND_BYTES = 2**31 - 1

_STATUS = {
    "OK": grpc.StatusCode.OK, "Canceled": grpc.StatusCode.CANCELLED,
    "Unknown": grpc.StatusCode.UNKNOWN, "InvalidArgument": grpc.StatusCode.INVALID_ARGUMENT,
    "DeadlineExceeded": grpc.StatusCode.DEADLINE_EXCEEDED, "NotFound": grpc.StatusCode.NOT_FOUND,
    "AlreadyExists": grpc.StatusCode.ALREADY_EXISTS,
    "PermissionDenied": grpc.StatusCode.PERMISSION_DENIED,
    "ResourceExhausted": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "FailedPrecondition": grpc.StatusCode.FAILED_PRECONDITION,
    "Aborted": grpc.StatusCode.ABORTED, "OutOfRange": grpc.StatusCode.OUT_OF_RANGE,
    "Unimplemented": grpc.StatusCode.UNIMPLEMENTED, "Unavailable": grpc.StatusCode.UNAVAILABLE,
}
#: ``checkRangeRequest``'s answer to an unknown sort order or target.
INVALID_SORT_OPTION = "etcdserver: invalid sort option"

#: Field numbers of the requests in etcd's ``InternalRaftRequest`` (raft_internal.proto).
_RAFT_FIELD_PUT, _RAFT_FIELD_DELETE, _RAFT_FIELD_TXN = 4, 5, 6
_RAFT_FIELD_COMPACTION, _RAFT_FIELD_LEASE_GRANT, _RAFT_FIELD_LEASE_REVOKE = 7, 8, 9


def grpc_status(err: EtcdError) -> grpc.StatusCode:
    return _STATUS[err.grpc_code]


def parse_listen_url(url: str) -> str:
    """``http://HOST:PORT`` (etcd's ``--listen-client-urls`` form) -> gRPC's ``HOST:PORT``."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname or parts.port is None:
        raise ValueError(f"unsupported listen URL {url!r}: want http://HOST:PORT (no TLS)")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{host}:{parts.port}"


class EtcdServer:
    """The gRPC front of one ``Store``. ``start`` binds the URLs; ``client_urls`` are the bound
    ones (port 0 picks a free port)."""

    def __init__(
        self,
        store: Store,
        *,
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
        name: str = "default",
        cluster_id: int = DEFAULT_CLUSTER_ID,
        member_id: int = DEFAULT_MEMBER_ID,
        peer_urls: Sequence[str] = ("http://localhost:2380",),
    ) -> None:
        self.store = store
        self.max_request_bytes = max_request_bytes
        self.name = name
        self.cluster_id = cluster_id
        self.member_id = member_id
        self.peer_urls = list(peer_urls)
        self.client_urls: list[str] = []
        self.raft_term = RAFT_TERM
        #: Raft entries this member would have appended: writes, lease grants and revokes,
        #: compactions (read-only requests do not go through raft).
        self.raft_index = INITIAL_RAFT_INDEX
        self._raft_header_bytes = raft_header_size(member_id)
        self.encoder = Encoder(cluster_id, member_id, self.raft_term)
        self.faults = EtcdFaults(store, self.drop_watches)
        self.watch_sessions: set[WatchSession] = set()
        self._server: grpc.aio.Server | None = None
        self._framed: framed.FramedServer | None = None

    # ----------------------------------------------------------------- lifecycle

    @property
    def max_receive_bytes(self) -> int:
        """gRPC's receive limit, and the size above which a fragmenting watch splits."""
        return self.max_request_bytes + GRPC_OVERHEAD_BYTES

    def grpc_options(self) -> list[tuple[str, int]]:
        return [
            ("grpc.max_receive_message_length", self.max_receive_bytes),
            ("grpc.max_send_message_length", MAX_SEND_BYTES),
            ("grpc.so_reuseport", 0),
            # etcd's keepalive enforcement (--grpc-keepalive-min-time 5s): clients such as
            # kube-apiserver ping every 30 s; gRPC core's default (5 min) would GOAWAY them.
            ("grpc.http2.min_ping_interval_without_data_ms", 5000),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.max_ping_strikes", 0),
        ]

    async def start(self, listen_urls: Sequence[str]) -> list[str]:
        server = grpc.aio.server(options=self.grpc_options())
        server.add_generic_rpc_handlers([
            _service_handler("KV", KVService(self)),
            _service_handler("Watch", WatchService(self)),
            _service_handler("Lease", LeaseService(self)),
            _service_handler("Cluster", ClusterService(self)),
            _service_handler("Maintenance", MaintenanceService(self)),
        ])
        bound = []
        for url in listen_urls:
            address = parse_listen_url(url)
            port = server.add_insecure_port(address)
            host = address.rsplit(":", 1)[0]
            bound.append(f"http://{host}:{port}")
        await server.start()
        self._server = server
        self.client_urls = bound
        log.info("etcd gRPC API serving on %s", ", ".join(bound))
        return bound

    async def serve_framed(self, path: str) -> None:
        """Also answer the unary KV and Lease calls and the Watch streams framed on the Unix
        socket ``path`` (``framed``: the API workers of this machine), with gRPC's handlers."""
        kv, lease, context = KVService(self), LeaseService(self), framed.AbortingContext()

        def handler(method: Any, request_class: Any) -> framed.Handler:
            async def handle(payload: bytes) -> bytes:
                return _serialize(await method(request_class.FromString(payload), context))
            return handle

        def watch(context: framed.StreamContext) -> Any:
            return WatchSession(self, context).run()  # type: ignore[arg-type]

        unary = {
            "Range": handler(kv.Range, rpc_pb2.RangeRequest),
            "Txn": handler(kv.Txn, rpc_pb2.TxnRequest),
            "Compact": handler(kv.Compact, rpc_pb2.CompactionRequest),
            "LeaseGrant": handler(lease.LeaseGrant, rpc_pb2.LeaseGrantRequest),
        }
        self._framed = await framed.serve(path, unary, {"Watch": (watch, rpc_pb2.WatchRequest)}, _serialize,
                                          self.max_receive_bytes, lambda: not self.faults.active)

    @property
    def framed_server(self) -> framed.FramedServer | None:
        """The framed socket's server, once ``serve_framed`` started it."""
        return self._framed

    async def stop(self, grace: float | None = 1.0) -> None:
        if self._framed is not None:
            self._framed.close()
            self._framed = None
        server, self._server = self._server, None
        if server is not None:
            await server.stop(grace)

    async def wait_closed(self) -> None:
        if self._server is not None:
            await self._server.wait_for_termination()

    # ----------------------------------------------------------------- helpers

    def header(self, revision: int | None = None) -> Any:
        """A top-level response header (etcd's ``header.fill``): revision 0 means "current"."""
        return rpc_pb2.ResponseHeader(
            cluster_id=self.cluster_id, member_id=self.member_id,
            revision=revision or self.store.revision, raft_term=self.raft_term,
        )

    def drop_watches(self) -> int:
        """End every open Watch stream as etcd does when it loses its leader; returns how many."""
        sessions = list(self.watch_sessions)
        for session in sessions:
            session.drop()
        return len(sessions)

    async def apply_faults(self, context: grpc.aio.ServicerContext, method: str, write: bool,
                           keys: tuple[bytes, ...]) -> None:
        """The fault hook, called while faults are active, before a request does anything."""
        delay, error = self.faults.effect(method, write, keys)
        if delay:
            await asyncio.sleep(delay)
        if error is not None:
            await context.abort(*error)

    def check_raft_size(self, request: Any, field: int) -> None:
        """etcd refuses a raft entry larger than ``--max-request-bytes`` after wrapping the
        request in an ``InternalRaftRequest`` (``processInternalRaftRequestOnce``)."""
        if raft_entry_size(request.ByteSize(), self._raft_header_bytes) > self.max_request_bytes:
            raise ErrRequestTooLarge()
        self.raft_index += 1


async def _abort(context: grpc.aio.ServicerContext, code: grpc.StatusCode, message: str) -> Any:
    await context.abort(code, message)


async def abort_etcd(context: grpc.aio.ServicerContext, err: EtcdError) -> Any:
    await context.abort(grpc_status(err), str(err))


def _serialize(response: Any) -> bytes:
    """Handlers answer with a message or, on hot paths, with its bytes (wire.py)."""
    return response if type(response) is bytes else response.SerializeToString()


def _service_handler(name: str, servicer: object) -> grpc.GenericRpcHandler:
    """The handlers of etcd service ``name`` that ``servicer`` implements (the others answer
    UNIMPLEMENTED), each deserializing its request message and serializing with ``_serialize``."""
    kinds = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }
    handlers = {}
    for method in rpc_pb2.DESCRIPTOR.services_by_name[name].methods:
        behaviour = getattr(type(servicer), method.name, None)
        if behaviour is None:
            continue
        request_class = message_factory.GetMessageClass(method.input_type)
        make = kinds[(method.client_streaming, method.server_streaming)]
        handlers[method.name] = make(
            getattr(servicer, method.name), request_deserializer=request_class.FromString,
            response_serializer=_serialize,
        )
    return grpc.method_handlers_generic_handler(f"etcdserverpb.{name}", handlers)


def _txn_keys(txn: Any) -> tuple[bytes, ...]:
    """The keys a txn names at its top level (compares and ops), for the faults' prefixes."""
    keys = [c.key for c in txn.compare]
    for op in (*txn.success, *txn.failure):
        which = op.WhichOneof("request")
        if which is not None and which != "request_txn":
            keys.append(getattr(op, which).key)
    return tuple(keys)


def _is_read_only(txn: Any) -> bool:
    """etcd's ``IsTxnReadonly``: only ranges in every branch, nested txns included."""
    for op in (*txn.success, *txn.failure):
        which = op.WhichOneof("request")
        if which == "request_txn":
            if not _is_read_only(op.request_txn):
                return False
        elif which != "request_range":
            return False
    return True


class KVService:
    def __init__(self, server: EtcdServer) -> None:
        self.server = server
        self.store = server.store
        self.encoder = server.encoder

    async def Range(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if self.server.faults.active:
            await self.server.apply_faults(context, "range", False, (request.key,))
        try:
            req = convert.range_request(request)
        except KeyError:
            return await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, INVALID_SORT_OPTION)
        try:
            resp = self.store.range(req)
        except EtcdError as err:
            return await abort_etcd(context, err)
        encoder = self.encoder
        return encoder.range_response(
            encoder.header(resp.header_revision), resp.kvs, resp.more, resp.count, req.keys_only
        )

    async def Put(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if self.server.faults.active:
            await self.server.apply_faults(context, "put", True, (request.key,))
        try:
            self.server.check_raft_size(request, _RAFT_FIELD_PUT)
            resp = self.store.put(convert.put_request(request))
        except EtcdError as err:
            return await abort_etcd(context, err)
        encoder = self.encoder
        return encoder.put_response(encoder.header(resp.header_revision), resp.prev_kv)

    async def DeleteRange(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if self.server.faults.active:
            await self.server.apply_faults(context, "delete_range", True, (request.key,))
        try:
            self.server.check_raft_size(request, _RAFT_FIELD_DELETE)
            resp = self.store.delete_range(convert.delete_request(request))
        except EtcdError as err:
            return await abort_etcd(context, err)
        return convert.delete_response(resp, self.server.header(resp.header_revision))

    async def Txn(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            txn = convert.txn_request(request)
        except KeyError:
            return await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, INVALID_SORT_OPTION)
        read_only = _is_read_only(request)
        if self.server.faults.active:
            await self.server.apply_faults(context, "txn", not read_only, _txn_keys(request))
        try:
            if not read_only:
                self.server.check_raft_size(request, _RAFT_FIELD_TXN)
            resp = self.store.txn(txn)
        except EtcdError as err:
            return await abort_etcd(context, err)
        return convert.txn_response(resp, self.server.header(resp.header_revision))

    async def Compact(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if self.server.faults.active:
            await self.server.apply_faults(context, "compact", True, ())
        try:
            self.server.check_raft_size(request, _RAFT_FIELD_COMPACTION)
            revision = self.store.compact(request.revision)
        except EtcdError as err:
            return await abort_etcd(context, err)
        return rpc_pb2.CompactionResponse(header=self.server.header(revision))


class WatchService:
    def __init__(self, server: EtcdServer) -> None:
        self.server = server

    async def Watch(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        await WatchSession(self.server, context).run()


class LeaseService:
    def __init__(self, server: EtcdServer) -> None:
        self.server = server
        self.store = server.store

    async def LeaseGrant(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if self.server.faults.active:
            await self.server.apply_faults(context, "lease_grant", True, ())
        try:
            self.server.check_raft_size(request, _RAFT_FIELD_LEASE_GRANT)
            resp = self.store.lease_grant(request.TTL, request.ID)
        except EtcdError as err:
            return await abort_etcd(context, err)
        return rpc_pb2.LeaseGrantResponse(
            header=self.server.header(resp.header_revision), ID=resp.id, TTL=resp.ttl
        )

    async def LeaseRevoke(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if self.server.faults.active:
            await self.server.apply_faults(context, "lease_revoke", True, ())
        try:
            self.server.check_raft_size(request, _RAFT_FIELD_LEASE_REVOKE)
            revision = self.store.lease_revoke(request.ID)
        except EtcdError as err:
            return await abort_etcd(context, err)
        return rpc_pb2.LeaseRevokeResponse(header=self.server.header(revision))

    async def LeaseKeepAlive(
        self, request_iterator: Any, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Any]:
        async for request in request_iterator:
            header = self.server.header()
            try:
                ttl = self.store.lease_keep_alive(request.ID)
            except EtcdError:
                ttl = 0  # etcd answers a lease it does not know (any more) with TTL 0
            yield rpc_pb2.LeaseKeepAliveResponse(header=header, ID=request.ID, TTL=ttl)

    async def LeaseTimeToLive(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        ttl = self.store.lease_time_to_live(request.ID, request.keys)
        return rpc_pb2.LeaseTimeToLiveResponse(
            header=self.server.header(), ID=ttl.id, TTL=ttl.ttl, grantedTTL=ttl.granted_ttl,
            keys=list(ttl.keys),
        )

    async def LeaseLeases(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        leases = [rpc_pb2.LeaseStatus(ID=lease_id) for lease_id in self.store.leases_by_expiry()]
        return rpc_pb2.LeaseLeasesResponse(header=self.server.header(), leases=leases)


class ClusterService:
    def __init__(self, server: EtcdServer) -> None:
        self.server = server

    async def MemberList(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        server = self.server
        member = rpc_pb2.Member(
            ID=server.member_id, name=server.name, peerURLs=server.peer_urls,
            clientURLs=server.client_urls,
        )
        # etcd's ClusterServer header carries no revision.
        header = rpc_pb2.ResponseHeader(
            cluster_id=server.cluster_id, member_id=server.member_id, raft_term=server.raft_term
        )
        return rpc_pb2.MemberListResponse(header=header, members=[member])


class MaintenanceService:
    def __init__(self, server: EtcdServer) -> None:
        self.server = server
        self.store = server.store

    async def Status(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        server = self.server
        size = self.store.approximate_size()
        return rpc_pb2.StatusResponse(
            header=server.header(), version=ETCD_VERSION, dbSize=size, leader=server.member_id,
            raftIndex=server.raft_index, raftTerm=server.raft_term,
            raftAppliedIndex=server.raft_index, dbSizeInUse=size,
            storageVersion=STORAGE_VERSION, dbSizeQuota=DEFAULT_QUOTA_BYTES,
            downgradeInfo=rpc_pb2.DowngradeInfo(),
        )

    async def Alarm(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return rpc_pb2.AlarmResponse(header=self.server.header())  # never any alarm

    async def Defragment(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return rpc_pb2.DefragmentResponse()  # nothing to defragment in memory

    async def Hash(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        hash_value, _compact, revision = self.store.hash_kv(0)
        return rpc_pb2.HashResponse(header=self.server.header(revision), hash=hash_value)

    async def HashKV(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            hash_value, compact_revision, revision = self.store.hash_kv(request.revision)
        except EtcdError as err:
            return await abort_etcd(context, err)
        return rpc_pb2.HashKVResponse(
            header=self.server.header(), hash=hash_value, compact_revision=compact_revision,
            hash_revision=revision,
        )

