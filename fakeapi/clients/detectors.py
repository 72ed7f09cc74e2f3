"""The detectors: each a rule over what clients do, with its knobs, that records a ``Finding``
(who, which resource, when, how often, the numbers that tripped it and one request as an
example) when the rule holds. They run after each request, on facts the request already has;
their state is bounded per client and resource (``Recent``, ``BoundedDict``).

| name | rule (default knobs) |
|---|---|
| ``relist-storm`` | a client starts over ``relists`` (3) times within ``window`` (60 s) on one resource: when one of its watches of that resource (same namespace scope) has ended, it LISTs (or opens a watch that begins with the whole state, ``sendInitialEvents=true``) instead of resuming with a watch from where it was |
| ``unpaged-list`` | a consistent LIST (``resourceVersion`` unset) without ``limit`` over more than ``objects`` (500) objects |
| ``selector-scan`` | ``lists`` (5) LISTs within ``window`` (60 s) by one client of one resource, each with a label or field selector that went through at least ``examined`` (500) objects and at least ``ratio`` (10) times as many as it returned |
| ``hot-loop`` | one client writes one object ``writes`` (20) times within a ``window`` (60 s; fixed windows), or makes ``noop_writes`` (5) writes of a resource within ``window`` that change nothing |
| ``watch-churn`` | one client's watches of one resource (same namespace scope) end before ``lifetime`` (5 s) ``watches`` (5) times within ``window`` (60 s); watches the server ended (a restart, a close-watches fault) do not count, those closed for falling behind do |
| ``conflict-storm`` | one client gets ``conflicts`` (10) 409 Conflicts on one resource within ``window`` (60 s) |
| ``lock-step`` | LISTs of one resource come in bursts — ``clients`` (3) or more sources (a client on a connection) within ``slot`` (1 s) of the burst's first LIST — and ``bursts`` (3) bursts in a row are evenly spaced (gaps equal within one slot, at least 1.5 slots): many clients resyncing on the same period |
"""

from __future__ import annotations

import math
from collections import OrderedDict, deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Generic, TypeVar

from ..machinery.golang import parse_duration
from .calls import MAX_EXAMPLE, Call

K = TypeVar("K")
V = TypeVar("V")

#: Clients named in one finding (lock-step gathers many).
MAX_FINDING_CLIENTS = 20
#: Keys each detector tracks at once (the oldest is forgotten first).
MAX_TRACKED = 10_000
#: Ended watches (and LISTs) of one client and resource remembered as not yet followed up.
MAX_PENDING = 64


@dataclass(frozen=True, slots=True)
class RelistStorm:
    relists: int = 3
    window: float = 60.0


@dataclass(frozen=True, slots=True)
class UnpagedList:
    objects: int = 500


@dataclass(frozen=True, slots=True)
class SelectorScan:
    lists: int = 5
    window: float = 60.0
    examined: int = 500
    ratio: float = 10.0


@dataclass(frozen=True, slots=True)
class HotLoop:
    writes: int = 20
    noop_writes: int = 5
    window: float = 60.0


@dataclass(frozen=True, slots=True)
class WatchChurn:
    watches: int = 5
    lifetime: float = 5.0
    window: float = 60.0


@dataclass(frozen=True, slots=True)
class ConflictStorm:
    conflicts: int = 10
    window: float = 60.0


@dataclass(frozen=True, slots=True)
class LockStep:
    clients: int = 3
    bursts: int = 3
    slot: float = 1.0


@dataclass(frozen=True, slots=True)
class DetectorConfig:
    """Every detector's knobs (``fakeapi serve --detector NAME:KNOB=VALUE,...``)."""

    relist_storm: RelistStorm = field(default_factory=RelistStorm)
    unpaged_list: UnpagedList = field(default_factory=UnpagedList)
    selector_scan: SelectorScan = field(default_factory=SelectorScan)
    hot_loop: HotLoop = field(default_factory=HotLoop)
    watch_churn: WatchChurn = field(default_factory=WatchChurn)
    conflict_storm: ConflictStorm = field(default_factory=ConflictStorm)
    lock_step: LockStep = field(default_factory=LockStep)

    def knobs(self) -> dict[str, dict[str, float]]:
        """Knobs by detector name (``relist-storm``), as the report shows them."""
        return {f.name.replace("_", "-"): asdict(getattr(self, f.name)) for f in fields(self)}

    def with_knobs(self, detector: str, **knobs: str | float) -> DetectorConfig:
        """A copy with some of one detector's knobs changed; ``ValueError`` names what is wrong."""
        attribute = detector.replace("-", "_")
        if attribute not in {f.name for f in fields(self)}:
            raise ValueError(f"unknown detector {detector!r}; known: {', '.join(self.knobs())}")
        current = getattr(self, attribute)
        kinds = {f.name: f.type for f in fields(current)}
        changed = {}
        for name, text in knobs.items():
            kind = kinds.get(name.replace("-", "_"))
            if kind is None:
                raise ValueError(f"{detector} has no knob {name!r}; knobs: {', '.join(kinds)}")
            value = int(text) if kind == "int" else parse_duration(str(text))
            if value <= 0 or not math.isfinite(value):
                raise ValueError(f"{detector} {name} must be positive: {text}")
            changed[name.replace("-", "_")] = value
        return replace(self, **{attribute: replace(current, **changed)})


DETECTORS = tuple(DetectorConfig().knobs())


def parse_detector_spec(text: str) -> tuple[str, dict[str, str]]:
    """``NAME:KNOB=VALUE,...`` (``relist-storm:relists=5,window=2m``) -> (name, knobs)."""
    name, _, rest = text.partition(":")
    knobs = {}
    for item in filter(None, rest.split(",")):
        knob, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"expected KNOB=VALUE, got {item!r}")
        knobs[knob.strip()] = value.strip()
    DetectorConfig().with_knobs(name.strip(), **knobs)  # names and values checked here
    return name.strip(), knobs


class Finding:
    """A detector that fired: for whom, on what, first and last time, how many times, the
    numbers of its last firing and the request that caused it."""

    __slots__ = ("detector", "resource", "clients", "first_at", "last_at", "count", "evidence", "example")

    def __init__(self, detector: str, resource: str, now: float) -> None:
        self.detector = detector
        self.resource = resource
        self.clients: list[str] = []
        self.first_at = now
        self.last_at = now
        self.count = 0
        self.evidence: dict[str, Any] = {}
        self.example = ""

    def to_json(self) -> dict[str, Any]:
        return {"detector": self.detector, "resource": self.resource, "clients": list(self.clients),
                "firstAt": self.first_at, "lastAt": self.last_at, "count": self.count,
                "evidence": dict(self.evidence), "example": self.example}


class Findings:
    """At most ``max_findings`` findings, one per (detector, client, resource); one firing
    more of a known finding updates it."""

    def __init__(self, max_findings: int) -> None:
        self.max_findings = max_findings
        self.by_key: dict[tuple[str, str, str], Finding] = {}
        self.dropped = 0  # firings of new findings past the cap

    def fire(self, detector: str, client: str, resource: str, now: float, evidence: dict[str, Any],
             example: str, clients: Iterator[str] | None = None) -> None:
        key = (detector, client, resource)
        finding = self.by_key.get(key)
        if finding is None:
            if len(self.by_key) >= self.max_findings:
                self.dropped += 1
                return
            finding = self.by_key[key] = Finding(detector, resource, now)
        finding.last_at = now
        finding.count += 1
        finding.evidence = evidence
        finding.example = example[:MAX_EXAMPLE]
        for name in clients if clients is not None else (client,):
            if name not in finding.clients and len(finding.clients) < MAX_FINDING_CLIENTS:
                finding.clients.append(name)


class BoundedDict(OrderedDict[K, V], Generic[K, V]):
    """A dict that forgets its oldest entry past ``limit`` entries."""

    def __init__(self, limit: int = MAX_TRACKED) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        if len(self) > self.limit:
            self.popitem(last=False)


class Recent:
    """The times of the last ``count`` occurrences per key: whether ``count`` of them fall
    within ``window`` is one comparison."""

    def __init__(self, count: int, window: float) -> None:
        self.count = count
        self.window = window
        self.times: BoundedDict[Any, deque[float]] = BoundedDict()

    def add(self, key: Any, now: float) -> float | None:
        """Record one at ``now``; the span of the last ``count`` when they fit in the window."""
        times = self.times.get(key)
        if times is None:
            times = self.times[key] = deque(maxlen=self.count)
        times.append(now)
        if len(times) == self.count and now - times[0] <= self.window:
            return now - times[0]
        return None


class Detectors:
    """All the detectors, fed by ``ClientReport`` after each request."""

    def __init__(self, config: DetectorConfig, findings: Findings) -> None:
        self.config = config
        self.findings = findings
        c = config
        #: (client, resource, namespace) -> its watches that ended and were neither resumed (a
        #: new watch) nor relisted since (each resume or relist takes one), and its LISTs not yet
        #: followed by their watch (which is then no resume). Counts, not times: several
        #: informers of one client share the key.
        self._unresumed: BoundedDict[tuple[str, str, str], int] = BoundedDict()
        self._listed: BoundedDict[tuple[str, str, str], int] = BoundedDict()
        self._relists = Recent(c.relist_storm.relists, c.relist_storm.window)
        self._scans = Recent(c.selector_scan.lists, c.selector_scan.window)
        self._noop_writes = Recent(c.hot_loop.noop_writes, c.hot_loop.window)
        self._short_watches = Recent(c.watch_churn.watches, c.watch_churn.window)
        self._conflicts = Recent(c.conflict_storm.conflicts, c.conflict_storm.window)
        self._object_writes: BoundedDict[tuple[str, str, str, str], int] = BoundedDict()
        self._writes_window_end = 0.0
        self._lock_step: BoundedDict[str, _Bursts] = BoundedDict()

    def after(self, call: Call, now: float) -> None:
        verb = call.info.verb
        if verb == "list":
            self._list(call, now)
        elif verb == "watch":
            self._watch(call, now)
        elif verb in ("create", "update", "patch", "delete"):
            self._write(call, now)
        if call.status == 409:
            self._conflict(call, now)

    # ----------------------------------------------------------------- per verb

    def _list(self, call: Call, now: float) -> None:
        info, cost, client = call.info, call.cost, call.client.name
        if not info.query_value("continue"):  # later pages belong to the LIST that began them
            key = (client, info.group_resource, info.namespace)
            if _take(self._unresumed, key):  # instead of resuming
                self._relisted(call, now - call.seconds, "list")
            self._listed[key] = min(self._listed.get(key, 0) + 1, MAX_PENDING)
            unpaged = self.config.unpaged_list
            if (cost.examined > unpaged.objects and not info.query_value("resourceVersion")
                    and info.query_value("limit") in ("", "0")):
                self.findings.fire("unpaged-list", client, info.group_resource, now, {
                    "objects": cost.examined, "returned": cost.returned, "seconds": round(call.seconds, 6),
                }, call.example())
            self._lock_step_list(call, now)
        scan = self.config.selector_scan
        if (cost.examined >= scan.examined and cost.examined >= scan.ratio * max(cost.returned, 1)
                and (info.query_value("labelSelector") or info.query_value("fieldSelector"))):
            span = self._scans.add((client, info.group_resource), now)
            if span is not None:
                self.findings.fire("selector-scan", client, info.group_resource, now, {
                    "lists": scan.lists, "withinSeconds": round(span, 3), "examined": cost.examined,
                    "returned": cost.returned, "labelSelector": info.query_value("labelSelector"),
                    "fieldSelector": info.query_value("fieldSelector"),
                }, call.example())

    def watch_opened(self, call: Call) -> None:
        """A watch begins: the watch of a LIST just made, or one that resumes a watch of the
        client's that ended, or one that starts over with the whole state (a relist)."""
        info = call.info
        key = (call.client.name, info.group_resource, info.namespace)
        if not _take(self._listed, key) and _take(self._unresumed, key) and _starts_with_state(call):
            self._relisted(call, call.started_at, "watch with the whole state")

    def _watch(self, call: Call, now: float) -> None:
        """A watch ended (``call.seconds`` is its lifetime)."""
        info, client = call.info, call.client.name
        key = (client, info.group_resource, info.namespace)
        self._unresumed[key] = min(self._unresumed.get(key, 0) + 1, MAX_PENDING)
        churn = self.config.watch_churn
        watcher = call.cost.watcher
        # A watch the server ended (a restart, a close-watches fault) is not the client's churn;
        # one it closed for falling behind is.
        if call.seconds < churn.lifetime and not (watcher is not None and watcher.ended_by_server):
            span = self._short_watches.add(key, now)
            if span is not None:
                self.findings.fire("watch-churn", client, info.group_resource, now, {
                    "watches": churn.watches, "withinSeconds": round(span, 3),
                    "lastLifetimeSeconds": round(call.seconds, 6), "namespace": info.namespace,
                }, call.example())

    def _write(self, call: Call, now: float) -> None:
        info, client = call.info, call.client.name
        hot = self.config.hot_loop
        if call.cost.noop_write:
            span = self._noop_writes.add((client, info.group_resource), now)
            if span is not None:
                self.findings.fire("hot-loop", client, info.group_resource, now, {
                    "rule": "no-op writes", "noopWrites": hot.noop_writes, "withinSeconds": round(span, 3),
                    "object": _object_name(call),
                }, call.example())
        if not info.name or call.status >= 300:
            return
        if now >= self._writes_window_end:
            self._object_writes.clear()
            self._writes_window_end = now + hot.window
        key = (client, info.group_resource, info.namespace, info.name)
        writes = self._object_writes.get(key, 0) + 1
        self._object_writes[key] = writes
        if writes >= hot.writes:
            self.findings.fire("hot-loop", client, info.group_resource, now, {
                "rule": "same object", "object": _object_name(call), "writes": writes,
                "windowSeconds": hot.window,
            }, call.example())

    def _conflict(self, call: Call, now: float) -> None:
        info, client = call.info, call.client.name
        storm = self.config.conflict_storm
        span = self._conflicts.add((client, info.group_resource), now)
        if span is not None:
            self.findings.fire("conflict-storm", client, info.group_resource, now, {
                "conflicts": storm.conflicts, "withinSeconds": round(span, 3), "object": _object_name(call),
            }, call.example())

    def _relisted(self, call: Call, at: float, how: str) -> None:
        info, client = call.info, call.client.name
        storm = self.config.relist_storm
        span = self._relists.add((client, info.group_resource, info.namespace), at)
        if span is not None:
            self.findings.fire("relist-storm", client, info.group_resource, at, {
                "relists": storm.relists, "withinSeconds": round(span, 3), "last": how,
                "namespace": info.namespace,
            }, call.example())

    # ----------------------------------------------------------------- lock-step

    def _lock_step_list(self, call: Call, now: float) -> None:
        resource = call.info.group_resource
        bursts = self._lock_step.get(resource)
        if bursts is None:
            bursts = self._lock_step[resource] = _Bursts(self.config.lock_step)
        if bursts.add(now, call):
            self._lock_step_fired(resource, bursts, now)

    def close_slots(self, now: float) -> None:
        """Count the bursts whose slot is over (a report asks: the last burst has no LIST after it)."""
        for resource, bursts in self._lock_step.items():
            if bursts.close(now):
                self._lock_step_fired(resource, bursts, now)

    def _lock_step_fired(self, resource: str, bursts: _Bursts, now: float) -> None:
        starts = [start for start, _, _ in bursts.recent]
        gaps = [b - a for a, b in zip(starts, starts[1:])]
        clients = sorted({name for _, names, _ in bursts.recent for name in names})
        self.findings.fire("lock-step", "", resource, now, {
            "periodSeconds": round(sum(gaps) / len(gaps), 3), "bursts": len(starts),
            "burstsAt": [round(s, 3) for s in starts], "sourcesPerBurst": [n for _, _, n in bursts.recent],
        }, bursts.example, clients=iter(clients))


class _Bursts:
    """One resource's LISTs in windows of ``slot`` seconds, each opened by the first LIST after
    the previous one closed (so a burst straddling a clock second stays one burst): the sources
    of the current window, and the last ``bursts`` windows that had ``clients`` sources or more."""

    __slots__ = ("knobs", "window_start", "sources", "names", "recent", "example")

    def __init__(self, knobs: LockStep) -> None:
        self.knobs = knobs
        self.window_start = -math.inf
        self.sources: set[object] = set()
        self.names: set[str] = set()
        #: (start, client names, sources) of the last bursts.
        self.recent: deque[tuple[float, frozenset[str], int]] = deque(maxlen=knobs.bursts)
        self.example = ""

    def add(self, now: float, call: Call) -> bool:
        """Count ``call``'s source; whether closing the previous window completed an evenly
        spaced series of bursts."""
        fired = False
        if now >= self.window_start + self.knobs.slot:
            fired = self.close(now)
            self.window_start = now
        sources = self.sources
        if len(sources) < MAX_FINDING_CLIENTS and call.source not in sources:
            sources.add(call.source)
            self.names.add(call.client.name)
            if len(sources) == self.knobs.clients:
                self.example = call.example()
        return fired

    def close(self, now: float) -> bool:
        """End the current window if its time is over; whether it was the last of an evenly
        spaced series of bursts."""
        slot = self.knobs.slot
        if not self.sources or now < self.window_start + slot:
            return False
        burst = len(self.sources) >= self.knobs.clients
        if burst:
            self.recent.append((self.window_start, frozenset(self.names), len(self.sources)))
        self.sources = set()
        self.names = set()
        if not burst or len(self.recent) < self.knobs.bursts:
            return False
        starts = [start for start, _, _ in self.recent]
        gaps = [b - a for a, b in zip(starts, starts[1:])]
        return min(gaps) >= 1.5 * slot and max(gaps) - min(gaps) <= slot


def _take(counts: BoundedDict[tuple[str, str, str], int], key: tuple[str, str, str]) -> bool:
    """Take one from a pending count; whether there was one."""
    count = counts.get(key)
    if not count:
        return False
    counts[key] = count - 1
    return True


def _starts_with_state(call: Call) -> bool:
    """A watch that begins with every object (WatchList, or a legacy watch from RV "" / "0")."""
    initial_events = call.info.query_value("sendInitialEvents")
    return initial_events == "true" or (initial_events == "" and call.info.query_value("resourceVersion") in ("", "0"))


def _object_name(call: Call) -> str:
    info = call.info
    return f"{info.namespace}/{info.name}" if info.namespace else info.name
