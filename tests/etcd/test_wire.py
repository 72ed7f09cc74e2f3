"""wire.py's hand-written encodings are byte for byte what the generated messages serialize to
(and so what clients decode): key-values of every shape, Range, Put and watch responses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fakeapi.etcd.convert import kv as kv_message
from fakeapi.etcd.pb import kv_pb2, rpc_pb2
from fakeapi.etcd.wire import Encoder
from fakeapi.store import Event, EventType, KeyValue

int64 = st.integers(-(2**63), 2**63 - 1)
revisions = st.integers(0, 2**62)
key_values = st.builds(
    KeyValue, st.binary(min_size=1, max_size=20), revisions, revisions, revisions,
    st.binary(max_size=300), int64,
)
uint64 = st.integers(0, 2**64 - 1)


@settings(max_examples=300)
@given(uint64, uint64, uint64, revisions, st.lists(key_values, max_size=5), st.booleans(),
       st.integers(0, 2**40), st.booleans())
def test_range_response(cluster: int, member: int, term: int, revision: int, kvs: list[KeyValue],
                        more: bool, count: int, keys_only: bool) -> None:
    encoder = Encoder(cluster, member, term)
    header = rpc_pb2.ResponseHeader(cluster_id=cluster, member_id=member, revision=revision, raft_term=term)
    wanted = rpc_pb2.RangeResponse(
        header=header, more=more, count=count,
        kvs=[kv_message(kv._replace(value=b"") if keys_only else kv) for kv in kvs],
    )
    for _ in range(2):  # the second time from the cache
        got = encoder.range_response(encoder.header(revision), kvs, more, count, keys_only)
        assert got == wanted.SerializeToString()


@given(uint64, revisions, st.none() | key_values)
def test_put_response(member: int, revision: int, prev: KeyValue | None) -> None:
    encoder = Encoder(1, member, 2)
    header = rpc_pb2.ResponseHeader(cluster_id=1, member_id=member, revision=revision, raft_term=2)
    wanted = rpc_pb2.PutResponse(header=header)
    if prev is not None:
        wanted.prev_kv.CopyFrom(kv_message(prev))
    assert encoder.put_response(encoder.header(revision), prev) == wanted.SerializeToString()


@given(revisions, int64, st.lists(st.tuples(st.sampled_from(list(EventType)), key_values,
                                            st.none() | key_values), max_size=4))
def test_watch_events(revision: int, watch_id: int, raw: list[tuple[EventType, KeyValue, KeyValue | None]]) -> None:
    encoder = Encoder(7, 8, 9)
    events = [Event(t, kv, prev) for t, kv, prev in raw]
    wanted = rpc_pb2.WatchResponse(
        header=rpc_pb2.ResponseHeader(cluster_id=7, member_id=8, revision=revision, raft_term=9),
        watch_id=watch_id,
        events=[kv_pb2.Event(type=ev.type.value, kv=kv_message(ev.kv),
                             **({"prev_kv": kv_message(ev.prev_kv)} if ev.prev_kv else {}))
                for ev in events],
    )
    assert encoder.watch_events(revision, watch_id, events) == wanted.SerializeToString()
