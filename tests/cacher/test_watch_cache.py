"""The watch cache's states at past revisions (``WatchCache.objects_at``), checked against a
model that records the whole state after every write: pages read at one revision while writes go
on, revisions the cache keeps and those it has dropped (evicted events, compaction, a relist)."""

from __future__ import annotations

import random

import pytest

from fakeapi.cacher.watch_cache import PAST_STATES_KEPT, CachedObject, WatchCache

KEYS = [f"/registry/pods/ns-{n % 3}/pod-{n:02d}" for n in range(24)]


class Model:
    """A watch cache and the state after each of its revisions."""

    def __init__(self, cache: WatchCache, rv: int = 10) -> None:
        self.cache = cache
        self.rv = rv
        self.current: dict[str, bytes] = {}
        cache.replace([], rv)
        self.states: dict[int, dict[str, bytes]] = {rv: {}}

    def write(self, key: str, deleted: bool = False) -> None:
        self.rv += 1
        if deleted:
            self.current.pop(key, None)
            self.cache.apply(key, None, self.rv)
        else:
            self.current[key] = raw = f"{key}@{self.rv}".encode()
            self.cache.apply(key, CachedObject(key, "", key, self.rv, raw, {}, {}), self.rv)
        self.states[self.rv] = dict(self.current)

    def random_write(self, rng: random.Random) -> None:
        key = rng.choice(KEYS)
        self.write(key, deleted=key in self.current and rng.random() < 0.3)

    def expected(self, rv: int, start: str, end: str) -> list[bytes]:
        state = self.states[max(r for r in self.states if r <= rv)]
        return [state[k] for k in sorted(state) if start <= k < end]

    def check(self, rv: int, start: str, end: str) -> None:
        objects, count = self.cache.objects_at(rv, start, end)
        listed = [o.raw for o in objects]
        assert listed == self.expected(rv, start, end)
        assert count == len(listed)


def _range(rng: random.Random) -> tuple[str, str]:
    start, end = sorted(rng.sample([*KEYS, "/registry/pods/", "/registry/pods0"], 2))
    return start, end


@pytest.mark.parametrize("seed", range(20))
def test_pages_at_a_past_revision_while_writes_go_on(seed: int) -> None:
    """A list walks a past revision page by page (each page from the key after the last one),
    with writes between pages: every page shows the state at that revision, counted exactly."""
    rng = random.Random(seed)
    model = Model(WatchCache(lower_bound=10_000))
    for _ in range(60):
        model.random_write(rng)
    for _ in range(4):
        rv = rng.randint(model.cache.snapshot_floor, model.rv)
        start, end = "/registry/pods/", "/registry/pods0"
        while True:
            model.check(rv, start, end)
            page = model.expected(rv, start, end)[:3]
            if len(page) < 3:
                break
            start = page[-1].decode().partition("@")[0] + "\x00"
            for _ in range(rng.randint(0, 6)):
                model.random_write(rng)


@pytest.mark.parametrize("seed", range(10))
def test_many_revisions_read_in_turn(seed: int) -> None:
    """More revisions read in turn than the cache keeps states for: those dropped are rebuilt."""
    rng = random.Random(seed)
    model = Model(WatchCache(lower_bound=10_000))
    revisions = []
    for _ in range(PAST_STATES_KEPT * 3):
        for _ in range(rng.randint(1, 5)):
            model.random_write(rng)
        revisions.append(model.rv)
    for _ in range(5):
        for rv in rng.sample(revisions, len(revisions)):
            model.check(rv, *_range(rng))
        model.random_write(rng)


def test_a_key_deleted_and_recreated_after_the_revision() -> None:
    model = Model(WatchCache(lower_bound=100))
    a, b, c = KEYS[:3]
    model.write(a)
    model.write(b)
    rv = model.rv
    model.check(rv, "", "~")
    model.write(b, deleted=True)  # gone now, there at rv
    model.write(c)  # there now, not at rv
    model.check(rv, "", "~")
    model.write(c, deleted=True)  # neither now nor at rv
    model.write(b)  # back, changed since rv
    model.write(a, deleted=True)
    model.check(rv, "", "~")
    model.check(rv, b, "~")


def test_evicted_events_end_the_past_revisions() -> None:
    """Once the buffer is full its oldest event bounds the revisions a list can be served at
    (kube drops the snapshots before it then)."""
    model = Model(WatchCache(lower_bound=4, upper_bound=4, fresh_window=0.0))
    first = model.rv
    for key in KEYS[:3]:
        model.write(key)
    assert model.cache.can_list_at(first)
    model.check(first, "", "~")
    model.write(KEYS[3])  # full
    assert not model.cache.can_list_at(first)
    assert model.cache.can_list_at(first + 1)
    model.check(first + 1, "", "~")
    model.write(KEYS[4])  # evicts the first event
    assert not model.cache.can_list_at(first + 1)
    model.check(first + 2, KEYS[1], "~")


def test_shrinking_the_buffer_ends_the_past_revisions_it_drops() -> None:
    model = Model(WatchCache(lower_bound=8, upper_bound=8))
    first = model.rv
    for key in KEYS[:6]:
        model.write(key)
    model.check(first, "", "~")
    model.cache.set_bounds(2, 2)
    assert not model.cache.can_list_at(model.rv - 2)
    assert model.cache.can_list_at(model.rv - 1)
    model.check(model.rv - 1, "", "~")


def test_compaction_ends_the_revisions_before_it() -> None:
    model = Model(WatchCache(lower_bound=100))
    for key in KEYS[:6]:
        model.write(key)
    past = model.rv - 3
    model.check(past - 1, "", "~")
    model.cache.compact(past)
    assert not model.cache.can_list_at(past - 1)
    assert model.cache.can_list_at(past)
    model.check(past, "", "~")


def test_a_relist_starts_the_history_over() -> None:
    model = Model(WatchCache(lower_bound=100))
    for key in KEYS[:6]:
        model.write(key)
    model.check(model.rv - 2, "", "~")
    objects = [CachedObject(k, "", k, model.rv, raw, {}, {}) for k, raw in model.current.items()]
    model.cache.replace(objects, model.rv + 5)
    assert not model.cache.can_list_at(model.rv)
    model.rv += 5
    model.states = {model.rv: dict(model.current)}
    model.write(KEYS[0], deleted=True)
    model.write(KEYS[10])
    model.check(model.rv - 2, "", "~")
