"""``fakeapi snapshot save|restore|status`` and ``fakeapi serve --from-snapshot`` (like etcdctl
snapshot), and a server started from a restored store: the watch caches, the custom resources of
stored CRDs and the controllers all see what was restored, and a client resuming from before
gets 410 Expired."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fakeapi.store import PutRequest, SnapshotError, Store, snapshot
from fakeapi.testing import ServerProcess

NS = "/api/v1/namespaces/default"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]},
}


def fakeapi(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fakeapi.cli", *args], capture_output=True, text=True, timeout=60)


def ok(resp: httpx.Response) -> dict[str, Any]:
    assert resp.status_code < 300, resp.text
    return resp.json()


def names(http: httpx.Client, path: str) -> dict[str, str]:
    return {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in ok(http.get(path))["items"]}


def wait_until(condition: Any, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout}s"
        time.sleep(0.05)


def populate(http: httpx.Client) -> None:
    """Objects whose life goes on after the restore: a custom resource, an owner and its
    dependent, a namespace being deleted."""
    ok(http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD))
    ok(http.post(f"{NS}/configmaps", json={"metadata": {"name": "plain", "labels": {"tier": "a"}}, "data": {"k": "v"}}))
    ok(http.post("/apis/example.com/v1/namespaces/default/widgets",
                 json={"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"n": 1}}))
    owner = ok(http.post(f"{NS}/configmaps", json={"metadata": {"name": "owner"}}))
    ok(http.post(f"{NS}/secrets", json={"metadata": {"name": "dependent", "ownerReferences": [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}]}}))
    ok(http.post("/api/v1/namespaces", json={"metadata": {"name": "doomed"}}))
    ok(http.post("/api/v1/namespaces/doomed/configmaps", json={"metadata": {"name": "inside"}}))


def test_save_from_a_running_server_then_serve_from_it(tmp_path: Path) -> None:
    snap = tmp_path / "cluster.snap"
    with ServerProcess(tmp_path / "a", "--controllers", "") as server:  # nothing acts before the restore
        populate(server.http)
        ok(server.http.delete("/api/v1/namespaces/doomed"))  # Terminating: its controller is off here
        saved_state = names(server.http, f"{NS}/configmaps")
        rv = int(ok(server.http.get(f"{NS}/configmaps"))["metadata"]["resourceVersion"])
        result = fakeapi("snapshot", "save", str(snap), "--url", server.url)
        assert result.returncode == 0, result.stderr
        assert f"revision {rv}" in result.stdout
    status = fakeapi("snapshot", "status", str(snap))
    assert status.returncode == 0 and f"revision {rv}" in status.stdout

    with ServerProcess(tmp_path / "b", "--from-snapshot", str(snap)) as server:
        http = server.http
        # The watch caches listed the restored store: resourceVersions are the saved ones.
        assert names(http, f"{NS}/configmaps") == saved_state
        assert names(http, f"{NS}/configmaps?labelSelector=tier%3Da") == {"plain": saved_state["plain"]}
        # Custom resources of the stored CRD are served.
        assert names(http, "/apis/example.com/v1/namespaces/default/widgets").keys() == {"w1"}
        # A watch from before the restart: 410 Expired, as from a restarted kube-apiserver.
        ok(http.post(f"{NS}/configmaps", json={"metadata": {"name": "after"}}))
        expired = http.get(f"{NS}/configmaps", params={"watch": "1", "resourceVersion": str(rv - 3)}).text
        assert '"code":410' in expired and "too old resource version" in expired
        # Revisions continue from the snapshot's (the controllers may have written meanwhile).
        assert int(names(http, f"{NS}/configmaps")["after"]) > rv
        # The controllers see the restored objects: the namespace deleted before is emptied and
        # removed, and deleting the restored owner collects its restored dependent.
        wait_until(lambda: http.get("/api/v1/namespaces/doomed").status_code == 404, "namespace removal")
        ok(http.delete(f"{NS}/configmaps/owner"))
        wait_until(lambda: http.get(f"{NS}/secrets/dependent").status_code == 404, "garbage collection")


def test_restore_into_a_data_dir_and_save_from_it(tmp_path: Path) -> None:
    store = Store()
    lease = store.lease_grant(600).id
    for i in range(30):
        store.put(PutRequest(b"/registry/configmaps/default/cm-%d" % (i % 7), b'{"i":%d}' % i))
    store.put(PutRequest(b"/registry/leased", b"x", lease=lease))
    store.compact(10)
    snap = tmp_path / "store.snap"
    snapshot.write_file(snap, snapshot.encode(store))

    data_dir = tmp_path / "data"
    result = fakeapi("snapshot", "restore", str(snap), "--data-dir", str(data_dir))
    assert result.returncode == 0, result.stderr
    again = fakeapi("snapshot", "restore", str(snap), "--data-dir", str(data_dir))
    assert again.returncode != 0 and "not empty" in again.stderr

    copy = tmp_path / "copy.snap"
    result = fakeapi("snapshot", "save", str(copy), "--data-dir", str(data_dir))
    assert result.returncode == 0, result.stderr
    restored = Store()
    snapshot.load_file(restored, copy)
    assert (restored.revision, restored.compact_revision) == (store.revision, 10)
    assert restored.contents() == store.contents()
    ttl = restored.lease_time_to_live(lease, keys=True)
    assert ttl.keys == (b"/registry/leased",) and 590 < ttl.ttl <= 600


def test_damaged_snapshots_are_refused(tmp_path: Path) -> None:
    store = Store()
    store.put(PutRequest(b"/a", b"1"))
    data = b"".join(snapshot.encode(store))
    damaged = bytearray(data)
    damaged[len(data) // 2] ^= 1
    for bad, message in ((bytes(damaged), "checksum"), (data[:-10], "checksum"), (b"not a snapshot", "magic")):
        with pytest.raises(SnapshotError, match=message):
            snapshot.load(Store(), bad)
    path = tmp_path / "bad.snap"
    path.write_bytes(bytes(damaged))
    result = fakeapi("serve", "--port", "0", "--kubeconfig", str(tmp_path / "kc"), "--from-snapshot", str(path))
    assert result.returncode != 0 and "checksum mismatch" in result.stderr
    result = fakeapi("snapshot", "restore", str(path), "--data-dir", str(tmp_path / "d"))
    assert result.returncode != 0 and not (tmp_path / "d").exists()


def test_no_request_reads_or_writes_files(tmp_path: Path) -> None:
    """The only file-related endpoint streams the store: nothing a request sends names a path."""
    data_dir = tmp_path / "data"
    with ServerProcess(tmp_path, "--data-dir", str(data_dir)) as server:
        before = sorted(p.name for p in tmp_path.rglob("*"))
        for params in ({"file": "/etc/passwd"}, {"path": "../../x.snap"}, {"dir": str(tmp_path / "elsewhere")}):
            resp = server.http.get("/fakeapi/v1/snapshot", params=params)
            assert resp.status_code == 200 and resp.content.startswith(snapshot.MAGIC)
        assert server.http.post("/fakeapi/v1/snapshot", json={"path": "/tmp/x"}).status_code == 405
        assert sorted(p.name for p in tmp_path.rglob("*")) == before


SEEDED = Path(tempfile.mkdtemp(prefix="fakeapi-snapshot-")) / "seeded.snap"


@pytest.fixture(scope="module")
def seeded_snapshot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A seeded cluster saved once (``fakeapi serve --seed``, then ``fakeapi snapshot save``)."""
    with ServerProcess(tmp_path_factory.mktemp("seeding"), "--seed", "namespaces=2,pods=40,deployments=2") as server:
        result = fakeapi("snapshot", "save", str(SEEDED), "--url", server.url)
        assert result.returncode == 0, result.stderr
    yield SEEDED
    shutil.rmtree(SEEDED.parent)


@pytest.mark.parametrize("fakeapi", [{"config": {"from_snapshot": str(SEEDED)}}], indirect=True)
@pytest.mark.parametrize("test_run", [1, 2])
def test_each_test_starts_from_the_saved_cluster(seeded_snapshot: Path, fakeapi: Any, test_run: int) -> None:
    """The pytest plugin loads the snapshot for every test: what one test changes, the next
    does not see."""
    pods = fakeapi.list("pods")
    assert len(pods) == 40
    assert {p["metadata"]["namespace"] for p in pods} == {"ns-0", "ns-1"}
    fakeapi.delete("pods", pods[0]["metadata"]["name"], pods[0]["metadata"]["namespace"])
    assert len(fakeapi.list("pods")) == 39
