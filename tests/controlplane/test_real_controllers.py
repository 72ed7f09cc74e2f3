"""The real kube-controller-manager and kube-scheduler v1.35.4 (built by scripts/build-kube.sh)
run against fakeapi, unmodified: Deployments get ReplicaSets and pods, the scheduler binds them to
fake nodes, scaling and rolling updates complete, a StatefulSet comes up in order with its
ControllerRevisions, the garbage collector deletes dependents, and both hold their leader Leases.

fakeapi runs without its own controllers (the real ones run). There is no kubelet: the test plays
its part for the fake nodes — it keeps each node's Lease and Ready condition fresh, marks bound
pods Running and Ready, and finishes the graceful deletion of pods on its nodes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from fakeapi.testing import ServerProcess
from fakeapi.cluster.control_plane import ControllerManager, Scheduler

NODES = ("node-a", "node-b", "node-c")
NAMESPACE = "default"
TIMEOUT = 90.0


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _micro_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class FakeKubelets:
    """What the kubelets of ``NODES`` would write: node heartbeats (Lease renewals and the Ready
    condition) and the status of the pods bound to them."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._heartbeat, daemon=True),
                         threading.Thread(target=self._run_pods, daemon=True)]

    def register_nodes(self) -> None:
        for index, name in enumerate(NODES):
            node = {
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                                      "topology.kubernetes.io/zone": f"zone-{index % 2}"}},
                "spec": {"podCIDR": f"10.244.{index}.0/24"},
            }
            response = self.http.post("/api/v1/nodes", json=node)
            assert response.status_code == 201, response.text
            self._node_status(name)
            lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                     "metadata": {"name": name, "namespace": "kube-node-lease"},
                     "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": _micro_now()}}
            response = self.http.post("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", json=lease)
            assert response.status_code == 201, response.text

    def _node_status(self, name: str) -> None:
        now = _now()
        status = {"status": {
            "conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
                 "lastHeartbeatTime": now, "lastTransitionTime": now},
                *({"type": kind, "status": "False", "reason": f"KubeletHas{reason}", "lastHeartbeatTime": now,
                   "lastTransitionTime": now}
                  for kind, reason in (("MemoryPressure", "SufficientMemory"), ("DiskPressure", "NoDiskPressure"),
                                       ("PIDPressure", "SufficientPID"))),
            ],
            "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
            "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
            "addresses": [{"type": "InternalIP", "address": f"192.168.0.{NODES.index(name) + 10}"}],
            "nodeInfo": {"kubeletVersion": "v1.35.4", "operatingSystem": "linux", "architecture": "amd64",
                         "containerRuntimeVersion": "fake://1", "kernelVersion": "6.1", "osImage": "fake",
                         "machineID": name, "systemUUID": name, "bootID": name, "kubeProxyVersion": ""},
        }}
        response = self.http.patch(f"/api/v1/nodes/{name}/status", json=status,
                                   headers={"Content-Type": "application/strategic-merge-patch+json"})
        assert response.status_code == 200, response.text

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(10)

    def _heartbeat(self) -> None:
        while not self._stop.wait(5):
            for name in NODES:
                self.http.patch(f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{name}",
                                json={"spec": {"renewTime": _micro_now()}},
                                headers={"Content-Type": "application/merge-patch+json"})
                self._node_status(name)

    def _run_pods(self) -> None:
        while not self._stop.wait(0.2):
            pods = self.http.get("/api/v1/pods").json().get("items", [])
            for pod in pods:
                meta, spec = pod["metadata"], pod["spec"]
                if spec.get("nodeName") not in NODES:
                    continue
                path = f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}"
                if meta.get("deletionTimestamp"):
                    self.http.request("DELETE", path, json={"gracePeriodSeconds": 0,
                                                            "preconditions": {"uid": meta["uid"]}})
                elif pod.get("status", {}).get("phase") != "Running":
                    self.http.patch(f"{path}/status", json=self._running(pod),
                                    headers={"Content-Type": "application/merge-patch+json"})

    @staticmethod
    def _running(pod: dict[str, Any]) -> dict[str, Any]:
        now = _now()
        containers = pod["spec"]["containers"]
        return {"status": {
            "phase": "Running", "hostIP": f"192.168.0.{NODES.index(pod['spec']['nodeName']) + 10}",
            "podIP": f"10.244.{NODES.index(pod['spec']['nodeName'])}.{abs(hash(pod['metadata']['uid'])) % 250 + 2}",
            "startTime": now,
            "conditions": [{"type": kind, "status": "True", "lastTransitionTime": now}
                           for kind in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                                        "PodScheduled")],
            "containerStatuses": [{"name": c["name"], "image": c["image"], "imageID": "", "ready": True,
                                   "restartCount": 0, "started": True, "containerID": f"fake://{c['name']}",
                                   "state": {"running": {"startedAt": now}}} for c in containers],
        }}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    workdir: Path = tmp_path_factory.mktemp("real-controllers")
    with ServerProcess(workdir / "fakeapi", "--controllers", "") as server:
        kubelets = FakeKubelets(httpx.Client(base_url=server.url, timeout=30))
        kubelets.register_nodes()
        kubelets.start()
        controller_manager = ControllerManager(workdir / "kcm", server.kubeconfig)
        scheduler = Scheduler(workdir / "scheduler", server.kubeconfig)
        try:
            yield server.http
        finally:
            kubelets.stop()
            for component in (scheduler, controller_manager):
                component.stop()
            for component in (controller_manager, scheduler):
                assert "panic" not in component.log_tail(200), component.log_tail(200)


def eventually(check: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}; last seen: {last!r}")


def _deployment(name: str, replicas: int, image: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "web", "image": image,
                                                       "resources": {"requests": {"cpu": "100m"}}}]}}},
    }


def _pods(http: httpx.Client, selector: str) -> list[dict[str, Any]]:
    return http.get(f"/api/v1/namespaces/{NAMESPACE}/pods", params={"labelSelector": selector}).json()["items"]


def _available(http: httpx.Client, name: str, replicas: int, image: str) -> bool:
    deployment = http.get(f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/{name}").json()
    status = deployment.get("status", {})
    pods = [p for p in _pods(http, f"app={name}") if not p["metadata"].get("deletionTimestamp")]
    return (status.get("observedGeneration") == deployment["metadata"]["generation"]
            and status.get("updatedReplicas") == replicas and status.get("availableReplicas") == replicas
            and status.get("replicas") == replicas and len(pods) == replicas
            and all(p["spec"].get("nodeName") in NODES and p["spec"]["containers"][0]["image"] == image for p in pods))


def test_deployment_rolls_out_scales_and_updates(cluster: httpx.Client) -> None:
    http = cluster
    response = http.post(f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments", json=_deployment("web", 3, "nginx:1"))
    assert response.status_code == 201, response.text
    eventually(lambda: _available(http, "web", 3, "nginx:1"), "3 available replicas bound to fake nodes")
    replica_sets = http.get(f"/apis/apps/v1/namespaces/{NAMESPACE}/replicasets", params={"labelSelector": "app=web"})
    assert len(replica_sets.json()["items"]) == 1

    scaled = http.patch(f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/web/scale", json={"spec": {"replicas": 5}},
                        headers={"Content-Type": "application/merge-patch+json"})
    assert scaled.status_code == 200, scaled.text
    eventually(lambda: _available(http, "web", 5, "nginx:1"), "scaled to 5")

    updated = http.patch(f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/web",
                         json={"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:2"}]}}}},
                         headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert updated.status_code == 200, updated.text
    eventually(lambda: _available(http, "web", 5, "nginx:2"), "rolled out to nginx:2")
    sets = http.get(f"/apis/apps/v1/namespaces/{NAMESPACE}/replicasets", params={"labelSelector": "app=web"}).json()
    assert sorted(replica_set["spec"]["replicas"] for replica_set in sets["items"]) == [0, 5]


def test_statefulset_comes_up_in_order_with_revisions(cluster: httpx.Client) -> None:
    http = cluster
    statefulset = {
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
        "spec": {"replicas": 3, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                 "template": {"metadata": {"labels": {"app": "db"}},
                              "spec": {"containers": [{"name": "db", "image": "postgres:16"}]}}},
    }
    response = http.post(f"/apis/apps/v1/namespaces/{NAMESPACE}/statefulsets", json=statefulset)
    assert response.status_code == 201, response.text

    def ready() -> bool:
        status = http.get(f"/apis/apps/v1/namespaces/{NAMESPACE}/statefulsets/db").json().get("status", {})
        return status.get("readyReplicas") == 3 and status.get("currentReplicas") == 3

    eventually(ready, "3 ready StatefulSet pods")
    names = sorted(p["metadata"]["name"] for p in _pods(http, "app=db"))
    assert names == ["db-0", "db-1", "db-2"]
    created = sorted((p["metadata"]["creationTimestamp"], p["metadata"]["name"]) for p in _pods(http, "app=db"))
    assert [name for _, name in created] == names  # OrderedReady: one after the other
    revisions = http.get(f"/apis/apps/v1/namespaces/{NAMESPACE}/controllerrevisions",
                         params={"labelSelector": "app=db"}).json()["items"]
    assert len(revisions) == 1 and revisions[0]["metadata"]["ownerReferences"][0]["name"] == "db"


def test_garbage_collector_deletes_dependents(cluster: httpx.Client) -> None:
    http = cluster
    response = http.post(f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments", json=_deployment("gone", 2, "nginx:1"))
    assert response.status_code == 201, response.text
    eventually(lambda: _available(http, "gone", 2, "nginx:1"), "2 available replicas")
    deleted = http.request("DELETE", f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/gone",
                           json={"propagationPolicy": "Background"})
    assert deleted.status_code == 200, deleted.text

    def collected() -> bool:
        sets = http.get(f"/apis/apps/v1/namespaces/{NAMESPACE}/replicasets",
                        params={"labelSelector": "app=gone"}).json()["items"]
        return not sets and not _pods(http, "app=gone")

    eventually(collected, "the ReplicaSet and its pods collected")


def test_leader_leases_are_held(cluster: httpx.Client) -> None:
    http = cluster
    for name in ("kube-controller-manager", "kube-scheduler"):
        lease = eventually(lambda name=name: http.get(
            f"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/{name}").json().get("spec"), f"{name} lease")
        assert lease["holderIdentity"] and lease["leaseDurationSeconds"] == 15
