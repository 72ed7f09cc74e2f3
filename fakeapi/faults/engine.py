"""Scriptable faults: the failures real clusters throw at controllers, as data that the request
path and the watch caches consult (never monkey patches).

One ``Faults`` engine per server, reachable as ``Server.faults``, with three faces: this Python
API, the HTTP control API under ``/fakeapi/v1/faults`` (``fakeapi/http/faults.py``) and
``fakeapi serve --fault``. The HTTP body and the CLI text are the same flat spec as this API's
keyword arguments (``parse_spec``): ``{"type": "error", "verb": "list", "resource": "pods",
"code": 429, "count": 2}`` is ``inject_error(verb="list", resource="pods", code=429, count=2)``.

What there is:
- actions, done at once and counted: ``restart`` (every watch ends and every watch cache drops
  its event history, so resuming from an older resourceVersion gets 410, as after a
  kube-apiserver restart) and ``close_watches``;
- faults, listed with an id and counters until cleared (``active`` says whether they still act):
  ``error`` and ``latency`` on requests, matched by verb and resource; ``stall`` on open watches
  for some seconds; ``set``, run-time knobs (clearing restores the value the server started with);
- when the store is also served over etcd's gRPC API, the etcd-level faults and actions
  (``etcd-*``, ``fakeapi/etcd/faults.py``), applied, listed and cleared through this engine.

Invariants: a request failed by a fault changes nothing (the error is raised before the handler
runs); faults never touch objects (a restart's one write is the master lease a starting
kube-apiserver registers), and watches keep their guarantees (ordered, no duplicates,
no gaps inside the window): closing and restarting only end streams, stalls only delay lines.

Threading: like the store, the engine belongs to the server's event loop; call it there.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ..cacher import CacheWatcher
from ..machinery.flatspec import check_count_and_rate
from ..machinery.flatspec import integer as _integer
from ..machinery.flatspec import number as _number
from ..machinery.flatspec import parse_cli_spec as parse_cli_spec  # the CLI and the pytest plugin's
from ..machinery.flatspec import parse_fields
from ..machinery.flatspec import text as _text
from ..machinery.status import (
    StatusError,
    internal_error,
    service_unavailable,
    timeout,
    too_many_requests,
)
from ..registry.bootstrap import register_master_lease
from ..registry.registry import Registry
from ..store import StoreTimers

if TYPE_CHECKING:
    from ..etcd.faults import EtcdFaults

log = logging.getLogger("fakeapi.faults")

VERBS = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")
ERROR_CODES = (429, 500, 503, 504)
#: What kube-apiserver says with each code where fakeapi imitates it: the max-in-flight and
#: priority-and-fairness filters (429), an etcd error surfacing through storage (500), a
#: shutting-down server (503), the request-timeout filter (504).
DEFAULT_MESSAGES = {
    429: "Too many requests, please try again later.",
    500: "etcdserver: request timed out",
    503: "apiserver is shutting down",
    504: "request did not complete within requested timeout - context deadline exceeded",
}
#: The Retry-After a 429 gets when none is given (kube's filters send 1).
DEFAULT_RETRY_AFTER = 1


@dataclass(frozen=True, slots=True)
class Target:
    """Which resources and namespaces a fault applies to; None matches any."""

    group: str | None = None
    resource: str | None = None
    namespace: str | None = None

    @classmethod
    def of(cls, group: str | None, resource: str | None, namespace: str | None) -> Target:
        """``resource`` may be qualified like kube prints it: ``deployments.apps``."""
        if resource is not None and "." in resource:
            resource, qualified_group = resource.split(".", 1)
            if group is not None and group != qualified_group:
                raise ValueError(f"resource {resource}.{qualified_group} is not in group {group!r}")
            group = qualified_group
        return cls(group, resource or None, namespace or None)

    def matches(self, group: str, resource: str, namespace: str | None) -> bool:
        return ((self.group is None or self.group == group)
                and (self.resource is None or self.resource == resource)
                and (self.namespace is None or self.namespace == namespace))

    def describe(self) -> dict[str, Any]:
        return {"group": self.group, "resource": self.resource, "namespace": self.namespace}


@dataclass(eq=False)
class Fault:
    id: str
    type: ClassVar[str]
    active: bool = field(default=True, init=False)
    fired: int = field(default=0, init=False)

    def describe(self) -> dict[str, Any]:
        """The fault as listed: what it is and its counters (snake_case; ``snapshot`` converts)."""
        return {"id": self.id, "type": self.type, "active": self.active, "fired": self.fired}

    def to_dict(self) -> dict[str, Any]:
        """``describe`` with camelCase keys, as the HTTP API lists it."""
        return _camel_keys(self.describe())


@dataclass
class RequestEffect:
    """What the matching request faults do to one request, gathered before any of it is done."""

    delay: float = 0.0
    per_item: float = 0.0
    error: StatusError | None = None


@dataclass(eq=False)
class RequestFault(Fault):
    """A fault on requests of ``verb`` (None: any) to ``target``: every matching request, the
    first ``count``, or each with probability ``rate`` (drawn from an RNG seeded with ``seed``,
    so a run is reproducible)."""

    verb: str | None = None
    target: Target = Target()
    count: int | None = None
    rate: float | None = None
    seed: int = 0
    matched: int = field(default=0, init=False)
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.verb is not None and self.verb not in VERBS:
            raise ValueError(f"unknown verb {self.verb!r}; known: {', '.join(VERBS)}")
        check_count_and_rate(self.count, self.rate)
        self._rng = random.Random(self.seed)

    def wants(self, effect: RequestEffect) -> bool:
        return True

    def take(self, verb: str, group: str, resource: str, namespace: str | None) -> bool:
        """Whether this fault fires on the request (counted); call only if ``wants``."""
        if (self.verb is not None and self.verb != verb) or not self.target.matches(group, resource, namespace):
            return False
        self.matched += 1
        if self.rate is not None and self._rng.random() >= self.rate:
            return False
        self.fired += 1
        if self.count is not None and self.fired >= self.count:
            self.active = False
        return True

    def act(self, effect: RequestEffect) -> None:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "verb": self.verb, **self.target.describe(), "count": self.count,
                "rate": self.rate, "seed": self.seed, "matched": self.matched}


@dataclass(eq=False)
class ErrorFault(RequestFault):
    """Answers the request with ``code`` as kube-apiserver would, before it does anything."""

    type: ClassVar[str] = "error"
    code: int = 500
    retry_after: int | None = None
    message: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.code not in ERROR_CODES:
            raise ValueError(f"code must be one of {', '.join(map(str, ERROR_CODES))}")
        if self.retry_after is not None and (self.retry_after < 0 or self.code == 500):
            raise ValueError("retry_after must be >= 0, and is for codes 429, 503 and 504")
        if self.retry_after is None and self.code == 429:
            self.retry_after = DEFAULT_RETRY_AFTER

    def wants(self, effect: RequestEffect) -> bool:
        return effect.error is None  # the first matching error wins; later ones keep their counts

    def act(self, effect: RequestEffect) -> None:
        effect.error = self.error()

    def error(self) -> StatusError:
        message = self.message or DEFAULT_MESSAGES[self.code]
        retry = self.retry_after or 0
        if self.code == 429:
            return too_many_requests(message, retry)
        if self.code == 503:
            return service_unavailable(message, retry)
        if self.code == 504:
            return timeout(message, retry)
        return internal_error(message)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "code": self.code, "retry_after": self.retry_after, "message": self.message}


#: Latency distributions by name: (parameter names, sampler(rng, a, b)).
DISTRIBUTIONS: dict[str, tuple[tuple[str, str], Callable[[random.Random, float, float], float]]] = {
    "uniform": (("min", "max"), lambda rng, a, b: rng.uniform(a, b)),
    "normal": (("mean", "stddev"), lambda rng, a, b: max(0.0, rng.gauss(a, b))),
    # Of the underlying normal, in log-seconds: the median delay is exp(mu).
    "lognormal": (("mu", "sigma"), lambda rng, a, b: rng.lognormvariate(a, b)),
}


@dataclass(eq=False)
class LatencyFault(RequestFault):
    """Delays the request (``asyncio.sleep``, never blocking the loop): a fixed ``seconds`` or a
    draw from ``distribution`` with ``parameters``; and for LISTs ``per_item`` seconds per
    returned item on top (a slow LIST), applied once the list is read."""

    type: ClassVar[str] = "latency"
    seconds: float = 0.0
    uniform: tuple[float, float] | None = None
    normal: tuple[float, float] | None = None
    lognormal: tuple[float, float] | None = None
    per_item: float = 0.0
    injected_seconds: float = field(default=0.0, init=False)
    distribution: str | None = field(default=None, init=False)  # the one of the three given
    parameters: tuple[float, float] = field(default=(0.0, 0.0), init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        given = [(name, p) for name, p in (("uniform", self.uniform), ("normal", self.normal),
                                           ("lognormal", self.lognormal)) if p is not None]
        if len(given) > 1:
            raise ValueError("give at most one of uniform, normal, lognormal")
        if given:
            self.distribution, (a, b) = given[0]
            self.parameters = (float(a), float(b))
        if self.seconds < 0 or self.per_item < 0:
            raise ValueError("seconds and per_item must be >= 0")
        if not (self.seconds or self.distribution or self.per_item):
            raise ValueError("give seconds, a distribution (uniform, normal, lognormal) or per_item")
        a, b = self.parameters
        if self.distribution == "uniform" and not 0 <= a <= b:
            raise ValueError("uniform needs 0 <= min <= max")
        if self.distribution in ("normal", "lognormal") and b < 0:
            raise ValueError(f"{self.distribution}'s second parameter (its spread) must be >= 0")

    def act(self, effect: RequestEffect) -> None:
        delay = self.seconds
        if self.distribution is not None:
            delay += DISTRIBUTIONS[self.distribution][1](self._rng, *self.parameters)
        self.injected_seconds += delay
        effect.delay += delay
        effect.per_item += self.per_item

    def describe(self) -> dict[str, Any]:
        out = {**super().describe(), "seconds": self.seconds, "per_item": self.per_item,
               "injected_seconds": round(self.injected_seconds, 6)}
        if self.distribution is not None:
            out[self.distribution] = list(self.parameters)
        return out


@dataclass(eq=False)
class StallFault(Fault):
    """Holds back the lines of the watches that were open on ``target`` when it started, for
    ``seconds``; then they get everything, in order. Watches opened during the stall are not
    held. ``fired`` counts the watches stalled."""

    type: ClassVar[str] = "stall"
    seconds: float = 0.0
    target: Target = Target()
    watchers: list[CacheWatcher] = field(default_factory=list, repr=False)
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)

    def end(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        for w in self.watchers:
            w.resume()
        self.watchers = []
        self.active = False

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "seconds": self.seconds, **self.target.describe()}


#: The run-time knobs: name -> (check, description).
SETTINGS: dict[str, tuple[Callable[[float], bool], str]] = {
    "bookmark_interval": (lambda v: v > 0, "seconds between BOOKMARKs on a watch, > 0"),
    "progress_interval": (lambda v: v > 0, "seconds between store progress notifications, > 0"),
    "watch_cache_min_events": (lambda v: v >= 1 and v == int(v), "smallest event buffer per resource, an integer >= 1"),
    "watch_cache_max_events": (lambda v: v >= 1 and v == int(v), "largest event buffer per resource, an integer >= 1"),
    "max_watch_timeout": (lambda v: v >= 0, "the longest a watch lasts in seconds, 0 = no cap"),
}


@dataclass(eq=False)
class SettingFault(Fault):
    """Run-time knob values; the latest active setting of a knob is in force."""

    type: ClassVar[str] = "set"
    values: dict[str, float] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), **self.values}


class Faults:
    """The fault engine of one server (see the module docstring)."""

    def __init__(self, registry: Registry, timers: StoreTimers) -> None:
        self.registry = registry
        self.timers = timers
        #: The request faults that still act, in the order they were added. The request path's
        #: only cost while it is empty (no fault active) is testing it.
        self.request_faults: list[RequestFault] = []
        self._faults: dict[str, Fault] = {}
        self._ids = itertools.count(1)
        #: Times each type fired since the server started, cleared faults included (metrics).
        self.totals: Counter[str] = Counter()
        #: The etcd-level engine, once the store is served over gRPC (``fakeapi serve
        #: --etcd-listen-client-urls``): the ``etcd-*`` types go there.
        self.etcd: EtcdFaults | None = None
        config = registry.cacher_config
        self._startup_settings: dict[str, float] = {
            "bookmark_interval": config.bookmark_interval,
            "progress_interval": timers.progress_interval,
            "watch_cache_min_events": config.lower_bound,
            "watch_cache_max_events": config.upper_bound,
            "max_watch_timeout": config.max_watch_timeout,
        }

    # ----------------------------------------------------------------- actions

    def restart(self) -> int:
        """An apiserver restart: every watch ends; the server comes back, registers its master
        lease (a write no watch sees) and every watch cache relists after it, dropping its event
        history. So every watch that resumes is behind the caches, even one that had seen the
        last write, and gets 410 Expired: clients relist. Returns how many watches ended."""
        resource_stores = self.registry.stores()
        closed = sum(resource_store.cacher.terminate_all() for resource_store in resource_stores)
        register_master_lease(self.registry.store)
        for resource_store in resource_stores:
            resource_store.cacher.relist()
        self.totals["restart"] += 1
        log.info("restart: %d watches closed, watch caches relisted at revision %d", closed,
                 self.registry.store.revision)
        return closed

    def close_watches(self, *, group: str | None = None, resource: str | None = None,
                      namespace: str | None = None) -> int:
        """End open watches: all, a group's, a resource's (``pods``, ``deployments.apps``),
        those scoped to a namespace, or a combination; returns how many. Clients re-watch from
        the last resourceVersion they saw."""
        target = Target.of(group, resource, namespace)
        closed = self.registry.close_watches(target.group, target.resource, target.namespace)
        self.totals["close-watches"] += 1
        log.info("close-watches %s: %d watches closed", _scope(target), closed)
        return closed

    # ----------------------------------------------------------------- faults

    def inject_error(self, *, code: int, verb: str | None = None, group: str | None = None,
                     resource: str | None = None, namespace: str | None = None, count: int | None = None,
                     rate: float | None = None, seed: int = 0, retry_after: int | None = None,
                     message: str | None = None) -> ErrorFault:
        """Answer matching requests with ``code`` (429, 500, 503, 504) as a kube Status: all of
        them, the first ``count``, or each with probability ``rate``. 429 carries Retry-After
        (``retry_after`` seconds, default 1); 503 and 504 do when ``retry_after`` is given."""
        fault = ErrorFault(self._next_id("error"), verb=verb, target=Target.of(group, resource, namespace),
                           count=count, rate=rate, seed=seed, code=code, retry_after=retry_after, message=message)
        return self._add_request_fault(fault)

    def inject_latency(self, *, verb: str | None = None, group: str | None = None, resource: str | None = None,
                       namespace: str | None = None, seconds: float = 0.0, uniform: tuple[float, float] | None = None,
                       normal: tuple[float, float] | None = None, lognormal: tuple[float, float] | None = None,
                       per_item: float = 0.0, count: int | None = None, rate: float | None = None,
                       seed: int = 0) -> LatencyFault:
        """Delay matching requests by ``seconds``, plus a draw from at most one distribution
        (``uniform=(min, max)``, ``normal=(mean, stddev)`` clipped at 0, ``lognormal=(mu, sigma)``
        of log-seconds), plus ``per_item`` seconds per item a LIST returns."""
        fault = LatencyFault(self._next_id("latency"), verb=verb, target=Target.of(group, resource, namespace),
                             count=count, rate=rate, seed=seed, seconds=seconds, uniform=uniform, normal=normal,
                             lognormal=lognormal, per_item=per_item)
        return self._add_request_fault(fault)

    def stall_watches(self, seconds: float, *, group: str | None = None, resource: str | None = None,
                      namespace: str | None = None) -> StallFault:
        """Hold back every event of the open watches (all, or a resource's and/or a namespace's)
        for ``seconds``, then deliver them in order: latency, never loss. Clearing the fault
        ends the stall early."""
        if not seconds > 0:
            raise ValueError("seconds must be > 0")
        target = Target.of(group, resource, namespace)
        fault = StallFault(self._next_id("stall"), seconds=seconds, target=target)
        for resource_store in self.registry.stores_of(target.group, target.resource):
            fault.watchers.extend(resource_store.cacher.watchers_in(target.namespace))
        for w in fault.watchers:
            w.stall()
        fault.fired = len(fault.watchers)
        fault.timer = asyncio.get_running_loop().call_later(seconds, self._end_stall, fault)
        self.totals["stall"] += fault.fired
        self._faults[fault.id] = fault
        log.info("fault %s: %d watches %s stalled for %gs", fault.id, fault.fired, _scope(target), seconds)
        return fault

    def set(self, *, bookmark_interval: float | None = None, progress_interval: float | None = None,
            watch_cache_min_events: int | None = None, watch_cache_max_events: int | None = None,
            max_watch_timeout: float | None = None) -> SettingFault:
        """Change run-time knobs (the ones given); clearing the returned fault restores them."""
        given = {"bookmark_interval": bookmark_interval, "progress_interval": progress_interval,
                 "watch_cache_min_events": watch_cache_min_events, "watch_cache_max_events": watch_cache_max_events,
                 "max_watch_timeout": max_watch_timeout}
        values = {name: value for name, value in given.items() if value is not None}
        if not values:
            raise ValueError(f"give at least one of {', '.join(SETTINGS)}")
        for name, value in values.items():
            check, description = SETTINGS[name]
            if isinstance(value, bool) or not check(value):
                raise ValueError(f"{name} must be {description.split(', ', 1)[1]}")
        fault = SettingFault(self._next_id("set"), values=values)
        self._faults[fault.id] = fault
        self._apply_settings()
        log.info("fault %s: set %s", fault.id, ", ".join(f"{k}={v:g}" for k, v in values.items()))
        return fault

    def apply(self, spec: Mapping[str, object]) -> Any:
        """Do what a flat spec says (``parse_spec``): the fault added, or for an action the
        number of watches it closed. ``etcd-*`` types go to the etcd server's engine
        (``fakeapi.etcd.faults``; an action answers a dict)."""
        if str(spec.get("type", "")).startswith("etcd-"):
            if self.etcd is None:
                raise ValueError("etcd faults need the store served over gRPC (--etcd-listen-client-urls)")
            return self.etcd.apply(spec)
        kind, kwargs = parse_spec(spec)
        return getattr(self, _METHODS[kind])(**kwargs)  # type: ignore[no-any-return]

    def clear(self, fault_id: str | None = None) -> int:
        """Clear one fault (KeyError if there is no such id) or, with None, all of them; a
        stall ends at once, settings return to what they were at start. Returns how many."""
        if self.etcd is not None and (fault_id is None or self.etcd.owns(fault_id)):
            cleared = self.etcd.clear(fault_id)
            if fault_id is not None:
                return cleared
        else:
            cleared = 0
        ids = list(self._faults) if fault_id is None else [fault_id]
        faults = [self._faults.pop(i) for i in ids]
        for fault in faults:
            if isinstance(fault, StallFault):
                fault.end()
            fault.active = False
            log.info("fault %s cleared (fired %d times)", fault.id, fault.fired)
        self.request_faults = [f for f in self.request_faults if f.active]
        if any(isinstance(f, SettingFault) for f in faults):
            self._apply_settings()
        return cleared + len(faults)

    # ----------------------------------------------------------------- reading

    def settings(self) -> dict[str, float]:
        """The knobs in force: the latest active setting of each, else its startup value."""
        values = dict(self._startup_settings)
        for fault in self._faults.values():
            if isinstance(fault, SettingFault):
                values.update(fault.values)
        return values

    def snapshot(self) -> dict[str, Any]:
        """Faults with their counters, the knobs in force and the totals, as JSON-ready data
        with camelCase keys (what ``GET /fakeapi/v1/faults`` returns)."""
        etcd_faults = self.etcd.faults() if self.etcd is not None else []
        etcd_totals = self.etcd.totals if self.etcd is not None else {}
        return {
            "faults": [f.to_dict() for f in self._faults.values()] + etcd_faults,
            "settings": _camel_keys(self.settings()),
            "fired": {**self.totals, **etcd_totals},
        }

    # ----------------------------------------------------------------- the request path

    def effect(self, verb: str, group: str, resource: str, namespace: str | None) -> RequestEffect:
        """What the active request faults do to one request (counted as fired); faults used up
        by it stop being consulted."""
        effect = RequestEffect()
        spent = False
        for fault in self.request_faults:
            if fault.wants(effect) and fault.take(verb, group, resource, namespace):
                fault.act(effect)
                self.totals[fault.type] += 1
                if not fault.active:
                    spent = True
                    log.info("fault %s used up after %d requests", fault.id, fault.fired)
        if spent:
            self.request_faults = [f for f in self.request_faults if f.active]
        return effect

    # ----------------------------------------------------------------- internals

    def _next_id(self, kind: str) -> str:
        return f"{kind}-{next(self._ids)}"

    def _add_request_fault(self, fault: RequestFault) -> Any:
        self._faults[fault.id] = fault
        self.request_faults = [*self.request_faults, fault]  # a new list: never mutated mid-iteration
        log.info("fault %s: %s", fault.id, _describe_text(fault))
        return fault

    def _end_stall(self, fault: StallFault) -> None:
        fault.end()
        log.info("fault %s: stall ended, %d watches delivering", fault.id, fault.fired)

    def _apply_settings(self) -> None:
        values = self.settings()
        lower = int(values["watch_cache_min_events"])
        upper = max(int(values["watch_cache_max_events"]), lower)
        for resource_store in self.registry.stores():
            cacher = resource_store.cacher
            cacher.set_bounds(lower, upper)
            cacher.set_bookmark_interval(values["bookmark_interval"])
            cacher.set_max_watch_timeout(values["max_watch_timeout"])
        if values["progress_interval"] != self.timers.progress_interval:
            self.timers.set_progress_interval(values["progress_interval"])


# --------------------------------------------------------------------- the flat spec

_METHODS = {"error": "inject_error", "latency": "inject_latency", "stall": "stall_watches",
            "close-watches": "close_watches", "restart": "restart", "set": "set"}


def _pair(value: object) -> tuple[float, float]:
    """``[a, b]`` in JSON, ``a:b`` on the command line."""
    if isinstance(value, str):
        value = value.split(":")
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError("must be two numbers: [a, b] (a:b on the command line)")
    return _number(value[0]), _number(value[1])


_COERCE: dict[str, Callable[[object], object]] = {
    "verb": _text, "group": _text, "resource": _text, "namespace": _text, "message": _text,
    "code": _integer, "count": _integer, "seed": _integer, "retry_after": _integer,
    "watch_cache_min_events": _integer, "watch_cache_max_events": _integer,
    "rate": _number, "seconds": _number, "per_item": _number, "bookmark_interval": _number,
    "progress_interval": _number, "max_watch_timeout": _number,
    "uniform": _pair, "normal": _pair, "lognormal": _pair,
}
_FIELDS = {
    "error": ("verb", "group", "resource", "namespace", "code", "count", "rate", "seed", "retry_after", "message"),
    "latency": ("verb", "group", "resource", "namespace", "seconds", "uniform", "normal", "lognormal", "per_item",
                "count", "rate", "seed"),
    "stall": ("seconds", "group", "resource", "namespace"),
    "close-watches": ("group", "resource", "namespace"),
    "restart": (),
    "set": tuple(SETTINGS),
}


def parse_spec(spec: Mapping[str, object]) -> tuple[str, dict[str, Any]]:
    """A flat spec — ``type`` plus the keyword arguments of that type's method, keys in
    camelCase or snake_case, values typed (JSON) or text (the CLI) — as (type, kwargs).
    ValueError says what is wrong."""
    kind, kwargs = parse_fields(spec, _FIELDS, _COERCE, _snake, _camel)
    if kind == "error" and "code" not in kwargs:
        raise ValueError("an error fault needs a code")
    if kind == "stall" and "seconds" not in kwargs:
        raise ValueError("a stall needs seconds")
    return kind, kwargs


def check_startup_spec(spec: Mapping[str, object]) -> None:
    """Raise ValueError unless ``spec`` is an error or latency fault the server can start with
    (built and thrown away, so every check runs before the server does)."""
    kind, kwargs = parse_spec(spec)
    fault_class = {"error": ErrorFault, "latency": LatencyFault}.get(kind)
    if fault_class is None:
        raise ValueError("only error and latency faults can be given at start")
    target = Target.of(kwargs.pop("group", None), kwargs.pop("resource", None), kwargs.pop("namespace", None))
    fault_class("check", target=target, **kwargs)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _camel_keys(values: Mapping[str, Any]) -> dict[str, Any]:
    return {_camel(k): v for k, v in values.items()}


def _scope(target: Target) -> str:
    parts = [f"{k}={v}" for k, v in target.describe().items() if v is not None]
    return f"({', '.join(parts)})" if parts else "(all)"


def _describe_text(fault: Fault) -> str:
    return ", ".join(f"{k}={v}" for k, v in fault.describe().items()
                     if v is not None and k not in ("id", "active", "fired", "matched", "injected_seconds"))
