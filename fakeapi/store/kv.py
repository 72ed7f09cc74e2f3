"""The values the store hands out: key-value records, events, requests and responses; and
etcd's rules for the ends of a key range (``prefix_range_end``, ``range_bounds``).

Records are immutable tuples shared by reference between a key's history, the revision log and
every watcher: a write allocates one ``KeyValue`` and nothing downstream copies it.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple, Union


class KeyValue(NamedTuple):
    """etcd's ``mvccpb.KeyValue``. A tombstone (the kv of a DELETE event) has only key and
    mod_revision set; ``version == 0`` is what marks it."""

    key: bytes
    create_revision: int
    mod_revision: int
    version: int
    value: bytes = b""
    lease: int = 0

    @property
    def is_tombstone(self) -> bool:
        return self.version == 0


class EventType(IntEnum):
    PUT = 0
    DELETE = 1


class Event(NamedTuple):
    """One change at one revision. ``prev_kv`` is the key's value just before the change
    (None for a create); watchers get it only when they asked for it."""

    type: EventType
    kv: KeyValue
    prev_kv: KeyValue | None = None

    @property
    def is_create(self) -> bool:
        return self.type is EventType.PUT and self.kv.version == 1


class WatchFilter(IntEnum):
    """etcd's ``WatchCreateRequest.FilterType``: drop events of that type."""

    NOPUT = 0
    NODELETE = 1


class CompareTarget(IntEnum):
    VERSION = 0
    CREATE = 1
    MOD = 2
    VALUE = 3
    LEASE = 4


class CompareResult(IntEnum):
    EQUAL = 0
    GREATER = 1
    LESS = 2
    NOT_EQUAL = 3


class Compare(NamedTuple):
    """``target(key) <result> operand`` for every key in [key, range_end) (one key when empty).
    ``operand`` is bytes for VALUE and an int otherwise."""

    key: bytes
    target: CompareTarget
    result: CompareResult
    operand: int | bytes
    range_end: bytes = b""


class SortOrder(IntEnum):
    NONE = 0
    ASCEND = 1
    DESCEND = 2


class SortTarget(IntEnum):
    KEY = 0
    VERSION = 1
    CREATE = 2
    MOD = 3
    VALUE = 4


class RangeRequest(NamedTuple):
    """etcd's ``RangeRequest``. The min/max revision filters (0: none) drop kvs after the range
    is read; ``count`` stays the range's size, as etcd's does. ``serializable`` changes nothing
    here (one member: every read is linearizable)."""

    key: bytes
    range_end: bytes = b""
    limit: int = 0
    revision: int = 0
    keys_only: bool = False
    count_only: bool = False
    sort_order: SortOrder = SortOrder.NONE
    sort_target: SortTarget = SortTarget.KEY
    min_mod_revision: int = 0
    max_mod_revision: int = 0
    min_create_revision: int = 0
    max_create_revision: int = 0

    @property
    def fetch_limit(self) -> int:
        """How many kvs etcd's ``executeRange`` reads before it filters, sorts and limits: the
        whole range (0) when the request has a sort order or a revision filter, else
        ``limit + 1`` (the extra one tells ``more``). A sort target other than KEY with order
        NONE sorts only what was read."""
        if (self.sort_order or self.min_mod_revision or self.max_mod_revision
                or self.min_create_revision or self.max_create_revision):
            return 0
        return self.limit + 1 if self.limit > 0 else 0


class PutRequest(NamedTuple):
    key: bytes
    value: bytes = b""
    lease: int = 0
    prev_kv: bool = False
    ignore_value: bool = False
    ignore_lease: bool = False


class DeleteRangeRequest(NamedTuple):
    key: bytes
    range_end: bytes = b""
    prev_kv: bool = False


class TxnRequest(NamedTuple):
    compare: tuple[Compare, ...] = ()
    success: tuple["Request", ...] = ()
    failure: tuple["Request", ...] = ()


Request = Union[RangeRequest, PutRequest, DeleteRangeRequest, TxnRequest]


class RangeResponse(NamedTuple):
    """``header_revision`` is always the store's current revision, even for a read of the past."""

    header_revision: int
    kvs: list[KeyValue]
    count: int
    more: bool


class PutResponse(NamedTuple):
    header_revision: int
    prev_kv: KeyValue | None


class DeleteRangeResponse(NamedTuple):
    header_revision: int
    deleted: int
    prev_kvs: list[KeyValue]


class TxnResponse(NamedTuple):
    header_revision: int
    succeeded: bool
    responses: list["Response"]


Response = Union[RangeResponse, PutResponse, DeleteRangeResponse, TxnResponse]


class LeaseGrantResponse(NamedTuple):
    header_revision: int
    id: int
    ttl: int


class WatchResponse(NamedTuple):
    """What a watch stream yields. A progress notification has no events, is not canceled and has
    ``compact_revision == 0``; ``watch_id == -1`` marks one answering ``request_progress`` for the
    whole stream. ``header_revision`` of a progress notification promises that every event up to it
    was delivered."""

    watch_id: int
    header_revision: int
    events: tuple[Event, ...] = ()
    compact_revision: int = 0
    canceled: bool = False
    cancel_reason: str = ""

    @property
    def is_progress_notify(self) -> bool:
        return not self.events and not self.canceled and self.compact_revision == 0


def prefix_range_end(prefix: bytes) -> bytes:
    """etcd's ``GetPrefixRangeEnd``: the smallest key greater than every key starting with prefix
    (``b"\\0"``, meaning "to the end", when prefix is all 0xff)."""
    end = bytearray(prefix)
    for i in range(len(end) - 1, -1, -1):
        if end[i] < 0xFF:
            end[i] += 1
            return bytes(end[: i + 1])
    return b"\0"


_TO_THE_END = b"\0"


def range_bounds(key: bytes, range_end: bytes) -> tuple[bytes, bytes | None, bool]:
    """(start, end, single) for etcd's range rules: empty end = the one key, ``b"\\0"`` = every key
    from ``key`` on (``key == range_end == b"\\0"`` is then every key)."""
    if not range_end:
        return key, None, True
    if range_end == _TO_THE_END:
        return key, None, False
    return key, range_end, False
