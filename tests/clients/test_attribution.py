"""What the report attributes to each client: requests and bytes, objects returned and
examined, reads served from the store, watches (opened, open, lifetime, events), 410s, 409s,
writes that changed nothing; by User-Agent or a trusted header; bounded clients; windows."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from kubernetes import watch
from kubernetes.client.rest import ApiException
from report_helpers import Clients, row

from fakeapi.clients import ClientReportConfig
from fakeapi.testing import FakeAPI, eventually

NS = "/api/v1/namespaces/default/configmaps"
AGENT = "reconciler/v2.1.0 (linux/amd64) kubernetes/0123abc/widget-controller"
CLIENT = "reconciler/widget-controller"


def test_reads_count_objects_returned_examined_and_store_reads(fakeapi: FakeAPI) -> None:
    http = fakeapi.http
    for i in range(10):
        http.post(NS, json={"metadata": {"name": f"cm-{i}", "labels": {"even": str(i % 2 == 0).lower()}}},
                  headers={"user-agent": "seeder/1"}).raise_for_status()
    headers = {"user-agent": AGENT}
    assert http.get(f"{NS}/cm-1", headers=headers).status_code == 200  # GET: from the store
    assert len(http.get(NS, params={"resourceVersion": "0"}, headers=headers).json()["items"]) == 10  # cache
    assert len(http.get(NS, params={"labelSelector": "even=true"}, headers=headers).json()["items"]) == 5
    first = http.get(NS, params={"limit": "4"}, headers=headers).json()  # first page: the cache
    # The next page: the cache's snapshot at the first page's revision (kube 1.35's ListFromCacheSnapshot).
    http.get(NS, params={"limit": "4", "continue": first["metadata"]["continue"]}, headers=headers)
    report = fakeapi.report().data

    get = row(report, CLIENT, "get", "configmaps")
    assert (get["requests"], get["objectsReturned"], get["objectsExamined"], get["storeReads"]) == (1, 1, 1, 1)
    listed = row(report, CLIENT, "list", "configmaps", "namespace")
    # 10 + 5 of 10 + 4 of 4 + 4 of 4 (the page stops at the limit)
    assert (listed["requests"], listed["objectsReturned"], listed["objectsExamined"], listed["storeReads"]) == \
        (4, 10 + 5 + 4 + 4, 10 + 10 + 4 + 4, 0)
    assert listed["responseBytes"] > 0 and listed["servingSeconds"] > 0
    client = next(c for c in report["clients"] if c["client"] == CLIENT)
    assert client["version"] == "v2.1.0" and client["userAgent"] == AGENT
    seeder = row(report, "seeder", "create", "configmaps", "resource")
    assert seeder["requests"] == 10 and seeder["requestBytes"] > 10 * len('{"metadata":{}}')


def test_conflicts_no_op_writes_and_410s_with_the_python_client(fakeapi: FakeAPI, python_client: Clients) -> None:
    core = python_client("conflicted/1.0")
    created = core.create_namespaced_config_map("default", {"metadata": {"name": "c"}, "data": {"k": "v"}})
    same = core.replace_namespaced_config_map("c", "default", created)  # changes nothing
    assert same.metadata.resource_version == created.metadata.resource_version
    created.data = {"k": "changed"}
    core.replace_namespaced_config_map("c", "default", created)
    with pytest.raises(ApiException) as stale:  # the resourceVersion is now old
        core.replace_namespaced_config_map("c", "default", created)
    assert stale.value.status == 409
    for i in range(3):
        core.create_namespaced_config_map("default", {"metadata": {"name": f"p-{i}"}})
    page = core.list_namespaced_config_map("default", limit=1)
    core.create_namespaced_config_map("default", {"metadata": {"name": "after-the-page"}})
    fakeapi.compact()
    with pytest.raises(ApiException) as expired:  # a continue token from before the compaction
        core.list_namespaced_config_map("default", limit=1, _continue=page.metadata._continue)
    assert expired.value.status == 410
    # A watch from a resourceVersion that left the watch cache: 200, then an in-stream 410.
    fakeapi.restart()
    response = fakeapi.http.get(NS, params={"watch": "1", "resourceVersion": created.metadata.resource_version},
                                headers={"user-agent": "conflicted/1.0"})
    assert '"code":410' in response.text

    # The watch is counted once its handler is done, which may be just after its last byte.
    eventually(lambda: fakeapi.report().client("conflicted")["openWatches"] == 0, "the watch counted")
    report = fakeapi.report().data
    update = row(report, "conflicted", "update", "configmaps")
    assert (update["requests"], update["noopWrites"], update["conflicts"]) == (3, 1, 1)
    assert row(report, "conflicted", "list", "configmaps")["expired"] == 1
    assert row(report, "conflicted", "watch", "configmaps")["expired"] == 1


def test_watches_opened_open_events_and_lifetime(fakeapi: FakeAPI, python_client: Clients) -> None:
    core = python_client("watcher/1.0")
    for i in range(3):
        fakeapi.http.post(NS, json={"metadata": {"name": f"w-{i}"}}).raise_for_status()
    seen: list[str] = []
    stop = threading.Event()

    def watch_configmaps() -> None:
        stream = watch.Watch()
        for event in stream.stream(core.list_namespaced_config_map, "default", timeout_seconds=3):
            seen.append(event["type"])
            if stop.is_set():
                stream.stop()

    thread = threading.Thread(target=watch_configmaps)
    thread.start()
    eventually(lambda: len(seen) == 3, "the initial events")
    live = fakeapi.report().data
    assert next(c for c in live["clients"] if c["client"] == "watcher")["openWatches"] == 1
    assert row(live, "watcher", "watch", "configmaps")["watchEvents"] == 3  # counted while it streams
    stop.set()
    fakeapi.http.post(NS, json={"metadata": {"name": "w-last"}}).raise_for_status()
    thread.join(10)
    # The server sees the client go once the connection closes.
    eventually(lambda: fakeapi.report().client("watcher")["openWatches"] == 0, "the watch ended on the server")
    ended = row(fakeapi.report().data, "watcher", "watch", "configmaps")
    assert (ended["requests"], ended["watchesOpened"], ended["watchEvents"]) == (1, 1, 4)
    assert 0 < ended["watchSeconds"] <= 3.5 and ended["responseBytes"] > 0


@pytest.mark.fakeapi(config={"clients": ClientReportConfig(client_header="X-Client", max_clients=2)})
def test_a_trusted_header_names_clients_and_the_cap_folds_the_rest_into_other(fakeapi: FakeAPI) -> None:
    http = fakeapi.http
    for name in ("team-a", "team-b", "team-c", "team-d"):
        http.get(NS, headers={"X-Client": name}).raise_for_status()
    http.get(NS, headers={"X-Client": "team-a"}).raise_for_status()
    report = fakeapi.report().data
    names = {c["client"]: c["totals"]["requests"] for c in report["clients"]}
    # fakeapi-testing (this test's own helpers) is not needed: the header names every request.
    assert names == {"team-a": 2, "team-b": 1, "other": 2}
    assert report["limits"]["maxClients"] == 2 and report["limits"]["clientHeader"] == "X-Client"


@pytest.mark.fakeapi(config={"clients": ClientReportConfig(slice_seconds=0.2)})
def test_since_covers_the_last_slices_only_and_sort_orders_clients(fakeapi: FakeAPI) -> None:
    http = fakeapi.http
    for _ in range(5):
        http.get(NS, headers={"user-agent": "early/1"})
    time.sleep(0.5)
    http.get(NS, headers={"user-agent": "late/1"})
    recent = {c["client"] for c in fakeapi.report(since=0.3).data["clients"]}
    assert "late" in recent and "early" not in recent
    everything = fakeapi.report(sort="requests").data
    assert everything["clients"][0]["client"] == "early"
    assert [c["client"] for c in everything["clients"]].index("late") > 0


def test_the_http_endpoint_and_prometheus_series(fakeapi: FakeAPI) -> None:
    http = fakeapi.http
    http.get(NS, headers={"user-agent": AGENT}).raise_for_status()
    body = http.get("/fakeapi/v1/report", params={"since": "5m", "sort": "bytes"}).json()
    assert body["kind"] == "ClientReport" and body["since"] == 300 and body["sort"] == "bytes"
    assert set(body["detectors"]) == {"relist-storm", "unpaged-list", "selector-scan", "hot-loop", "watch-churn",
                                      "conflict-storm", "lock-step"}
    for query, message in (({"since": "soon"}, 'invalid since "soon"'), ({"since": "-5m"}, 'invalid since "-5m"'),
                           ({"sort": "color"}, 'invalid sort "color"')):
        bad = http.get("/fakeapi/v1/report", params=query)
        assert bad.status_code == 400 and bad.json()["reason"] == "BadRequest"
        assert bad.json()["message"].startswith(message)
    metrics = http.get("/metrics").text
    assert f'fakeapi_client_requests_total{{client="{CLIENT}",resource="configmaps",verb="list"}} 1.0' in metrics
    assert "fakeapi_client_objects_examined_total" in metrics and "fakeapi_client_open_watches" in metrics


def test_discovery_and_control_requests_are_not_attributed(fakeapi: FakeAPI) -> None:
    with httpx.Client(base_url=fakeapi.url, headers={"user-agent": "discovery-only/1"}) as http:
        for path in ("/api", "/apis", "/api/v1", "/version", "/openapi/v3", "/fakeapi/v1/faults"):
            http.get(path)
    assert "discovery-only" not in {c["client"] for c in fakeapi.report().data["clients"]}
