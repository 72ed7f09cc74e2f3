"""The watch cache's selector index (``fakeapi.cacher.selector_index``): the keys it picks for
label and field selectors, against every object matched one by one, while objects are added,
changed and deleted and the cache is refilled; and LIST pages through the API, with selectors
the index narrows and ones it cannot, against every object filtered."""

from __future__ import annotations

import random

import pytest

from fakeapi.cacher.selector_index import answers_exactly
from fakeapi.cacher.watch_cache import CachedObject, WatchCache
from fakeapi.machinery.selectors import FieldSelector, parse_label_selector
from fakeapi.testing import FakeAPI

KEYS = [f"/registry/pods/ns-{n % 3}/pod-{n:02d}" for n in range(40)]
SELECTORS = [
    "app=web", "app==db", "app in (web,db)", "app", "!app", "app=web,tier=front", "app in (web),!tier",
    "tier notin (back)", "app!=web", "app=web,tier notin (front)", "app=missing", "app,tier", "!app,!tier",
    "app in (web,db),tier in (front,back),zone=a",
]
FIELD_SELECTORS = ["", "spec.nodeName=n1", "spec.nodeName=", "spec.nodeName!=n1", "spec.nodeName=n2,spec.nodeName!=n1"]
#: Those whose every requirement is a label or field value to have, or a label to lack: the
#: index picks exactly the objects they select.
NARROWED = {text for text in SELECTORS + FIELD_SELECTORS if "!=" not in text and "notin" not in text}


def _labels(rng: random.Random) -> dict[str, str]:
    labels = {}
    for key, values in (("app", ["web", "db", "cache"]), ("tier", ["front", "back"]), ("zone", ["a", "b"])):
        if rng.random() < 0.7:
            labels[key] = rng.choice(values)
    return labels


def _fields(rng: random.Random) -> dict[str, str]:
    """A field set with a node's name or none (which a selector reads as "", as kube does)."""
    node = rng.choice(["n1", "n2", "n3", ""])
    return {"spec.nodeName": node} if node else {}


def _expected(cache: WatchCache, text: str, field_text: str, start: str, end: str) -> list[str]:
    labels, fields = parse_label_selector(text), FieldSelector.parse(field_text)
    return [key for key in cache.keys.irange(start, end, inclusive=(True, False))
            if labels.matches(cache.objects[key].labels) and fields.matches(cache.objects[key].fields)]


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
            cache.apply(key, CachedObject(key, "", key, rv, b"{}", _labels(rng), _fields(rng)), rv)
        if step == 300:  # a refill (a relist) starts the index over
            cache.replace(list(cache.objects.values()), rv)
        if step % 7:
            continue
        text, field_text = rng.choice(SELECTORS), rng.choice(FIELD_SELECTORS)
        start, end = sorted(rng.sample([*KEYS, "/registry/pods/", "/registry/pods0"], 2))
        selected = cache.selected_keys(parse_label_selector(text), FieldSelector.parse(field_text), start, end)
        expected = _expected(cache, text, field_text, start, end)
        if text in NARROWED and field_text in NARROWED:
            assert selected == expected, (text, field_text, start, end)
        elif selected is not None:
            assert set(expected) <= set(selected), (text, field_text, start, end)


@pytest.mark.parametrize("field_text", FIELD_SELECTORS)
@pytest.mark.parametrize("text", SELECTORS)
def test_the_index_says_which_selectors_it_answers_exactly(text: str, field_text: str) -> None:
    """Those whose objects a LIST takes without matching them again: the NARROWED ones, whose
    picks the test above finds exact."""
    exact = answers_exactly(parse_label_selector(text), FieldSelector.parse(field_text))
    assert exact == (text in NARROWED and field_text in NARROWED)


def test_selectors_naming_no_value_to_have_are_not_narrowed() -> None:
    cache = WatchCache()
    cache.replace([CachedObject(key, "", key, 2, b"{}", {"app": "web"}, {"spec.nodeName": "n1"}) for key in KEYS], 2)
    every = FieldSelector()
    assert cache.selected_keys(parse_label_selector("app!=web"), every, "", "\xff") is None
    assert cache.selected_keys(parse_label_selector("app notin (db)"), every, "", "\xff") is None
    assert cache.selected_keys(parse_label_selector(""), FieldSelector.parse("spec.nodeName!=n2"), "", "\xff") is None
    assert cache.selected_keys(parse_label_selector("app=web,tier!=x"), every, "", "\xff") == sorted(KEYS)
    assert cache.selected_keys(parse_label_selector(""), FieldSelector.parse("spec.nodeName=n1"), "", "\xff") == sorted(KEYS)


def test_selected_pages_are_those_of_every_object_filtered(fakeapi: FakeAPI) -> None:
    """Pages of 3 by selectors the index narrows and ones it does not, at RV="" and RV=0: the
    objects are those the selectors match among every pod, in key order, and a page that took
    its third object carries a continue token while any pod (selected or not) follows it."""
    http = fakeapi.http
    rng = random.Random(7)
    for namespace in ("a", "b"):
        assert http.post("/api/v1/namespaces", json={"metadata": {"name": namespace}}).status_code == 201
        for n in range(15):
            node = _fields(rng).get("spec.nodeName")
            pod = {"metadata": {"name": f"pod-{n:02d}", "labels": _labels(rng)},
                   "spec": {"containers": [{"name": "c", "image": "i"}], **({"nodeName": node} if node else {})}}
            assert http.post(f"/api/v1/namespaces/{namespace}/pods", json=pod).status_code == 201

    def pages(path: str, labels: str, fields: str, rv: str) -> list[list[str]]:
        read, token = [], ""
        while True:
            params = {"labelSelector": labels, "fieldSelector": fields, "limit": "3", "resourceVersion": rv,
                      "continue": token}
            answer = http.get(path, params={k: v for k, v in params.items() if v}).json()
            assert "remainingItemCount" not in answer["metadata"]
            read.append([item["metadata"]["name"] for item in answer["items"]])
            token = answer["metadata"].get("continue", "")
            if not token:
                return read

    def expected(path: str, labels: str, fields: str, rv: str) -> list[list[str]]:
        every = http.get(path).json()["items"]
        label_selector, field_selector = parse_label_selector(labels), FieldSelector.parse(fields)

        def selected(pod: dict) -> bool:
            return (label_selector.matches(pod["metadata"].get("labels") or {})
                    and field_selector.matches({"spec.nodeName": pod["spec"].get("nodeName", "")}))

        if rv == "0":  # kube reads RV=0 lists from its cache whole, whatever the limit
            return [[pod["metadata"]["name"] for pod in every if selected(pod)]]
        read: list[list[str]] = [[]]
        for position, pod in enumerate(every):
            if selected(pod):
                read[-1].append(pod["metadata"]["name"])
                if len(read[-1]) == 3 and position + 1 < len(every):
                    read.append([])
        return read

    for path in ("/api/v1/pods", "/api/v1/namespaces/b/pods"):
        for labels, fields in (("app=web", ""), ("app in (web,db),!tier", ""), ("!zone", ""), ("tier,zone=a", ""),
                               ("app!=db", ""), ("", "spec.nodeName=n1"), ("", "spec.nodeName="),
                               ("app=web", "spec.nodeName!=n2"), ("app!=web", "spec.nodeName=n3")):
            for rv in ("", "0"):
                assert pages(path, labels, fields, rv) == expected(path, labels, fields, rv), (path, labels, fields, rv)
