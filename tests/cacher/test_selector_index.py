"""The watch cache's label index (``fakeapi.cacher.label_index``): the keys it picks for a label
selector, against every object matched one by one, while objects are added, relabelled and
deleted and the cache is refilled; and LIST pages through the API, with a selector the index
narrows and one it cannot, against the same pages read without the index."""

from __future__ import annotations

import random

import pytest

from fakeapi.cacher.watch_cache import CachedObject, WatchCache
from fakeapi.machinery.selectors import parse_label_selector
from fakeapi.testing import FakeAPI

KEYS = [f"/registry/pods/ns-{n % 3}/pod-{n:02d}" for n in range(40)]
SELECTORS = [
    "app=web", "app==db", "app in (web,db)", "app", "!app", "app=web,tier=front", "app in (web),!tier",
    "tier notin (back)", "app!=web", "app=web,tier notin (front)", "app=missing", "app,tier", "!app,!tier",
    "app in (web,db),tier in (front,back),zone=a",
]
#: Those whose every requirement is a label to have (with one of some values) or to lack: the
#: index picks exactly the objects they select.
NARROWED = {text for text in SELECTORS if "!=" not in text and "notin" not in text}


def _labels(rng: random.Random) -> dict[str, str]:
    labels = {}
    for key, values in (("app", ["web", "db", "cache"]), ("tier", ["front", "back"]), ("zone", ["a", "b"])):
        if rng.random() < 0.7:
            labels[key] = rng.choice(values)
    return labels


def _expected(cache: WatchCache, text: str, start: str, end: str) -> list[str]:
    selector = parse_label_selector(text)
    return [key for key in cache.keys.irange(start, end, inclusive=(True, False))
            if selector.matches(cache.objects[key].labels)]


@pytest.mark.parametrize("seed", range(5))
def test_the_index_picks_the_selected_objects_as_objects_change(seed: int) -> None:
    rng = random.Random(seed)
    cache = WatchCache()
    cache.replace([], 1)
    rv = 1
    for step in range(600):
        rv += 1
        key = rng.choice(KEYS)
        if key in cache.objects and rng.random() < 0.25:
            cache.apply(key, None, rv)
        else:
            cache.apply(key, CachedObject(key, "", key, rv, b"{}", _labels(rng), {}), rv)
        if step == 300:  # a refill (a relist) starts the index over
            cache.replace(list(cache.objects.values()), rv)
        if step % 7:
            continue
        text = rng.choice(SELECTORS)
        start, end = sorted(rng.sample([*KEYS, "/registry/pods/", "/registry/pods0"], 2))
        selected = cache.selected_keys(parse_label_selector(text), start, end)
        expected = _expected(cache, text, start, end)
        if text in NARROWED:
            assert selected == expected, (text, start, end)
        elif selected is not None:
            assert set(expected) <= set(selected), (text, start, end)


def test_a_selector_naming_no_label_to_have_or_lack_is_not_narrowed() -> None:
    cache = WatchCache()
    cache.replace([CachedObject(key, "", key, 2, b"{}", {"app": "web"}, {}) for key in KEYS], 2)
    assert cache.selected_keys(parse_label_selector("app!=web"), "", "\xff") is None
    assert cache.selected_keys(parse_label_selector("app notin (db)"), "", "\xff") is None
    assert cache.selected_keys(parse_label_selector("app=web,tier!=x"), "", "\xff") == sorted(KEYS)


def test_selected_pages_are_those_of_every_object_filtered(fakeapi: FakeAPI) -> None:
    """Pages of 3 by selectors the index narrows and one it does not, at RV="" and RV=0: the
    objects are those the selector matches among every pod, in key order, and a page that took
    its third object carries a continue token while any pod (selected or not) follows it."""
    http = fakeapi.http
    rng = random.Random(7)
    for namespace in ("a", "b"):
        assert http.post("/api/v1/namespaces", json={"metadata": {"name": namespace}}).status_code == 201
        for n in range(15):
            pod = {"metadata": {"name": f"pod-{n:02d}", "labels": _labels(rng)},
                   "spec": {"containers": [{"name": "c", "image": "i"}]}}
            assert http.post(f"/api/v1/namespaces/{namespace}/pods", json=pod).status_code == 201

    def pages(path: str, selector: str, rv: str) -> list[list[str]]:
        read, token = [], ""
        while True:
            params = {"labelSelector": selector, "limit": "3", "resourceVersion": rv, "continue": token}
            answer = http.get(path, params={k: v for k, v in params.items() if v}).json()
            assert "remainingItemCount" not in answer["metadata"]
            read.append([item["metadata"]["name"] for item in answer["items"]])
            token = answer["metadata"].get("continue", "")
            if not token:
                return read

    def expected(path: str, selector: str, rv: str) -> list[list[str]]:
        every = http.get(path).json()["items"]
        matches = parse_label_selector(selector).matches
        if rv == "0":  # kube reads RV=0 lists from its cache whole, whatever the limit
            return [[pod["metadata"]["name"] for pod in every if matches(pod["metadata"].get("labels") or {})]]
        read: list[list[str]] = [[]]
        for position, pod in enumerate(every):
            if matches(pod["metadata"].get("labels") or {}):
                read[-1].append(pod["metadata"]["name"])
                if len(read[-1]) == 3 and position + 1 < len(every):
                    read.append([])
        return read

    for path in ("/api/v1/pods", "/api/v1/namespaces/b/pods"):
        for selector in ("app=web", "app in (web,db),!tier", "!zone", "tier,zone=a", "app!=db"):
            for rv in ("", "0"):
                assert pages(path, selector, rv) == expected(path, selector, rv), (path, selector, rv)
