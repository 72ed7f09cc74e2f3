"""A whole fake cluster (``fakeapi_cluster``: fakeapi, the real kube-controller-manager and
kube-scheduler v1.35.4, kwok v0.8.0 with its fast stages, 5 nodes) runs workloads as a real one
does: a Deployment of 10 rolls out to Ready pods with IPs on the fake nodes, a rolling update to a
new image completes, a StatefulSet of 3 comes up one pod after the other, and the pods of a
deleted node are recreated on the others (the controller manager's pod GC removes them, ~40-60 s
after the node goes: kube's fixed quarantine and period).

The tests run in file order on one cluster; the node deletion is last (the cluster has one node
fewer after it)."""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.testing.client import FakeCluster

NAMESPACE = "default"
#: Pod GC deletes a missing node's pods after a 40 s quarantine, checking every 20 s.
NODE_GONE_TIMEOUT = 150.0
ROLLOUT_TIMEOUT = 60.0


def _deployment(name: str, replicas: int, image: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "web", "image": image,
                                                       "resources": {"requests": {"cpu": "100m"}}}]}}},
    }


def _live_pods(cluster: FakeCluster, app: str) -> list[dict[str, Any]]:
    pods = cluster.list("pods", NAMESPACE, label_selector=f"app={app}")
    return [pod for pod in pods if not pod["metadata"].get("deletionTimestamp")]


def _assert_running(cluster: FakeCluster, pods: list[dict[str, Any]], image: str | None = None) -> None:
    """Every pod bound to a node of the cluster, Running and Ready with an IP from its node's
    pod CIDR, as kwok's pod-ready stage makes it; running as the namespace's ``default``
    ServiceAccount with its token mounted (the ServiceAccount admission plugin is on)."""
    nodes = {node["metadata"]["name"]: node for node in cluster.list("nodes")}
    for pod in pods:
        name, spec, status = pod["metadata"]["name"], pod["spec"], pod["status"]
        assert spec["serviceAccountName"] == "default", (name, spec)
        assert spec["volumes"][0]["name"].startswith("kube-api-access-"), (name, spec["volumes"])
        assert spec.get("nodeName") in cluster.nodes, (name, spec.get("nodeName"))
        assert status["phase"] == "Running", (name, status)
        assert {"type": "Ready", "status": "True"}.items() <= next(
            c for c in status["conditions"] if c["type"] == "Ready").items(), (name, status["conditions"])
        prefix = nodes[spec["nodeName"]]["spec"]["podCIDR"].rsplit(".", 1)[0] + "."
        assert status["podIP"].startswith(prefix), (name, status["podIP"], prefix)
        if image is not None:
            assert spec["containers"][0]["image"] == image


def test_the_cluster_is_ready(fakeapi_cluster: FakeCluster) -> None:
    cluster = fakeapi_cluster
    nodes = cluster.list("nodes")
    assert sorted(node["metadata"]["name"] for node in nodes) == sorted(cluster.nodes) and len(nodes) == 5
    for node in nodes:
        ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
        assert ready["status"] == "True" and not node["spec"].get("taints"), node
    node_leases = {lease["metadata"]["name"]: lease for lease in cluster.list("leases", "kube-node-lease")}
    assert set(node_leases) == set(cluster.nodes)
    assert all(lease["spec"]["leaseDurationSeconds"] == 40 for lease in node_leases.values())
    for name in ("kube-controller-manager", "kube-scheduler"):
        assert cluster.get("leases", name, "kube-system")["spec"]["holderIdentity"]
    # fakeapi's own GC and namespace controllers are off: the real ones run.
    assert "--controllers" in cluster.cluster.components["fakeapi"].process.args


def test_deployment_rolls_out_and_updates_to_a_new_image(fakeapi_cluster: FakeCluster) -> None:
    cluster = fakeapi_cluster
    cluster.apply(_deployment("web", 10, "nginx:1.27"))
    cluster.wait_for_rollout("deployments.apps", "web", NAMESPACE, timeout=ROLLOUT_TIMEOUT)
    pods = _live_pods(cluster, "web")
    assert len(pods) == 10
    _assert_running(cluster, pods, "nginx:1.27")
    assert len({pod["spec"]["nodeName"] for pod in pods}) > 1  # the scheduler spreads them

    cluster.apply(_deployment("web", 10, "nginx:1.28"))
    updated = cluster.wait_for_rollout("deployments.apps", "web", NAMESPACE, timeout=ROLLOUT_TIMEOUT)
    assert updated["status"]["updatedReplicas"] == updated["status"]["availableReplicas"] == 10
    replica_sets = cluster.list("replicasets.apps", NAMESPACE, label_selector="app=web")
    assert sorted((replica_set["spec"]["replicas"], replica_set["spec"]["template"]["spec"]["containers"][0]["image"])
                  for replica_set in replica_sets) == [(0, "nginx:1.27"), (10, "nginx:1.28")]
    # kwok finishes the graceful deletion of the old pods, as a kubelet does.
    deadline = time.monotonic() + ROLLOUT_TIMEOUT
    while len(pods := cluster.list("pods", NAMESPACE, label_selector="app=web")) != 10:
        assert time.monotonic() < deadline, [(p["metadata"]["name"], p["metadata"].get("deletionTimestamp")) for p in pods]
        time.sleep(0.2)
    _assert_running(cluster, pods, "nginx:1.28")


def test_statefulset_comes_up_in_order(fakeapi_cluster: FakeCluster) -> None:
    cluster = fakeapi_cluster
    cluster.apply({
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": NAMESPACE},
        "spec": {"replicas": 3, "serviceName": "db", "podManagementPolicy": "OrderedReady",
                 "selector": {"matchLabels": {"app": "db"}},
                 "template": {"metadata": {"labels": {"app": "db"}},
                              "spec": {"containers": [{"name": "db", "image": "postgres:16"}]}}},
    })
    statefulset = cluster.wait_for_rollout("statefulsets.apps", "db", NAMESPACE, timeout=ROLLOUT_TIMEOUT)
    assert statefulset["status"]["readyReplicas"] == 3
    pods = _live_pods(cluster, "db")
    _assert_running(cluster, pods)
    # OrderedReady: each pod created once the one before it was Ready.
    by_ordinal = sorted(pods, key=lambda pod: pod["metadata"]["name"])
    assert [pod["metadata"]["name"] for pod in by_ordinal] == ["db-0", "db-1", "db-2"]
    for before, after in zip(by_ordinal, by_ordinal[1:], strict=False):
        ready_at = next(c for c in before["status"]["conditions"] if c["type"] == "Ready")["lastTransitionTime"]
        assert ready_at <= after["metadata"]["creationTimestamp"], (before, after)
    revisions = cluster.list("controllerrevisions.apps", NAMESPACE, label_selector="app=db")
    assert len(revisions) == 1 and revisions[0]["metadata"]["ownerReferences"][0]["name"] == "db"


def test_a_service_account_token_secret_authenticates(fakeapi_cluster: FakeCluster) -> None:
    """The controller manager's token controller fills a ``kubernetes.io/service-account-token``
    Secret with a legacy token signed with the key fakeapi verifies with: the token
    authenticates as the account, and fakeapi labels the Secret with the day it was used."""
    cluster = fakeapi_cluster
    cluster.apply({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
                   "metadata": {"name": "default-token", "namespace": NAMESPACE,
                                "annotations": {"kubernetes.io/service-account.name": "default"}}})
    secret = cluster.wait_for("secrets", "default-token", NAMESPACE, lambda s: "token" in s.get("data", {}),
                              timeout=ROLLOUT_TIMEOUT)
    token = base64.b64decode(secret["data"]["token"]).decode()
    response = cluster.http.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", json={},
                                 headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 201, response.text
    assert response.json()["status"]["userInfo"]["username"] == f"system:serviceaccount:{NAMESPACE}:default"
    labels = cluster.get("secrets", "default-token", NAMESPACE)["metadata"]["labels"]
    assert labels == {"kubernetes.io/legacy-token-last-used": datetime.now(UTC).strftime("%Y-%m-%d")}


def test_pods_of_a_deleted_node_are_recreated_elsewhere(fakeapi_cluster: FakeCluster) -> None:
    cluster = fakeapi_cluster
    cluster.wait_for_rollout("deployments.apps", "web", NAMESPACE, timeout=ROLLOUT_TIMEOUT)
    pods = _live_pods(cluster, "web")
    gone = pods[0]["spec"]["nodeName"]
    on_gone = {pod["metadata"]["name"] for pod in pods if pod["spec"]["nodeName"] == gone}
    cluster.delete("nodes", gone)

    def recreated(deployment: dict[str, Any]) -> bool:
        live = _live_pods(cluster, "web")
        return (len(live) == 10 and not any(pod["spec"].get("nodeName") == gone for pod in live)
                and deployment["status"].get("availableReplicas") == 10)

    cluster.wait_for("deployments.apps", "web", NAMESPACE, recreated, timeout=NODE_GONE_TIMEOUT)
    live = _live_pods(cluster, "web")
    assert not on_gone & {pod["metadata"]["name"] for pod in live}
    _assert_running(cluster, live, "nginx:1.28")
    assert {pod["spec"]["nodeName"] for pod in live} <= set(cluster.nodes) - {gone}


@pytest.fixture(scope="module", autouse=True)
def _no_panics(fakeapi_cluster: FakeCluster) -> Any:
    yield
    for component in fakeapi_cluster.cluster.components.values():
        assert "panic" not in component.log_tail(400), component.log_tail(400)
