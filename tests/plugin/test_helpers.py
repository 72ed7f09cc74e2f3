"""The ``fakeapi`` fixture's helpers, used directly as a test suite would."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from plugin_manifests import CONFIGMAP, WIDGET, WIDGET_CRD

from fakeapi.testing import ApiError, FakeAPI


def test_apply_creates_then_updates_and_accepts_crds_with_their_resources(fakeapi: FakeAPI) -> None:
    created = fakeapi.apply(f"{WIDGET_CRD}---\n{WIDGET}---\n{CONFIGMAP}")
    assert [o["kind"] for o in created] == ["CustomResourceDefinition", "Widget", "ConfigMap"]
    assert created[1]["metadata"]["namespace"] == "default"

    updated = fakeapi.apply(CONFIGMAP.replace("fast", "slow"))
    assert updated[0]["metadata"]["uid"] == created[2]["metadata"]["uid"]
    assert fakeapi.get("configmaps", "settings")["data"] == {"mode": "slow"}
    assert fakeapi.get("wd", "w1")["spec"] == {"size": 3}


def test_apply_reads_files_directories_lists_and_generate_name(fakeapi: FakeAPI, tmp_path: Path) -> None:
    (tmp_path / "a-crd.yaml").write_text(WIDGET_CRD)
    (tmp_path / "b-widget.yml").write_text(WIDGET)
    (tmp_path / "notes.txt").write_text("not a manifest")
    fakeapi.apply(tmp_path)
    fakeapi.apply(str(tmp_path / "b-widget.yml"), namespace="kube-public")
    assert {w["metadata"]["namespace"] for w in fakeapi.list("widgets")} == {"default", "kube-public"}

    listed = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-", "namespace": "team-a"}},
    ]}
    fakeapi.apply(listed)
    assert fakeapi.list("configmaps", "team-a")[0]["metadata"]["name"].startswith("gen-")


def test_resource_names_resolve_like_kubectl(fakeapi: FakeAPI) -> None:
    fakeapi.apply({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
    }})
    for name in ("deployments", "deployment", "Deployment", "deploy", "deployments.apps", "deployments.v1.apps"):
        assert fakeapi.get(name, "web")["kind"] == "Deployment", name
    with pytest.raises(LookupError, match="doesn't have a resource type"):
        fakeapi.get("deployments.example.com", "web")


def test_get_list_delete(fakeapi: FakeAPI) -> None:
    fakeapi.apply(CONFIGMAP)
    fakeapi.apply(CONFIGMAP.replace("settings", "other").replace("app: demo", "app: other"))
    assert [c["metadata"]["name"] for c in fakeapi.list("configmaps", "default", label_selector="app=demo")] \
        == ["settings"]
    fakeapi.delete("configmaps", "settings")
    with pytest.raises(ApiError) as err:
        fakeapi.get("configmaps", "settings")
    assert err.value.status == 404
    fakeapi.delete("configmaps", "settings", missing_ok=True)
    with pytest.raises(ApiError):
        fakeapi.delete("configmaps", "settings")


def _later(action: object) -> threading.Thread:
    """Runs ``action`` on another thread after a moment, as a controller would."""
    def run() -> None:
        time.sleep(0.1)
        action()  # type: ignore[operator]

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_wait_for_a_condition_written_by_someone_else(fakeapi: FakeAPI) -> None:
    fakeapi.apply(f"{WIDGET_CRD}---\n{WIDGET}")
    status = {"phase": "Ready", "conditions": [{"type": "Ready", "status": "True"}]}
    writer = _later(lambda: fakeapi.http.patch(
        "/apis/example.com/v1/namespaces/default/widgets/w1/status", json={"status": status},
        headers={"content-type": "application/merge-patch+json"}).raise_for_status())
    assert fakeapi.wait_for_condition("widgets", "w1")["status"]["phase"] == "Ready"
    assert fakeapi.wait_for("widgets", "w1", condition=lambda w: w["status"]["phase"] == "Ready")
    writer.join()


def test_wait_for_an_object_to_appear_and_to_go(fakeapi: FakeAPI) -> None:
    creator = _later(lambda: fakeapi.apply(CONFIGMAP))
    assert fakeapi.wait_for("configmaps", "settings")["data"] == {"mode": "fast"}
    creator.join()
    deleter = _later(lambda: fakeapi.delete("configmaps", "settings"))
    fakeapi.wait_for_deleted("configmaps", "settings")
    deleter.join()


def test_wait_for_reports_the_last_state_on_timeout(fakeapi: FakeAPI) -> None:
    fakeapi.apply(CONFIGMAP)
    with pytest.raises(TimeoutError, match="'mode': 'fast'"):
        fakeapi.wait_for("configmaps", "settings", condition=lambda c: c["data"]["mode"] == "slow", timeout=0.1)
    with pytest.raises(TimeoutError, match="never found"):
        fakeapi.wait_for("configmaps", "absent", timeout=0.05)


def test_server_calls_compaction_and_closing_watches(fakeapi: FakeAPI) -> None:
    first = fakeapi.apply(CONFIGMAP)[0]["metadata"]["resourceVersion"]
    fakeapi.apply(CONFIGMAP.replace("fast", "slow"))
    compacted = fakeapi.compact()
    assert compacted == fakeapi.server_call(lambda server: server.store.revision)
    # Nothing written since: compacting "now" again is done already (a soak's timer met a quiet
    # store); naming that revision is etcd's "required revision has been compacted".
    assert fakeapi.compact() == compacted
    assert fakeapi.http.post("/fakeapi/v1/compact", json={}).json()["revision"] == compacted
    refused = fakeapi.http.post("/fakeapi/v1/compact", json={"revision": compacted})
    assert refused.status_code == 400 and "compacted" in refused.json()["message"]
    old = fakeapi.http.get("/api/v1/configmaps", params={"resourceVersion": first, "resourceVersionMatch": "Exact"})
    assert old.status_code == 410

    # the default namespace: kube-system holds kube-apiserver's own ConfigMaps
    with fakeapi.http.stream("GET", "/api/v1/namespaces/default/configmaps", params={"watch": "1"}) as watch:
        assert fakeapi.close_watches(resource="configmaps") == 1
        assert [line[:16] for line in watch.iter_lines()] == ['{"type":"ADDED",']  # then the stream ends


def test_restart_ends_watches_and_expires_their_history(fakeapi: FakeAPI) -> None:
    first = fakeapi.apply(CONFIGMAP)[0]["metadata"]["resourceVersion"]
    latest = fakeapi.apply(CONFIGMAP.replace("fast", "slow"))[0]["metadata"]["resourceVersion"]
    with fakeapi.http.stream("GET", "/api/v1/configmaps", params={"watch": "1", "resourceVersion": latest}) as watch:
        assert fakeapi.restart() == 1
        assert list(watch.iter_lines()) == []
    # even the watch that had seen the last write is behind: the restarted server registered its
    # master lease before its caches relisted
    for resource_version in (first, latest):
        resumed = fakeapi.http.get("/api/v1/configmaps", params={"watch": "1", "resourceVersion": resource_version})
        assert resumed.json()["object"]["code"] == 410  # in-stream, as kube-apiserver sends it
