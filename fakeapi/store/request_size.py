"""How big a write request is in etcd's raft log: the size of its protobuf encoding (etcd's
``etcdserverpb`` messages) wrapped in an ``InternalRaftRequest``, which etcd refuses past
``--max-request-bytes`` with ``etcdserver: request is too large``
(``processInternalRaftRequestOnce``).

Computed from the request's fields, without building a message: a length-delimited field costs
its tag, its length's varint and its bytes; a varint field its tag and value; proto3 leaves zero
values out, except a compare's target, which is in a ``oneof`` and always written (clients set
it, kube's ``clientv3.ModRevision(key) == 0`` included).
"""

from __future__ import annotations

from .kv import Compare, DeleteRangeRequest, PutRequest, RangeRequest, Request, TxnRequest

#: etcd's ``--max-request-bytes`` default (1.5 MiB).
DEFAULT_MAX_REQUEST_BYTES = 1536 * 1024
#: The member id of a single etcd started with default flags, and of ``fakeapi etcd``'s.
DEFAULT_MEMBER_ID = 0x8E9E05C52164694D


def varint_size(value: int) -> int:
    if value < 0:
        return 10  # a negative int64 is a ten-byte varint
    return (value.bit_length() + 6) // 7 or 1  # seven bits a byte; zero takes one


def raft_header_size(member_id: int = DEFAULT_MEMBER_ID) -> int:
    """The ``RequestHeader`` (field 100) every raft entry of ``member_id`` carries: a two-byte
    tag, its length, and the request id (tag and varint), whose top 16 bits are the member id's
    lowest, above a 48-bit time-and-counter suffix."""
    return 2 + 1 + 1 + varint_size(((member_id & 0xFFFF) << 48) | (1 << 47))


_DEFAULT_HEADER = raft_header_size()


def _bytes_field(value: bytes, tag_size: int = 1) -> int:
    return tag_size + varint_size(len(value)) + len(value) if value else 0


def _varint_field(value: int, tag_size: int = 1) -> int:
    return tag_size + varint_size(value) if value else 0


def _message_field(size: int, tag_size: int = 1) -> int:
    """An embedded message set on its parent: written even when empty."""
    return tag_size + varint_size(size) + size


def compare_size(compare: Compare) -> int:
    operand = compare.operand
    # The target's field is in a oneof: written whatever its value.
    target = _message_field(len(operand)) if isinstance(operand, bytes) else 1 + varint_size(operand)
    return (_varint_field(compare.result) + _varint_field(compare.target) + _bytes_field(compare.key) + target
            + _bytes_field(compare.range_end, tag_size=2))  # range_end is field 64


def range_size(req: RangeRequest) -> int:
    return (_bytes_field(req.key) + _bytes_field(req.range_end) + _varint_field(req.limit)
            + _varint_field(req.revision) + _varint_field(req.sort_order) + _varint_field(req.sort_target)
            + _varint_field(int(req.keys_only)) + _varint_field(int(req.count_only))
            + _varint_field(req.min_mod_revision) + _varint_field(req.max_mod_revision)
            + _varint_field(req.min_create_revision) + _varint_field(req.max_create_revision))


def put_size(req: PutRequest) -> int:
    return (_bytes_field(req.key) + _bytes_field(req.value) + _varint_field(req.lease) + _varint_field(int(req.prev_kv))
            + _varint_field(int(req.ignore_value)) + _varint_field(int(req.ignore_lease)))


def delete_range_size(req: DeleteRangeRequest) -> int:
    return _bytes_field(req.key) + _bytes_field(req.range_end) + _varint_field(int(req.prev_kv))


def _op_size(op: Request) -> int:
    """A ``RequestOp``: the one request of its ``oneof``."""
    if isinstance(op, PutRequest):
        inner = put_size(op)
    elif isinstance(op, DeleteRangeRequest):
        inner = delete_range_size(op)
    elif isinstance(op, RangeRequest):
        inner = range_size(op)
    else:
        inner = txn_size(op)
    return _message_field(inner)


def txn_size(req: TxnRequest) -> int:
    return (sum(_message_field(compare_size(c)) for c in req.compare)
            + sum(_message_field(_op_size(op)) for op in req.success)
            + sum(_message_field(_op_size(op)) for op in req.failure))


def raft_entry_size(request_size: int, header_size: int = _DEFAULT_HEADER) -> int:
    """The ``InternalRaftRequest`` around a request of ``request_size`` bytes (its field's tag is
    one byte: every request field number is below 16)."""
    return header_size + 1 + varint_size(request_size) + request_size
