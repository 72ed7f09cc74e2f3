"""Hand-written protobuf encoding of the hot responses (Range, Put, watch events), byte for byte
what ``SerializeToString`` of the generated messages gives (fields in number order, zero values
left out), without building a message object per key-value.

A key-value's encoding is kept, keyed by the record itself (the store's records are immutable
and shared; their bytes fields cache their hashes): a range of 10,000 keys costs 10,000 dict
lookups and one join, not 10,000 message objects. The cache holds at most ``KV_CACHE_BYTES`` of
encodings and is dropped whole when it would exceed it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..store import Event, KeyValue

#: Bound of the encoded key-value cache (the values are copies of the store's).
KV_CACHE_BYTES = 256 * 1024 * 1024

_UINT64 = (1 << 64) - 1
_SMALL = [bytes([n]) for n in range(128)]


def varint(n: int) -> bytes:
    """A protobuf varint; a negative int64 takes its 64-bit two's complement, as protobuf does."""
    if 0 <= n < 128:
        return _SMALL[n]
    n &= _UINT64
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(tag: bytes, n: int) -> bytes:
    return tag + varint(n) if n else b""


def length_delimited(tag: bytes, payload: bytes) -> bytes:
    return tag + varint(len(payload)) + payload


def key_value(kv: KeyValue, keys_only: bool = False) -> bytes:
    """``mvccpb.KeyValue`` (key 1, create_revision 2, mod_revision 3, version 4, value 5,
    lease 6)."""
    parts = [length_delimited(b"\x0a", kv.key) if kv.key else b"",
             _field(b"\x10", kv.create_revision), _field(b"\x18", kv.mod_revision),
             _field(b"\x20", kv.version)]
    if kv.value and not keys_only:
        parts.append(length_delimited(b"\x2a", kv.value))
    parts.append(_field(b"\x30", kv.lease))
    return b"".join(parts)


class Encoder:
    """Response encodings for one server: its header fields, and the key-value cache."""

    def __init__(self, cluster_id: int, member_id: int, raft_term: int) -> None:
        self._header_head = _field(b"\x08", cluster_id) + _field(b"\x10", member_id)
        self._header_tail = _field(b"\x20", raft_term)
        self._kvs: dict[KeyValue, bytes] = {}  # record -> its encoding as field 2
        self._kv_bytes = 0

    def header(self, revision: int) -> bytes:
        """A top-level ``ResponseHeader`` as field 1 of its response."""
        return length_delimited(
            b"\x0a", self._header_head + _field(b"\x18", revision) + self._header_tail
        )

    def _tagged_kv(self, tag: bytes, kv: KeyValue) -> bytes:
        """``kv`` as a length-delimited field with ``tag`` (cached for tag b"\\x12")."""
        encoded = self._kvs.get(kv)
        if encoded is None:
            encoded = length_delimited(b"\x12", key_value(kv))
            self._kv_bytes += len(encoded)
            if self._kv_bytes > KV_CACHE_BYTES:
                self._kvs.clear()
                self._kv_bytes = len(encoded)
            self._kvs[kv] = encoded
        return encoded if tag == b"\x12" else tag + encoded[1:]

    def kvs(self, tag: bytes, kvs: Iterable[KeyValue], keys_only: bool = False) -> bytes:
        if keys_only:
            return b"".join(length_delimited(tag, key_value(kv, True)) for kv in kvs)
        tagged = self._tagged_kv
        return b"".join([tagged(tag, kv) for kv in kvs])

    def range_response(self, header: bytes, kvs: list[KeyValue], more: bool, count: int,
                       keys_only: bool) -> bytes:
        """``RangeResponse`` (header 1, kvs 2, more 3, count 4)."""
        return b"".join((header, self.kvs(b"\x12", kvs, keys_only),
                         b"\x18\x01" if more else b"", _field(b"\x20", count)))

    def put_response(self, header: bytes, prev_kv: KeyValue | None) -> bytes:
        """``PutResponse`` (header 1, prev_kv 2)."""
        if prev_kv is None:
            return header
        return header + self._tagged_kv(b"\x12", prev_kv)

    def event(self, ev: Event) -> bytes:
        """``mvccpb.Event`` (type 1, kv 2, prev_kv 3) as a field of a WatchResponse (11)."""
        kv = self._tagged_kv(b"\x12", ev.kv)
        body = (b"\x08\x01" + kv) if ev.type else kv
        if ev.prev_kv is not None:
            body += self._tagged_kv(b"\x1a", ev.prev_kv)
        return length_delimited(b"\x5a", body)

    def watch_events(self, revision: int, watch_id: int, events: Iterable[Event]) -> bytes:
        """A ``WatchResponse`` carrying events (header 1, watch_id 2, events 11)."""
        event = self.event
        return b"".join([self.header(revision), _field(b"\x10", watch_id),
                         *[event(ev) for ev in events]])
