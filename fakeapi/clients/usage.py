"""What clients cost, as plain counters in time slices: bounded memory, one dict lookup and a
few additions per request.

A ``Usage`` is the counters of one cell: one client's requests of one verb, resource and scope.
``History`` keeps cells per time slice (10 s by default) so that a report can cover the last
minutes only (``--since 5m``); slices older than the span, or beyond the cell budget, are folded
into ``earlier``, which holds everything before the oldest slice. So totals are exact forever,
windows are exact as far back as the slices go, and memory is at most ``max_cells`` cells in
slices plus one cell per distinct (client, verb, resource, scope) in ``earlier``, which the
client cap (``ClientReport``) bounds.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import NamedTuple


class UsageKey(NamedTuple):
    client: str
    #: kube's RequestInfo verb: get, list, watch, create, update, patch, delete, deletecollection.
    verb: str
    #: ``plural[.group][/subresource]``, as kubectl names resources.
    resource: str
    #: ``resource`` (one object, or a create), ``namespace`` or ``cluster`` (kube's CleanScope).
    scope: str


#: Counter names as the JSON report spells them, in the order the report lists them.
FIELDS = {
    "requests": "requests",
    "serving_seconds": "servingSeconds",
    "request_bytes": "requestBytes",
    "response_bytes": "responseBytes",
    "objects_returned": "objectsReturned",
    "objects_examined": "objectsExamined",
    "store_reads": "storeReads",
    "watches_opened": "watchesOpened",
    "watch_seconds": "watchSeconds",
    "watch_events": "watchEvents",
    "expired": "expired",
    "conflicts": "conflicts",
    "noop_writes": "noopWrites",
}


class Usage:
    """The counters of one cell. ``serving_seconds`` is the time spent answering requests
    other than watches; ``watch_seconds`` the lifetime of ended watches; ``expired`` counts
    410s (the HTTP status, or a watch's in-stream ERROR); ``noop_writes`` writes that changed
    nothing (answered with the stored object; no new resourceVersion, no event)."""

    __slots__ = tuple(FIELDS)
    # The attributes, typed; __init__ sets each to zero.
    requests: int
    serving_seconds: float
    request_bytes: int
    response_bytes: int
    objects_returned: int
    objects_examined: int
    store_reads: int
    watches_opened: int
    watch_seconds: float
    watch_events: int
    expired: int
    conflicts: int
    noop_writes: int

    def __init__(self) -> None:
        for name in FIELDS:
            setattr(self, name, 0)

    def add(self, other: Usage) -> None:
        for name in FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_json(self) -> dict[str, float]:
        return {json_name: _rounded(getattr(self, name)) for name, json_name in FIELDS.items()}


def _rounded(value: float) -> float:
    return round(value, 6) if isinstance(value, float) else value


class _Slice:
    __slots__ = ("start", "end", "cells")

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end
        self.cells: dict[UsageKey, Usage] = {}


class History:
    """Cells per time slice of ``slice_seconds``, kept for ``span_seconds`` and at most
    ``max_cells`` cells in slices (the oldest slices are folded into ``earlier`` first)."""

    def __init__(self, slice_seconds: float, span_seconds: float, max_cells: int) -> None:
        self.slice_seconds = slice_seconds
        self.max_slices = max(1, int(span_seconds / slice_seconds))
        self.max_cells = max_cells
        self.slices: deque[_Slice] = deque()
        #: Everything before the oldest slice.
        self.earlier: dict[UsageKey, Usage] = {}
        self._cells = 0
        self._current = _Slice(0.0, 0.0)

    def cell(self, key: UsageKey, now: float) -> Usage:
        """The cell of ``key`` in the slice holding ``now`` (time only moves forward here: a
        ``now`` before the current slice lands in it)."""
        current = self._current
        if now >= current.end:
            current = self._advance(now)
        usage = current.cells.get(key)
        if usage is None:
            usage = current.cells[key] = Usage()
            self._cells += 1
            if self._cells > self.max_cells and len(self.slices) > 1:
                self._fold_oldest()
        return usage

    def _advance(self, now: float) -> _Slice:
        start = now - now % self.slice_seconds
        current = self._current = _Slice(start, start + self.slice_seconds)
        self.slices.append(current)
        while len(self.slices) > self.max_slices:
            self._fold_oldest()
        return current

    def _fold_oldest(self) -> None:
        oldest = self.slices.popleft()
        self._cells -= len(oldest.cells)
        earlier = self.earlier
        for key, usage in oldest.cells.items():
            into = earlier.get(key)
            if into is None:
                earlier[key] = usage
            else:
                into.add(usage)

    @property
    def oldest(self) -> float | None:
        """Start of the oldest slice (windows are exact from there on); None before any."""
        return self.slices[0].start if self.slices else None

    def cells_since(self, cutoff: float | None) -> Iterator[tuple[UsageKey, Usage]]:
        """Every cell of the slices ending after ``cutoff`` (None: all, ``earlier`` too)."""
        if cutoff is None:
            yield from self.earlier.items()
        for piece in self.slices:
            if cutoff is None or piece.end > cutoff:
                yield from piece.cells.items()


def summed(cells: Iterable[tuple[UsageKey, Usage]]) -> dict[UsageKey, Usage]:
    """Cells of the same key added up."""
    totals: dict[UsageKey, Usage] = {}
    for key, usage in cells:
        total = totals.get(key)
        if total is None:
            total = totals[key] = Usage()
        total.add(usage)
    return totals
