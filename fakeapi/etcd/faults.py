"""Faults at the etcd level: what a real etcd does to its clients on a bad day (issue seed 004),
scripted for ``fakeapi etcd`` (``--fault``) and, when the API server serves its store over gRPC
too, for the faults API under ``/fakeapi/v1/faults`` (types ``etcd-*``).

Faults, listed with an id and counters until cleared:
- ``etcd-error``: requests answered with one of etcd's transient errors, before they change
  anything: ``timeout`` (``etcdserver: request timed out``), ``leader-changed``, ``no-leader``
  (UNAVAILABLE), ``too-many-requests`` (RESOURCE_EXHAUSTED);
- ``etcd-latency``: requests delayed by ``seconds`` before they apply: slow commits when
  ``method=write``.
Both select requests by ``method`` (``range``, ``put``, ``delete_range``, ``txn``, ``compact``,
``lease_grant``, ``lease_revoke``, or ``read`` / ``write``: a txn with a write is a write) and by
key ``prefix`` (a txn matches when any of its keys does), and fire on every match, the first
``count`` or with probability ``rate`` (seeded by ``seed``).

Actions, done at once: ``etcd-drop-watches`` ends every open Watch stream with etcd's answer to
a lost leader (UNAVAILABLE ``etcdserver: no leader``; clients re-watch from their last
revision); ``etcd-compact`` compacts the store at ``revision`` (default: the current one).

Like the store, the engine belongs to the event loop that serves.
"""

from __future__ import annotations

import itertools
import logging
import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc

from ..machinery.flatspec import check_count_and_rate, integer, number, parse_fields, text
from ..store import Store

log = logging.getLogger("fakeapi.etcd.faults")

#: etcd's transient errors: name -> (gRPC code, message), from rpctypes/error.go.
ERRORS: dict[str, tuple[grpc.StatusCode, str]] = {
    "timeout": (grpc.StatusCode.UNAVAILABLE, "etcdserver: request timed out"),
    "leader-changed": (grpc.StatusCode.UNAVAILABLE, "etcdserver: leader changed"),
    "no-leader": (grpc.StatusCode.UNAVAILABLE, "etcdserver: no leader"),
    "too-many-requests": (grpc.StatusCode.RESOURCE_EXHAUSTED, "etcdserver: too many requests"),
}
METHODS = ("range", "put", "delete_range", "txn", "compact", "lease_grant", "lease_revoke")


@dataclass(eq=False)
class EtcdFault:
    """One fault on requests: which it selects, how often it fires, and its counters."""

    id: str
    type: str
    method: str | None = None
    prefix: bytes = b""
    count: int | None = None
    rate: float | None = None
    seed: int = 0
    error: str | None = None  # etcd-error
    seconds: float = 0.0  # etcd-latency
    matched: int = field(default=0, init=False)
    fired: int = field(default=0, init=False)
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.method is not None and self.method not in (*METHODS, "read", "write"):
            raise ValueError(f"unknown method {self.method!r}; known: {', '.join(METHODS)}, read, write")
        check_count_and_rate(self.count, self.rate)
        if self.type == "etcd-error" and self.error not in ERRORS:
            raise ValueError(f"error must be one of {', '.join(ERRORS)}")
        if self.type == "etcd-latency" and not self.seconds > 0:
            raise ValueError("seconds must be > 0")
        self._rng = random.Random(self.seed)

    @property
    def active(self) -> bool:
        return self.count is None or self.fired < self.count

    def selects(self, method: str, write: bool, keys: tuple[bytes, ...]) -> bool:
        wanted = self.method
        if wanted is not None and wanted != method and wanted != ("write" if write else "read"):
            return False
        return not self.prefix or any(key.startswith(self.prefix) for key in keys)

    def fires(self) -> bool:
        """Counted: a selected request draws (with ``rate``) whether the fault acts on it."""
        self.matched += 1
        if self.rate is not None and self._rng.random() >= self.rate:
            return False
        self.fired += 1
        return True

    def to_dict(self) -> dict[str, Any]:
        """As the faults API lists it (these keys need no camelCase)."""
        return self.describe()

    def describe(self) -> dict[str, Any]:
        out = {"id": self.id, "type": self.type, "active": self.active, "method": self.method,
               "prefix": self.prefix.decode(errors="replace") or None, "count": self.count,
               "rate": self.rate, "seed": self.seed, "matched": self.matched, "fired": self.fired}
        if self.type == "etcd-error":
            out["error"] = self.error
        else:
            out["seconds"] = self.seconds
        return out


class EtcdFaults:
    """The etcd-level fault engine of one ``EtcdServer`` (see the module docstring): given the
    server's store, which ``etcd-compact`` compacts, and its ``drop_watches``, which ends its
    Watch streams."""

    def __init__(self, store: Store, drop_watches: Callable[[], int]) -> None:
        self.store = store
        self._drop_watches = drop_watches
        #: The faults that still act; the request path's only cost while empty is testing it.
        self.active: list[EtcdFault] = []
        self._faults: dict[str, EtcdFault] = {}
        self._ids = itertools.count(1)
        self.totals: Counter[str] = Counter()

    # ----------------------------------------------------------------- the request path

    def effect(self, method: str, write: bool, keys: tuple[bytes, ...]
               ) -> tuple[float, tuple[grpc.StatusCode, str] | None]:
        """(delay, error) the active faults put on one request; call only while ``active``."""
        delay, error = 0.0, None
        for fault in self.active:
            if not fault.selects(method, write, keys) or (fault.error is not None and error is not None):
                continue
            if fault.fires():
                self.totals[fault.type] += 1
                if fault.error is not None:
                    error = ERRORS[fault.error]
                else:
                    delay += fault.seconds
        if any(not f.active for f in self.active):
            self.active = [f for f in self.active if f.active]
        return delay, error

    # ----------------------------------------------------------------- faults and actions

    def apply(self, spec: Mapping[str, object]) -> EtcdFault | dict[str, int]:
        """Do what a flat spec says: the fault added, or for an action what it did
        (``{"closed": streams}``, ``{"revision": compacted at}``)."""
        kind, kwargs = parse_spec(spec)
        if kind == "etcd-drop-watches":
            return {"closed": self.drop_watches()}
        if kind == "etcd-compact":
            return {"revision": self.compact(**kwargs)}
        fault = EtcdFault(f"{kind}-{next(self._ids)}", kind, **kwargs)
        self._faults[fault.id] = fault
        self.active = [*self.active, fault]  # a new list: never mutated mid-iteration
        log.info("fault %s: %s", fault.id, fault.describe())
        return fault

    def drop_watches(self) -> int:
        dropped = self._drop_watches()
        self.totals["etcd-drop-watches"] += 1
        log.info("etcd-drop-watches: %d watch streams ended", dropped)
        return dropped

    def compact(self, revision: int | None = None) -> int:
        store = self.store
        revision = store.revision if revision is None else revision
        store.compact(revision)
        self.totals["etcd-compact"] += 1
        log.info("etcd-compact: compacted at revision %d", revision)
        return revision

    def clear(self, fault_id: str | None = None) -> int:
        """Clear one fault (KeyError if there is no such id) or all; returns how many."""
        ids = list(self._faults) if fault_id is None else [fault_id]
        cleared = [self._faults.pop(i) for i in ids]
        self.active = [f for f in self.active if f not in cleared]
        return len(cleared)

    def owns(self, fault_id: str) -> bool:
        return fault_id in self._faults

    def faults(self) -> list[dict[str, Any]]:
        return [f.to_dict() for f in self._faults.values()]


# --------------------------------------------------------------------- the flat spec


_SELECTION = ("method", "prefix", "count", "rate", "seed")
_FIELDS: dict[str, tuple[str, ...]] = {
    "etcd-error": ("error", *_SELECTION),
    "etcd-latency": ("seconds", *_SELECTION),
    "etcd-drop-watches": (),
    "etcd-compact": ("revision",),
}
_COERCE: dict[str, Callable[[object], object]] = {
    "error": text, "method": text, "prefix": lambda v: text(v).encode(), "count": integer,
    "rate": number, "seed": integer, "seconds": number, "revision": integer,
}


def parse_spec(spec: Mapping[str, object]) -> tuple[str, dict[str, Any]]:
    """A flat spec (``type`` plus fields, values typed or text) as (type, kwargs); ValueError
    says what is wrong."""
    return parse_fields(spec, _FIELDS, _COERCE)


__all__ = ["ERRORS", "EtcdFault", "EtcdFaults", "parse_spec"]
