"""``store.request_size`` against protobuf itself: for any write request etcd's gRPC API can carry,
the size computed from the store's request is the size of etcd's message (``ByteSize``), and the
raft entry around it is what ``fakeapi etcd`` measures against ``--max-request-bytes``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fakeapi.etcd import convert
from fakeapi.etcd.pb import rpc_pb2
from fakeapi.etcd.server import EtcdServer
from fakeapi.store import Store
from fakeapi.store.request_size import put_size, raft_entry_size, txn_size

keys = st.binary(min_size=1, max_size=40)
ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
small = st.integers(min_value=0, max_value=2**40)


@st.composite
def compares(draw: st.DrawFn) -> rpc_pb2.Compare:
    target = draw(st.sampled_from(["version", "create_revision", "mod_revision", "value", "lease"]))
    compare = rpc_pb2.Compare(result=draw(st.integers(0, 3)), key=draw(keys), range_end=draw(st.binary(max_size=5)))
    compare.target = {"version": 0, "create_revision": 1, "mod_revision": 2, "value": 3, "lease": 4}[target]
    setattr(compare, target, draw(st.binary(max_size=300)) if target == "value" else draw(ints))
    return compare


puts = st.builds(rpc_pb2.PutRequest, key=keys, value=st.binary(max_size=2000), lease=small, prev_kv=st.booleans(),
                 ignore_value=st.booleans(), ignore_lease=st.booleans())
deletes = st.builds(rpc_pb2.DeleteRangeRequest, key=keys, range_end=st.binary(max_size=5), prev_kv=st.booleans())
ranges = st.builds(rpc_pb2.RangeRequest, key=keys, range_end=st.binary(max_size=5), limit=small, revision=small,
                   sort_order=st.integers(0, 2), sort_target=st.integers(0, 4), keys_only=st.booleans(),
                   count_only=st.booleans(), min_mod_revision=small, max_mod_revision=small,
                   min_create_revision=small, max_create_revision=small)


def ops(depth: int) -> st.SearchStrategy[rpc_pb2.RequestOp]:
    leaves = st.one_of(puts.map(lambda r: rpc_pb2.RequestOp(request_put=r)),
                       deletes.map(lambda r: rpc_pb2.RequestOp(request_delete_range=r)),
                       ranges.map(lambda r: rpc_pb2.RequestOp(request_range=r)))
    if depth == 0:
        return leaves
    return st.one_of(leaves, txns(depth - 1).map(lambda t: rpc_pb2.RequestOp(request_txn=t)))


def txns(depth: int = 1) -> st.SearchStrategy[rpc_pb2.TxnRequest]:
    return st.builds(rpc_pb2.TxnRequest, compare=st.lists(compares(), max_size=3),
                     success=st.lists(ops(depth), max_size=3), failure=st.lists(ops(depth), max_size=3))


@settings(max_examples=300, deadline=None)
@given(txns())
def test_txn_size_is_protobufs(message: rpc_pb2.TxnRequest) -> None:
    assert txn_size(convert.txn_request(message)) == message.ByteSize()


@settings(max_examples=100, deadline=None)
@given(puts)
def test_put_size_is_protobufs(message: rpc_pb2.PutRequest) -> None:
    assert put_size(convert.put_request(message)) == message.ByteSize()


def test_raft_entry_is_what_the_etcd_server_measures() -> None:
    """Just under and just over the limit, the in-process measure and ``fakeapi etcd``'s agree."""
    server = EtcdServer(Store(), max_request_bytes=4096)
    for value_size in range(4000, 4100):
        message = rpc_pb2.PutRequest(key=b"/registry/configmaps/ns/name", value=b"x" * value_size)
        size = raft_entry_size(put_size(convert.put_request(message)))
        try:
            server.check_raft_size(message, 1)
            refused = False
        except Exception:
            refused = True
        assert refused == (size > 4096), value_size
