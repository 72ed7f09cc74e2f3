"""``/metrics`` after real traffic: kube-apiserver's names, labels and bucket edges, and counts
that match the requests made (exact for the namespace and resources only this module uses)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from fakeapi.machinery.release import TARGET_RELEASE
from fakeapi.testing import ServerProcess

NS = "metrics-test"
CONFIGMAPS = f"/api/v1/namespaces/{NS}/configmaps"
SECRETS = f"/api/v1/namespaces/{NS}/secrets"

REQUEST_LABELS = {"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}
REQUEST_DURATION_EDGES = ["0.005", "0.025", "0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "1.25", "1.5", "2", "3",
                          "4", "5", "6", "8", "10", "15", "20", "30", "45", "60", "+Inf"]
SLI_EDGES = REQUEST_DURATION_EDGES[2:]
EXPECTED_EDGES = {
    "apiserver_request_duration_seconds": REQUEST_DURATION_EDGES,
    "etcd_request_duration_seconds": REQUEST_DURATION_EDGES,
    "apiserver_request_sli_duration_seconds": SLI_EDGES,
    "apiserver_response_sizes": ["1000", "10000", "100000", "1e+06", "1e+07", "1e+08", "1e+09", "+Inf"],
    "apiserver_watch_events_sizes": ["1024", "2048", "4096", "8192", "16384", "32768", "65536", "131072", "+Inf"],
    "apiserver_watch_list_duration_seconds": ["0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "2", "4", "6", "8", "10",
                                              "15", "20", "30", "45", "60", "+Inf"],
}
FINE_FAMILIES = ("fakeapi_request_duration_seconds", "fakeapi_store_request_duration_seconds",
                 "fakeapi_watch_dispatch_queued_seconds", "fakeapi_watch_dispatch_written_seconds")


class Scrape:
    def __init__(self, text: str) -> None:
        self.families = {f.name: f for f in text_string_to_metric_families(text)}

    def samples(self, name: str, **labels: str) -> list[Sample]:
        family = name.removesuffix("_total").removesuffix("_bucket").removesuffix("_count").removesuffix("_sum")
        return [s for s in self.families[family].samples
                if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]

    def value(self, name: str, **labels: str) -> float:
        found = self.samples(name, **labels)
        assert len(found) == 1, (name, labels, found)
        return found[0].value


def scrape(server: ServerProcess) -> Scrape:
    resp = server.http.get("/metrics")
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/plain")
    return Scrape(resp.text)


def configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


def watch_lines(server: ServerProcess, path: str, params: dict[str, str], during: Callable[[], None],
                count: int) -> list[dict[str, Any]]:
    """Open a watch, run ``during`` once it is registered (its headers arrived), and read
    ``count`` events."""
    events: list[dict[str, Any]] = []
    with server.http.stream("GET", path, params={"watch": "1", **params}) as resp:
        assert resp.status_code == 200
        during()
        buffer = b""
        for chunk in resp.iter_raw():
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            events.extend(orjson.loads(line) for line in lines if line)
            if len(events) >= count:
                break
    return events


def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def traffic(server: ServerProcess, kubectl: Callable[..., str]) -> Iterator[Scrape]:
    http = server.http
    kubectl("create", "namespace", NS)
    for name in ("a", "b"):
        assert http.post(CONFIGMAPS, json=configmap(name)).status_code == 201
    kubectl("apply", "--server-side", "-n", NS, "-f", "-", input=orjson.dumps(configmap("c")).decode())
    assert http.get(f"{CONFIGMAPS}/a").status_code == 200
    assert http.get(f"{CONFIGMAPS}/missing").status_code == 404
    listed = http.get(CONFIGMAPS).json()
    assert len(listed["items"]) == 3

    def writes() -> None:
        assert http.post(CONFIGMAPS, json=configmap("d")).status_code == 201
        patched = http.patch(f"{CONFIGMAPS}/d", content=b'{"data":{"k":"w"}}',
                             headers={"content-type": "application/merge-patch+json"})
        assert patched.status_code == 200
        assert http.delete(f"{CONFIGMAPS}/d").status_code == 200

    events = watch_lines(server, CONFIGMAPS, {"resourceVersion": listed["metadata"]["resourceVersion"],
                                              "timeoutSeconds": "2"}, writes, 3)
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "DELETED"]

    assert http.post(SECRETS, json={"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}).status_code == 201
    # A legacy watch from RV 0 (one synthetic ADDED), then a WatchList (ADDED and the
    # initial-events-end bookmark).
    assert len(watch_lines(server, SECRETS, {"resourceVersion": "0", "timeoutSeconds": "1"}, lambda: None, 1)) == 1
    watch_list = {"sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan", "allowWatchBookmarks": "true",
                  "timeoutSeconds": "1"}
    assert [e["type"] for e in watch_lines(server, SECRETS, watch_list, lambda: None, 2)] == ["ADDED", "BOOKMARK"]

    # Watches are counted when they end (their timeout).
    def watches_ended() -> bool:
        got = scrape(server).samples("apiserver_request_total", verb="WATCH", group="", scope="namespace")
        return sum(s.value for s in got if s.labels["resource"] in ("configmaps", "secrets")) == 3

    wait_for(watches_ended)
    yield scrape(server)


def test_request_counts_match_the_requests_made(traffic: Scrape) -> None:
    def count(verb: str, scope: str, code: str, resource: str = "configmaps") -> float:
        return traffic.value("apiserver_request_total", verb=verb, scope=scope, code=code, resource=resource,
                             group="", version="v1", subresource="", dry_run="", component="apiserver")

    assert count("POST", "resource", "201") == 3
    assert count("APPLY", "resource", "201") == 1
    assert count("GET", "resource", "200") == 1
    assert count("GET", "resource", "404") == 1
    assert count("LIST", "namespace", "200") == 1
    assert count("PATCH", "resource", "200") == 1
    assert count("DELETE", "resource", "200") == 1
    assert count("WATCH", "namespace", "200") == 1
    assert count("WATCH", "namespace", "200", "secrets") == 2
    get = {"verb": "GET", "resource": "configmaps", "scope": "resource"}
    assert traffic.value("apiserver_request_duration_seconds_count", dry_run="", **get) == 2
    assert traffic.value("apiserver_request_sli_duration_seconds_count", **get) == 2
    assert traffic.value("fakeapi_request_duration_seconds_count", **get) == 2
    assert traffic.value("apiserver_response_sizes_count", **get) == 2
    # Response sizes are kept for reads only; a watch is a read (kube labels it WATCH).
    assert not traffic.samples("apiserver_response_sizes_count", verb="POST")
    assert traffic.value("apiserver_response_sizes_count", verb="WATCH", resource="configmaps") == 1
    for sample in traffic.samples("apiserver_request_total"):
        assert set(sample.labels) == REQUEST_LABELS | {"code"}


def test_watch_metrics(traffic: Scrape) -> None:
    configmaps = {"group": "", "resource": "configmaps"}
    secrets = {"group": "", "resource": "secrets"}
    assert traffic.value("apiserver_watch_events_total", version="v1", **configmaps) == 3
    assert traffic.value("apiserver_watch_events_sizes_count", version="v1", **configmaps) == 3
    assert traffic.value("apiserver_watch_events_total", version="v1", **secrets) == 3  # ADDED, ADDED, BOOKMARK
    assert traffic.value("apiserver_init_events_total", **secrets) == 2
    assert traffic.value("apiserver_init_events_total", **configmaps) == 0
    assert traffic.value("apiserver_watch_list_duration_seconds_count", version="v1", scope="namespace",
                         **secrets) == 1
    assert traffic.value("apiserver_terminated_watchers_total", **configmaps) == 0
    assert traffic.value("apiserver_longrunning_requests", verb="WATCH", scope="namespace", subresource="",
                         version="v1", component="apiserver", **configmaps) == 0
    # The three live events were queued for the one watcher, and written in one to three writes.
    assert traffic.value("fakeapi_watch_dispatch_queued_seconds_count", **configmaps) == 3
    assert 1 <= traffic.value("fakeapi_watch_dispatch_written_seconds_count", **configmaps) <= 3
    assert traffic.value("watch_cache_capacity", **configmaps) >= 100


def test_object_counts_match_the_store(traffic: Scrape, server: ServerProcess) -> None:
    for resource in ("configmaps", "secrets", "namespaces"):
        items = server.http.get(f"/api/v1/{resource}").json()["items"]
        assert traffic.value("apiserver_resource_objects", group="", resource=resource) == len(items)


def test_storage_and_server_metrics(traffic: Scrape) -> None:
    creates = traffic.value("etcd_request_duration_seconds_count", operation="create", group="",
                            resource="configmaps")
    assert creates == 4  # a, b, d and the apply that created c
    assert traffic.value("fakeapi_store_request_duration_seconds_count", operation="delete", group="",
                         resource="configmaps") == 1
    kinds = {s.labels["request_kind"] for s in traffic.samples("apiserver_current_inflight_requests")}
    assert kinds == {"readOnly", "mutating"}
    major, minor = TARGET_RELEASE.split(".")
    build = traffic.samples("kubernetes_build_info")
    assert len(build) == 1 and build[0].value == 1
    assert build[0].labels["major"] == major and build[0].labels["minor"] == minor
    assert build[0].labels["git_version"] == f"v{TARGET_RELEASE}.0"
    assert "fakeapi_faults_fired" in traffic.families


def test_bucket_edges(traffic: Scrape) -> None:
    for family, edges in EXPECTED_EDGES.items():
        series: dict[tuple[tuple[str, str], ...], list[str]] = {}
        for s in traffic.samples(f"{family}_bucket"):
            key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
            series.setdefault(key, []).append(s.labels["le"])
        assert series, family
        for les in series.values():
            assert les == edges, family
    for family in FINE_FAMILIES:
        les = [s.labels["le"] for s in traffic.samples(f"{family}_bucket")]
        assert les[0] == "1e-05" and "0.0005" in les, family
