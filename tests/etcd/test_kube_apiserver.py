"""The real kube-apiserver v1.35.4 with ``--etcd-servers`` pointing at ``fakeapi etcd``, and the
same scenario on a real etcd v3.6.6 as the control: kube-apiserver starts and becomes ready on
it; kubectl and a watch over HTTP create, read, update, delete, list (paged) and watch pods,
configmaps, a CRD and its custom resources; kube-apiserver's compactor compacts the store
(``--etcd-compaction-interval``); kube-apiserver restarts over the same store, relists into its
watch cache and serves what was written before; a watch from before the restart is told to
relist (410), and one from the relisted version gets the next change. The launcher is ``fakeapi.cluster.control_plane`` (certificates, token, envtest's
flags).
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from fakeapi.etcd.pb import rpc_pb2, rpc_pb2_grpc
from fakeapi.cluster.control_plane import Etcd, KubeAPIServer, kubectl_binary
from fakeapi.testing.etcd import FakeEtcdProcess

pytestmark = pytest.mark.etcd

#: kube-apiserver compacts every interval (its first compaction comes two intervals in).
COMPACTION_INTERVAL = "2s"

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
            }}},
        }],
    },
}


class Cluster:
    """kube-apiserver over one etcd endpoint; restartable over the same store."""

    def __init__(self, workdir: Path, etcd_url: str) -> None:
        self.workdir = workdir
        self.etcd_url = etcd_url
        self.runs = 0
        self.api = self._start()

    def _start(self) -> KubeAPIServer:
        self.runs += 1
        return KubeAPIServer(self.workdir / f"apiserver-{self.runs}", self.etcd_url,
                             f"--etcd-compaction-interval={COMPACTION_INTERVAL}")

    def restart(self) -> None:
        self.api.stop()
        self.api = self._start()

    def kubectl(self, *args: str, stdin: str | None = None) -> str:
        result = subprocess.run(
            [str(kubectl_binary()), f"--kubeconfig={self.api.kubeconfig}", *args],
            input=stdin, capture_output=True, text=True, timeout=60,
        )
        assert result.returncode == 0, f"kubectl {' '.join(args)}: {result.stderr}"
        return result.stdout

    def stop(self) -> None:
        self.api.stop()


@pytest.fixture(scope="module", params=["fakeapi-etcd", "etcd-3.6.6"])
def cluster(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    workdir = tmp_path_factory.mktemp(request.param)
    if request.param == "fakeapi-etcd":
        store: Any = FakeEtcdProcess()
        url = store.start()
    else:
        store = Etcd(workdir / "etcd")
        url = store.client_url
    try:
        cluster = Cluster(workdir, url)
        try:
            yield cluster
        finally:
            cluster.stop()
    finally:
        store.stop()


class Watch:
    """A watch over HTTP, read by a thread: ``events`` are (type, name, resourceVersion)."""

    def __init__(self, api: KubeAPIServer, path: str, resource_version: str) -> None:
        self.events: list[tuple[str, str, str]] = []
        self.cond = threading.Condition()
        self.client = httpx.Client(base_url=api.url, verify=api.ssl_context, timeout=60,
                                   headers={"Authorization": f"Bearer {api.token}"})
        self.url = f"{path}?watch=1&resourceVersion={resource_version}&allowWatchBookmarks=false"
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            with self.client.stream("GET", self.url) as response:
                for line in response.iter_lines():
                    if line:
                        event = json.loads(line)
                        meta = event["object"]["metadata"]
                        with self.cond:
                            self.events.append((event["type"], meta.get("name", ""),
                                                meta.get("resourceVersion", "")))
                            self.cond.notify_all()
        except httpx.HTTPError:
            pass

    def wait_for(self, count: int, timeout: float = 30) -> list[tuple[str, str, str]]:
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.events) < count and time.monotonic() < deadline:
                self.cond.wait(0.1)
            return list(self.events)

    def close(self) -> None:
        self.client.close()


def _names(listing: dict[str, Any]) -> list[str]:
    return [item["metadata"]["name"] for item in listing["items"]]


def test_kube_apiserver_runs_on_the_store(cluster: Cluster) -> None:
    api = cluster.api
    assert api.http.get("/readyz").status_code == 200
    http = api.http

    # ---- configmaps and pods: create, read, update, list paged, watch, delete
    cluster.kubectl("create", "namespace", "work")
    list_rv = http.get("/api/v1/namespaces/work/configmaps").json()["metadata"]["resourceVersion"]
    watch = Watch(api, "/api/v1/namespaces/work/configmaps", list_rv)
    for i in range(7):
        cluster.kubectl("create", "configmap", f"cm-{i}", "-n", "work", f"--from-literal=i={i}")
    cluster.kubectl("patch", "configmap", "cm-3", "-n", "work", "--type=merge", "-p", '{"data":{"i":"33"}}')
    assert json.loads(cluster.kubectl("get", "configmap", "cm-3", "-n", "work", "-o", "json"))["data"] == {"i": "33"}
    names = [line.split("/", 1)[1] for line in cluster.kubectl(
        "get", "configmaps", "-n", "work", "--chunk-size=2", "-o", "name").split()]
    assert names == sorted(["kube-root-ca.crt", *(f"cm-{i}" for i in range(7))]) or \
        names == sorted(f"cm-{i}" for i in range(7))
    page = http.get("/api/v1/namespaces/work/configmaps", params={"limit": 3}).json()
    pages = [_names(page)]
    while page["metadata"].get("continue"):
        page = http.get("/api/v1/namespaces/work/configmaps",
                        params={"limit": 3, "continue": page["metadata"]["continue"]}).json()
        pages.append(_names(page))
    assert [len(p) for p in pages] == [3, 3, 1] and sum(pages, []) == [f"cm-{i}" for i in range(7)]
    cluster.kubectl("delete", "configmap", "cm-0", "-n", "work")
    events = watch.wait_for(9)
    watch.close()
    assert [(t, n) for t, n, _ in events] == [
        *(("ADDED", f"cm-{i}") for i in range(7)), ("MODIFIED", "cm-3"), ("DELETED", "cm-0")]
    revisions = [int(rv) for _, _, rv in events]
    assert revisions == sorted(revisions)

    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "work"},
           "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    cluster.kubectl("apply", "-f", "-", stdin=json.dumps(pod))
    cluster.kubectl("label", "pod", "p1", "-n", "work", "tier=web")
    assert json.loads(cluster.kubectl("get", "pod", "p1", "-n", "work", "-o", "json"))["metadata"]["labels"] == {"tier": "web"}
    assert cluster.kubectl("get", "pods", "-n", "work", "-l", "tier=web", "-o", "name").split() == ["pod/p1"]

    # ---- a CRD and its custom resources
    cluster.kubectl("apply", "-f", "-", stdin=json.dumps(CRD))
    cluster.kubectl("wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=60s")
    for i in range(3):
        widget = {"apiVersion": "example.com/v1", "kind": "Widget",
                  "metadata": {"name": f"w{i}", "namespace": "work"}, "spec": {"size": i}}
        cluster.kubectl("apply", "-f", "-", stdin=json.dumps(widget))
    cluster.kubectl("patch", "widget", "w1", "-n", "work", "--type=merge", "-p", '{"spec":{"size":10}}')
    widgets = json.loads(cluster.kubectl("get", "widgets", "-n", "work", "-o", "json", "--chunk-size=1"))
    assert [(w["metadata"]["name"], w["spec"]["size"]) for w in widgets["items"]] == [("w0", 0), ("w1", 10), ("w2", 2)]
    cluster.kubectl("delete", "widget", "w2", "-n", "work")
    before_restart = http.get("/apis/example.com/v1/namespaces/work/widgets").json()["metadata"]["resourceVersion"]

    # ---- kube-apiserver's compactor compacts the store
    _wait_compacted(cluster.etcd_url, int(before_restart))

    # ---- a restart: the watch cache relists; a watch resumes from the first run's version
    cluster.restart()
    api = cluster.api
    # A restarted kube-apiserver serves a CRD's resources once its CRD informer synced.
    assert _names(_get_served(api, "/apis/example.com/v1/namespaces/work/widgets")) == ["w0", "w1"]
    assert _names(api.http.get("/api/v1/namespaces/work/configmaps").json()) == [f"cm-{i}" for i in range(1, 7)]
    # A watch from before the restart (and before the compaction): the new watch cache does not
    # hold that history, so the client is told to relist (410 Expired), as on any etcd.
    watch = Watch(api, "/apis/example.com/v1/namespaces/work/widgets", before_restart)
    events = watch.wait_for(1)
    watch.close()
    assert [t for t, _, _ in events] == ["ERROR"]
    relisted = _get_served(api, "/apis/example.com/v1/namespaces/work/widgets")
    assert int(relisted["metadata"]["resourceVersion"]) >= int(before_restart)
    watch = Watch(api, "/apis/example.com/v1/namespaces/work/widgets", relisted["metadata"]["resourceVersion"])
    cluster.kubectl("delete", "widget", "w0", "-n", "work")
    events = watch.wait_for(1)
    watch.close()
    assert [(t, n) for t, n, _ in events] == [("DELETED", "w0")]
    cluster.kubectl("delete", "namespace", "work", "--wait=false")


def _get_served(api: KubeAPIServer, path: str, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        response = api.http.get(path)
        if response.status_code == 200 or time.monotonic() > deadline:
            assert response.status_code == 200, response.text
            return response.json()
        time.sleep(0.2)


def _wait_compacted(etcd_url: str, revision: int, timeout: float = 30) -> None:
    """Until a read below ``revision`` fails as compacted: kube-apiserver's compactor ran."""
    channel = grpc.insecure_channel(etcd_url.removeprefix("http://"))
    kv = rpc_pb2_grpc.KVStub(channel)
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                kv.Range(rpc_pb2.RangeRequest(key=b"compact_rev_key", revision=2), timeout=5)
            except grpc.RpcError as err:
                assert err.code() is grpc.StatusCode.OUT_OF_RANGE, err
                assert err.details() == "etcdserver: mvcc: required revision has been compacted"
                return
            assert time.monotonic() < deadline, "kube-apiserver never compacted the store"
            time.sleep(0.5)
    finally:
        channel.close()
