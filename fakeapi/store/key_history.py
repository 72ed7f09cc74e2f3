"""Per-key history: the retained versions of one key, oldest first.

etcd keeps a ``keyIndex`` of generations pointing into a revision-keyed backend. In memory we keep
the ``KeyValue`` records themselves, so a read of the past is a binary search in one short list.

Invariants of a history ``h`` (a plain list, to keep one key's overhead small):
- ``h`` is non-empty and sorted by strictly increasing ``mod_revision``;
- a tombstone (version 0) is followed only by a create (version 1) of a new generation;
- after ``compact(h, rev)`` nothing older than the version visible at ``rev`` remains, and a
  tombstone older than ``rev`` is dropped together with its whole generation, so a key that was
  deleted before ``rev`` and never re-created disappears (``compact`` returns an empty list).
"""

from __future__ import annotations

from bisect import bisect_right

from .kv import KeyValue

KeyHistory = list[KeyValue]


def _mod_revision(kv: KeyValue) -> int:
    return kv.mod_revision


def visible_at(history: KeyHistory, rev: int) -> KeyValue | None:
    """The key's live value at ``rev``, or None when it did not exist then."""
    last = history[-1]
    if last.mod_revision <= rev:  # the common case: reading the present
        return None if last.version == 0 else last
    i = bisect_right(history, rev, key=_mod_revision)
    if i == 0:
        return None
    kv = history[i - 1]
    return None if kv.version == 0 else kv


def compact(history: KeyHistory, rev: int) -> KeyHistory:
    """Drop every version superseded at ``rev``; keep the one visible at ``rev`` unless it is a
    tombstone older than ``rev`` (a tombstone *at* ``rev`` stays, so a watch from ``rev`` still
    sees that delete, as in etcd's ``keyIndex.compact``)."""
    i = bisect_right(history, rev, key=_mod_revision)
    if i == 0:
        return history
    keep_from = i - 1
    kept = history[keep_from]
    if kept.version == 0 and kept.mod_revision < rev:
        keep_from = i
    return history[keep_from:] if keep_from else history
