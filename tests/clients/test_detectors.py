"""Each detector provoked by a real client (the Python ``kubernetes`` client), with the default
knobs unless a test says otherwise; and what must not provoke them."""

from __future__ import annotations

import threading
import time

import pytest
import urllib3
from kubernetes import watch
from kubernetes.client.rest import ApiException
from report_helpers import Clients

from fakeapi.clients import ClientReportConfig, DetectorConfig
from fakeapi.testing import FakeAPI, eventually

#: A "large collection": more than 500 objects, in namespace ns-0.
LARGE = {"namespaces": 1, "configmaps": 600, "configmap_bytes": 64}


def only_finding(fakeapi: FakeAPI, detector: str, client: str) -> dict:
    found = fakeapi.report().findings(detector, client=client)
    assert len(found) == 1, fakeapi.report()
    return found[0]


def test_relist_storm_a_naive_list_then_watch_loop(fakeapi: FakeAPI, python_client: Clients) -> None:
    """A controller that LISTs again each time its watch ends (here: its 1 s timeout)."""
    core = python_client("naive-controller/1.0")
    for _ in range(4):
        listed = core.list_namespaced_config_map("default")
        for _event in watch.Watch().stream(core.list_namespaced_config_map, "default",
                                            resource_version=listed.metadata.resource_version, timeout_seconds=1):
            pass
    finding = only_finding(fakeapi, "relist-storm", "naive-controller")
    assert finding["resource"] == "configmaps" and finding["count"] == 1
    assert finding["evidence"]["relists"] == 3 and finding["evidence"]["withinSeconds"] < 60
    assert finding["evidence"]["last"] == "list" and finding["evidence"]["namespace"] == "default"
    assert finding["example"] == "GET /api/v1/namespaces/default/configmaps"


@pytest.mark.fakeapi(seed=LARGE)
def test_unpaged_list_a_consistent_list_of_everything(fakeapi: FakeAPI, python_client: Clients) -> None:
    core = python_client("lister/1.0")
    core.list_namespaced_config_map("ns-0", limit=500)  # paged: fine
    core.list_namespaced_config_map("ns-0", resource_version="0")  # from the watch cache: fine
    assert fakeapi.report().findings(client="lister") == []
    assert len(core.list_namespaced_config_map("ns-0").items) == 600  # RV "", no limit
    finding = only_finding(fakeapi, "unpaged-list", "lister")
    assert finding["evidence"]["objects"] == 600 and finding["evidence"]["returned"] == 600


@pytest.mark.fakeapi(seed=LARGE)
def test_selector_scan_label_selector_lists_that_go_through_everything(fakeapi: FakeAPI, python_client: Clients) -> None:
    core = python_client("revision-lister/1.0")
    name = fakeapi.list("configmaps", "ns-0")[0]["metadata"]["name"]
    for _ in range(5):  # seed 003's pattern: each sync lists by selector, through the whole namespace
        items = core.list_namespaced_config_map("ns-0", field_selector=f"metadata.name={name}", limit=500).items
        assert len(items) == 1
    finding = only_finding(fakeapi, "selector-scan", "revision-lister")
    assert finding["evidence"]["lists"] == 5
    assert finding["evidence"]["examined"] == 600 and finding["evidence"]["returned"] == 1
    assert finding["evidence"]["fieldSelector"] == f"metadata.name={name}"


def test_hot_loop_one_object_written_over_and_over(fakeapi: FakeAPI, python_client: Clients) -> None:
    core = python_client("flapper/1.0")
    core.create_namespaced_config_map("default", {"metadata": {"name": "flap"}})
    for i in range(20):
        core.patch_namespaced_config_map("flap", "default", {"data": {"generation": str(i)}})
    finding = only_finding(fakeapi, "hot-loop", "flapper")
    assert finding["evidence"] == {"rule": "same object", "object": "default/flap", "writes": 20, "windowSeconds": 60.0}


def test_hot_loop_updates_that_change_nothing(fakeapi: FakeAPI, python_client: Clients) -> None:
    core = python_client("status-writer/1.0")
    current = core.create_namespaced_config_map("default", {"metadata": {"name": "steady"}, "data": {"k": "v"}})
    for _ in range(5):  # a reconcile that always writes, though nothing changed
        current = core.replace_namespaced_config_map("steady", "default", current)
    finding = only_finding(fakeapi, "hot-loop", "status-writer")
    assert finding["evidence"]["rule"] == "no-op writes" and finding["evidence"]["noopWrites"] == 5
    assert fakeapi.report().client("status-writer")["totals"]["noopWrites"] == 5


def test_watch_churn_watches_that_end_and_reopen(fakeapi: FakeAPI, python_client: Clients) -> None:
    """A controller that drops its watch after each event and opens a new one from there."""
    core = python_client("restless-watcher/1.0")
    rv = core.list_namespaced_config_map("default").metadata.resource_version
    for i in range(5):
        fakeapi.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"nudge-{i}"}})
        for event in watch.Watch().stream(core.list_namespaced_config_map, "default", resource_version=rv):
            rv = event["object"].metadata.resource_version
            break  # closes the watch
    # The server learns that an idle watch's client left when it next writes to it.
    fakeapi.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "last-nudge"}})
    eventually(lambda: fakeapi.report().findings("watch-churn"), "the server seeing the fifth watch end")
    finding = only_finding(fakeapi, "watch-churn", "restless-watcher")
    assert finding["evidence"]["watches"] == 5 and finding["evidence"]["lastLifetimeSeconds"] < 5
    assert fakeapi.report().findings("relist-storm") == []  # it resumed each time


def test_watches_the_server_ends_are_not_the_clients_churn(fakeapi: FakeAPI, python_client: Clients) -> None:
    """The Python client resumes a watch the server ends; the server ends it again and again."""
    core = python_client("resumer/1.0")
    rv = core.list_namespaced_config_map("default").metadata.resource_version
    stream = watch.Watch()

    def follow() -> None:
        try:
            for _event in stream.stream(core.list_namespaced_config_map, "default", resource_version=rv):
                pass
        except urllib3.exceptions.ProtocolError:
            # A watch closed while it was being set up can lose its last chunk (as on main);
            # only acceptable once the test is done with it.
            assert stream._stop

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    try:
        for opened in range(1, 7):
            eventually(lambda n=opened: _watches_opened(fakeapi, "resumer") == n, f"watch {opened} open")
            assert fakeapi.close_watches(resource="configmaps") == 1
    finally:
        stream.stop()  # seen once its current watch ends
        deadline = time.monotonic() + 10
        while thread.is_alive() and time.monotonic() < deadline:
            fakeapi.close_watches(resource="configmaps")
            thread.join(0.1)
    fakeapi.assert_no_findings()


def _watches_opened(fakeapi: FakeAPI, client: str) -> int:
    try:
        return fakeapi.report().client(client)["totals"]["watchesOpened"]  # type: ignore[no-any-return]
    except KeyError:
        return 0


def test_conflict_storm_updates_from_a_stale_copy(fakeapi: FakeAPI, python_client: Clients) -> None:
    core = python_client("stale-writer/1.0")
    stale = core.create_namespaced_config_map("default", {"metadata": {"name": "contended"}})
    core.patch_namespaced_config_map("contended", "default", {"data": {"moved": "on"}})
    for i in range(10):
        stale.data = {"attempt": str(i)}
        with pytest.raises(ApiException) as conflict:
            core.replace_namespaced_config_map("contended", "default", stale)
        assert conflict.value.status == 409
    finding = only_finding(fakeapi, "conflict-storm", "stale-writer")
    assert finding["evidence"]["conflicts"] == 10 and finding["evidence"]["object"] == "default/contended"


def test_lock_step_clients_listing_on_the_same_period(fakeapi: FakeAPI, python_client: Clients) -> None:
    """Three controllers (their own connections and names) re-list pods every 2 s, aligned."""
    cores = [python_client(f"resyncer-{i}/1.0") for i in range(3)]
    period = 2.0
    start = time.time()
    start += period - start % period  # the next period boundary, as wall-clock resyncs align
    for burst in range(3):
        time.sleep(max(0.0, start + burst * period - time.time()))
        threads = [threading.Thread(target=core.list_pod_for_all_namespaces) for core in cores]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    time.sleep(1.05)  # the last burst's slot is over
    finding = only_finding(fakeapi, "lock-step", "resyncer-*")
    assert finding["resource"] == "pods" and finding["clients"] == ["resyncer-0", "resyncer-1", "resyncer-2"]
    assert finding["evidence"]["bursts"] == 3 and finding["evidence"]["sourcesPerBurst"] == [3, 3, 3]
    assert abs(finding["evidence"]["periodSeconds"] - period) < 0.5


def test_one_client_listing_on_a_period_is_no_lock_step(fakeapi: FakeAPI, python_client: Clients) -> None:
    core = python_client("lonely-resyncer/1.0")
    for _ in range(4):
        core.list_pod_for_all_namespaces()
        time.sleep(0.3)
    fakeapi.assert_no_findings()


@pytest.mark.fakeapi(config={"clients": ClientReportConfig(
    detectors=DetectorConfig().with_knobs("hot-loop", writes=3, window="1m"))})
def test_knobs_change_a_rule(fakeapi: FakeAPI, python_client: Clients) -> None:
    core = python_client("impatient/1.0")
    core.create_namespaced_config_map("default", {"metadata": {"name": "k"}})
    for i in range(3):
        core.patch_namespaced_config_map("k", "default", {"data": {"i": str(i)}})
    assert only_finding(fakeapi, "hot-loop", "impatient")["evidence"]["writes"] == 3
    assert fakeapi.report().data["detectors"]["hot-loop"] == {"writes": 3, "noop_writes": 5, "window": 60.0}


def test_the_test_helpers_own_requests_are_left_out(fakeapi: FakeAPI) -> None:
    fakeapi.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mine"}})
    for i in range(20):
        fakeapi.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mine"}, "data": {"i": str(i)}})
    assert fakeapi.report().findings() == []
    assert fakeapi.report().findings("hot-loop", client="fakeapi-testing")
