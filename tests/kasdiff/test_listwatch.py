"""LIST and WATCH semantics against the real kube-apiserver: paging and continue tokens, the
resourceVersion rules (RV="", "0", NotOlderThan, Exact, too large), 410s after compaction for
exact reads and continue tokens, watches from a resourceVersion, WatchList's initial events and
bookmark, bookmarks, selectors (and their 400s; the selective LISTs fakeapi's selector index
serves), and the other representations a client may ask for: YAML, Table, PartialObjectMetadata.

Each test writes the same objects on both servers, in its own namespace, then sends the same
reads; ``differ`` normalises what is each server's own (uids, times, resourceVersion numbers)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from differ import Pair, check

CONFIGMAPS = "/api/v1/namespaces/{ns}/configmaps"


class Both:
    """Writes sent to both servers, and the reads compared."""

    def __init__(self, pair: Pair, namespace: str) -> None:
        self.pair = pair
        self.case = self.namespace = namespace
        self.start = len(pair.outcomes)

    def write(self, method: str, path: str, body: Any = None, content_type: str = "application/json",
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The same write on both servers; returns each server's answer (both must succeed)."""
        answers = []
        for client in (self.pair.fake, self.pair.real):
            response = client.request(method, path, content=None if body is None else json.dumps(body),
                                      headers={"Content-Type": content_type})
            assert response.status_code < 300, f"{method} {path}: {response.status_code} {response.text}"
            answers.append(response.json())
        return answers[0], answers[1]

    def read(self, verb: str, path: str | tuple[str, str], **headers: str) -> Any:
        return self.pair.send(self.case, "ConfigMap", verb, "GET", path, headers=headers or None)

    def done(self) -> None:
        check(self.pair, self.start)


@pytest.fixture
def both(pair: Pair, request: pytest.FixtureRequest) -> Iterator[Both]:
    """A fresh namespace on both servers, named after the test."""
    namespace = request.node.name.replace("_", "-")[:50].strip("-")
    both = Both(pair, namespace)
    both.write("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    yield both
    for client in (pair.fake, pair.real):
        client.delete(f"/api/v1/namespaces/{namespace}")


def _configmaps(both: Both, count: int, labelled: int = 0) -> str:
    path = CONFIGMAPS.format(ns=both.namespace)
    for index in range(count):
        labels = {"tier": "a" if index < labelled else "b", "index": str(index)}
        both.write("POST", path, {"metadata": {"name": f"cm-{index:02d}", "labels": labels}, "data": {"i": str(index)}})
    return path


def _rvs(both: Both, path: str) -> tuple[str, str]:
    """Each server's current resourceVersion for the collection (a consistent LIST)."""
    fake = both.pair.fake.get(path, params={"limit": 1}).json()["metadata"]["resourceVersion"]
    real = both.pair.real.get(path, params={"limit": 1}).json()["metadata"]["resourceVersion"]
    return fake, real


def test_paging_continue_and_remaining(both: Both) -> None:
    path = _configmaps(both, 7, labelled=4)
    first = both.read("list-limit", f"{path}?limit=3")
    tokens = (first.fake.raw["metadata"]["continue"], first.real.raw["metadata"]["continue"])
    both.read("list-continue", tuple(f"{path}?limit=3&continue={t}" for t in tokens))  # type: ignore[arg-type]
    both.read("list-limit-selector", f"{path}?limit=2&labelSelector=tier%3Da")
    both.read("list-limit-0", f"{path}?limit=0")
    both.read("list-rv0-limit", f"{path}?limit=2&resourceVersion=0")
    both.read("list-bad-continue", f"{path}?limit=2&continue=bogus")
    both.read("list-continue-and-rv", tuple(f"{path}?limit=3&continue={t}&resourceVersion=1" for t in tokens))  # type: ignore[arg-type]
    both.done()


def test_resource_version_rules(both: Both) -> None:
    path = _configmaps(both, 3)
    rvs = _rvs(both, path)
    both.read("list-notolderthan", tuple(f"{path}?resourceVersion={rv}&resourceVersionMatch=NotOlderThan" for rv in rvs))  # type: ignore[arg-type]
    both.read("list-exact", tuple(f"{path}?resourceVersion={rv}&resourceVersionMatch=Exact" for rv in rvs))  # type: ignore[arg-type]
    both.read("list-exact-limit", tuple(f"{path}?resourceVersion={rv}&resourceVersionMatch=Exact&limit=1" for rv in rvs))  # type: ignore[arg-type]
    both.read("list-match-without-rv", f"{path}?resourceVersionMatch=Exact")
    both.read("list-match-bad", f"{path}?resourceVersion=1&resourceVersionMatch=Newest")
    both.read("list-rv-not-a-number", f"{path}?resourceVersion=abc")
    both.read("get-rv0", f"{path}/cm-00?resourceVersion=0")
    both.done()


def test_watch_from_resource_version(both: Both) -> None:
    path = _configmaps(both, 2)
    rvs = _rvs(both, path)
    both.write("PATCH", f"{path}/cm-00", {"data": {"i": "changed"}}, "application/merge-patch+json")
    both.write("DELETE", f"{path}/cm-01")
    both.write("POST", path, {"metadata": {"name": "cm-new"}})
    # Everything after the LIST's revision, replayed from each server's history, then the stream
    # ends on the timeout.
    both.read("watch-from-rv", tuple(f"{path}?watch=1&resourceVersion={rv}&timeoutSeconds=1" for rv in rvs))  # type: ignore[arg-type]
    both.read("watch-from-rv-selector", tuple(
        f"{path}?watch=1&resourceVersion={rv}&timeoutSeconds=1&fieldSelector=metadata.name%3Dcm-00" for rv in rvs))  # type: ignore[arg-type]
    both.read("watch-rv0", f"{path}?watch=1&resourceVersion=0&timeoutSeconds=1")
    both.read("watch-list", f"{path}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                            f"&allowWatchBookmarks=true&timeoutSeconds=1")
    both.read("watch-list-without-bookmarks", f"{path}?watch=1&sendInitialEvents=true"
                                              f"&resourceVersionMatch=NotOlderThan&timeoutSeconds=1")
    both.read("watch-bad-send-initial", f"{path}?watch=1&sendInitialEvents=true&timeoutSeconds=1")
    both.done()


def test_past_revisions_are_served_from_the_cache(both: Both) -> None:
    """kube 1.35 answers an Exact list, a list with a resourceVersion and a limit, and a continue
    token at a past revision from its watch cache's snapshots (``ListFromCacheSnapshot``): the
    objects as they were, whatever changed since."""
    path = _configmaps(both, 3)
    old = _rvs(both, path)
    first = both.read("list-first-page", f"{path}?limit=1")
    tokens = (first.fake.raw["metadata"]["continue"], first.real.raw["metadata"]["continue"])
    for index in range(3):
        both.write("PATCH", f"{path}/cm-0{index}", {"data": {"i": "new"}}, "application/merge-patch+json")
    both.write("DELETE", f"{path}/cm-01")
    both.write("POST", path, {"metadata": {"name": "cm-00a"}})
    both.read("list-exact-past", tuple(f"{path}?resourceVersion={rv}&resourceVersionMatch=Exact" for rv in old))  # type: ignore[arg-type]
    both.read("list-rv-limit-past", tuple(f"{path}?resourceVersion={rv}&limit=2" for rv in old))  # type: ignore[arg-type]
    both.read("list-continue-past", tuple(f"{path}?limit=1&continue={t}" for t in tokens))  # type: ignore[arg-type]
    both.read("list-now", f"{path}?limit=2")
    both.done()


def test_selectors_and_their_errors(both: Both) -> None:
    path = _configmaps(both, 4, labelled=2)
    for verb, query in (
        ("selector-in", "labelSelector=tier%20in%20(a)"),
        ("selector-notin", "labelSelector=tier%20notin%20(a),index"),
        ("selector-exists-not", "labelSelector=!missing"),
        ("selector-bad", "labelSelector=tier%20in%20a"),
        ("field-name", "fieldSelector=metadata.name%3Dcm-01"),
        ("field-not-equal", "fieldSelector=metadata.name!%3Dcm-01"),
        ("field-unsupported", "fieldSelector=data.i%3D1"),
        ("field-bad", "fieldSelector=metadata.name"),
    ):
        both.read(verb, f"{path}?{query}")
    both.done()


def test_selective_lists_as_the_selector_index_serves_them(both: Both) -> None:
    """The selectors fakeapi's watch cache answers from its selector index (equality, in,
    exists, !key, field =) and with it those it narrows but must still match (!=, notin), at
    RV=0 and RV="", whole and in pages of 2: the same pods, continue tokens and (no)
    remainingItemCount as kube's cacher, which filters every object."""
    path = f"/api/v1/namespaces/{both.namespace}/pods"
    for index in range(9):
        labels = {"app": "web" if index % 3 else "db", "shard": str(index % 4)}
        if index % 2:
            labels["canary"] = "true"
        both.write("POST", path, {"metadata": {"name": f"pod-{index}", "labels": labels},
                                  "spec": {"nodeName": f"node-{index % 2}", "containers": [{"name": "c", "image": "i"}]}})
    selectors = (
        "labelSelector=app%3Dweb", "labelSelector=shard%20in%20(1,2)", "labelSelector=canary",
        "labelSelector=!canary", "labelSelector=app%3Dweb,!canary", "labelSelector=app%3Dweb,shard!%3D1",
        "labelSelector=shard%20notin%20(0),canary", "labelSelector=app%3Dnone", "fieldSelector=spec.nodeName%3Dnode-1",
        "fieldSelector=spec.nodeName%3Dnode-1&labelSelector=app%3Ddb", "fieldSelector=spec.nodeName%3D",
    )
    for index, query in enumerate(selectors):
        for rv in ("0", ""):
            both.read(f"selective-{index}-rv{rv or 'consistent'}", f"{path}?{query}&resourceVersion={rv}")
        first = both.read(f"selective-{index}-page", f"{path}?{query}&limit=2")
        tokens = (first.fake.raw["metadata"].get("continue"), first.real.raw["metadata"].get("continue"))
        if all(tokens):
            both.read(f"selective-{index}-next", tuple(f"{path}?{query}&limit=2&continue={t}" for t in tokens))  # type: ignore[arg-type]
    both.done()


def test_representations(both: Both) -> None:
    path = _configmaps(both, 2)
    both.read("get-yaml", f"{path}/cm-00", accept="application/yaml")
    both.read("list-yaml", path, accept="application/yaml")
    table = "application/json;as=Table;v=v1;g=meta.k8s.io"
    both.read("get-table", f"{path}/cm-00", accept=table)
    both.read("list-table", path, accept=table)
    both.read("list-table-include-object", f"{path}?includeObject=Object", accept=table)
    both.read("list-table-include-bad", f"{path}?includeObject=Everything", accept=table)
    both.read("get-partial", f"{path}/cm-00", accept="application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io")
    both.read("list-partial", path, accept="application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io")
    both.read("list-partial-wrong", path, accept="application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io")
    both.read("not-acceptable", path, accept="text/plain")
    both.done()
