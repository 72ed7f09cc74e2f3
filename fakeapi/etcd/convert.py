"""etcd's protobuf messages to the store's requests, and the store's answers back to messages.

Field semantics are etcd's: a ``Compare`` whose ``target_union`` is not the field of its target
compares against that field's zero value (etcd's ``compareKV``); an empty ``RequestOp`` stays in
the txn as ``None`` so the store reports it where etcd's ``checkRequestOp`` does; a response
inside a txn carries a header with its revision only, the top-level one gets the cluster's ids
(``Header.fill``).
"""

from __future__ import annotations

from typing import Any

from ..store import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    DeleteRangeResponse,
    KeyValue,
    PutRequest,
    PutResponse,
    RangeRequest,
    RangeResponse,
    SortOrder,
    SortTarget,
    TxnRequest,
    TxnResponse,
    WatchFilter,
)
from .pb import kv_pb2, rpc_pb2

_COMPARE_FIELD = {
    CompareTarget.VERSION: "version", CompareTarget.CREATE: "create_revision",
    CompareTarget.MOD: "mod_revision", CompareTarget.VALUE: "value", CompareTarget.LEASE: "lease",
}
_TARGETS = {t.value: t for t in CompareTarget}
_RESULTS = {r.value: r for r in CompareResult}
_SORT_ORDERS = {o.value: o for o in SortOrder}
_SORT_TARGETS = {t.value: t for t in SortTarget}
_FILTERS = {f.value: f for f in WatchFilter}


# ----------------------------------------------------------------- requests


def range_request(r: Any) -> RangeRequest:
    """Raises KeyError for a sort order or target etcd does not know (``checkRangeRequest``:
    ``etcdserver: invalid sort option``); the caller maps it."""
    return RangeRequest(
        r.key, r.range_end, r.limit, r.revision, r.keys_only, r.count_only,
        _SORT_ORDERS[r.sort_order], _SORT_TARGETS[r.sort_target],
        r.min_mod_revision, r.max_mod_revision, r.min_create_revision, r.max_create_revision,
    )


def put_request(r: Any) -> PutRequest:
    return PutRequest(r.key, r.value, r.lease, r.prev_kv, r.ignore_value, r.ignore_lease)


def delete_request(r: Any) -> DeleteRangeRequest:
    return DeleteRangeRequest(r.key, r.range_end, r.prev_kv)


def compare(c: Any) -> Compare:
    target = _TARGETS.get(c.target)
    if target is None:  # etcd's compareKV: an unknown target panics in etcd; never true here
        raise ValueError(f"unknown compare target {c.target}")
    field = _COMPARE_FIELD[target]
    if c.WhichOneof("target_union") == field:
        operand = getattr(c, field)
    else:
        operand = b"" if target is CompareTarget.VALUE else 0
    return Compare(c.key, target, _RESULTS.get(c.result, CompareResult.EQUAL), operand, c.range_end)


def request_op(op: Any) -> Any:
    which = op.WhichOneof("request")
    if which == "request_range":
        return range_request(op.request_range)
    if which == "request_put":
        return put_request(op.request_put)
    if which == "request_delete_range":
        return delete_request(op.request_delete_range)
    if which == "request_txn":
        return txn_request(op.request_txn)
    return None  # an empty op: etcd answers ErrKeyNotFound (checkRequestOp's default)


def txn_request(t: Any) -> TxnRequest:
    return TxnRequest(
        tuple(compare(c) for c in t.compare),
        tuple(request_op(op) for op in t.success),
        tuple(request_op(op) for op in t.failure),
    )


def watch_filters(values: Any) -> tuple[WatchFilter, ...]:
    return tuple(_FILTERS[v] for v in values if v in _FILTERS)  # etcd ignores unknown filters


# ----------------------------------------------------------------- responses


def kv(record: KeyValue) -> Any:
    return kv_pb2.KeyValue(
        key=record.key, create_revision=record.create_revision,
        mod_revision=record.mod_revision, version=record.version, value=record.value,
        lease=record.lease,
    )


def range_response(r: RangeResponse, header: Any) -> Any:
    return rpc_pb2.RangeResponse(
        header=header, kvs=[kv(x) for x in r.kvs], more=r.more, count=r.count
    )


def put_response(r: PutResponse, header: Any) -> Any:
    if r.prev_kv is None:
        return rpc_pb2.PutResponse(header=header)
    return rpc_pb2.PutResponse(header=header, prev_kv=kv(r.prev_kv))


def delete_response(r: DeleteRangeResponse, header: Any) -> Any:
    return rpc_pb2.DeleteRangeResponse(
        header=header, deleted=r.deleted, prev_kvs=[kv(x) for x in r.prev_kvs]
    )


def txn_response(r: TxnResponse, header: Any) -> Any:
    return rpc_pb2.TxnResponse(
        header=header, succeeded=r.succeeded, responses=[response_op(x) for x in r.responses]
    )


def response_op(r: Any) -> Any:
    header = rpc_pb2.ResponseHeader(revision=r.header_revision)
    if isinstance(r, RangeResponse):
        return rpc_pb2.ResponseOp(response_range=range_response(r, header))
    if isinstance(r, PutResponse):
        return rpc_pb2.ResponseOp(response_put=put_response(r, header))
    if isinstance(r, DeleteRangeResponse):
        return rpc_pb2.ResponseOp(response_delete_range=delete_response(r, header))
    return rpc_pb2.ResponseOp(response_txn=txn_response(r, header))


# ----------------------------------------------------------------- the client's direction
# The store's requests as etcd's messages, and etcd's answers as the store's responses: what an
# API worker sends to an etcd server (``client.RemoteStore``) and reads back.

_FIELD_OF_TARGET = {target.value: field for target, field in _COMPARE_FIELD.items()}


def range_message(r: RangeRequest) -> Any:
    return rpc_pb2.RangeRequest(
        key=r.key, range_end=r.range_end, limit=r.limit, revision=r.revision, keys_only=r.keys_only,
        count_only=r.count_only, sort_order=r.sort_order, sort_target=r.sort_target,
        min_mod_revision=r.min_mod_revision, max_mod_revision=r.max_mod_revision,
        min_create_revision=r.min_create_revision, max_create_revision=r.max_create_revision,
    )


def put_message(r: PutRequest) -> Any:
    return rpc_pb2.PutRequest(key=r.key, value=r.value, lease=r.lease, prev_kv=r.prev_kv,
                              ignore_value=r.ignore_value, ignore_lease=r.ignore_lease)


def delete_message(r: DeleteRangeRequest) -> Any:
    return rpc_pb2.DeleteRangeRequest(key=r.key, range_end=r.range_end, prev_kv=r.prev_kv)


def compare_message(c: Compare) -> Any:
    return rpc_pb2.Compare(key=c.key, range_end=c.range_end, target=c.target, result=c.result,
                           **{_FIELD_OF_TARGET[c.target]: c.operand})


def op_message(op: Any) -> Any:
    if isinstance(op, RangeRequest):
        return rpc_pb2.RequestOp(request_range=range_message(op))
    if isinstance(op, PutRequest):
        return rpc_pb2.RequestOp(request_put=put_message(op))
    if isinstance(op, DeleteRangeRequest):
        return rpc_pb2.RequestOp(request_delete_range=delete_message(op))
    return rpc_pb2.RequestOp(request_txn=txn_message(op))


def txn_message(t: TxnRequest) -> Any:
    return rpc_pb2.TxnRequest(compare=[compare_message(c) for c in t.compare],
                              success=[op_message(op) for op in t.success],
                              failure=[op_message(op) for op in t.failure])


def key_value_of(m: Any) -> KeyValue:
    return KeyValue(m.key, m.create_revision, m.mod_revision, m.version, m.value, m.lease)


def range_response_of(m: Any) -> RangeResponse:
    return RangeResponse(m.header.revision, [key_value_of(x) for x in m.kvs], m.count, m.more)


def response_of(m: Any) -> Any:
    """A ``ResponseOp`` of a txn as the store's response."""
    which = m.WhichOneof("response")
    if which == "response_range":
        return range_response_of(m.response_range)
    if which == "response_put":
        put = m.response_put
        return PutResponse(put.header.revision, key_value_of(put.prev_kv) if put.HasField("prev_kv") else None)
    if which == "response_delete_range":
        deleted = m.response_delete_range
        return DeleteRangeResponse(deleted.header.revision, deleted.deleted,
                                   [key_value_of(x) for x in deleted.prev_kvs])
    return txn_response_of(m.response_txn)


def txn_response_of(m: Any) -> TxnResponse:
    return TxnResponse(m.header.revision, m.succeeded, [response_of(r) for r in m.responses])
