"""The subresources and create-only APIs as real clients use them: kubectl v1.35.4 (``auth whoami``,
``auth can-i``, ``create token``, ``drain`` through evictions) and the real kube-scheduler v1.35.4
binding pods to a node, all against one ``fakeapi serve`` process. Their answers are checked
against kube-apiserver's in ``tests/kasdiff/test_subresources.py``; here the clients judge."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from fakeapi.testing import ServerProcess
from fakeapi.cluster.control_plane import Scheduler, kubectl_binary
from fakeapi.testing.eventually import eventually

MERGE = "application/merge-patch+json"


@pytest.fixture(scope="module")
def kubectl(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., subprocess.CompletedProcess[str]]:
    """kubectl v1.35.4 (built by scripts/build-kube.sh) against the server."""
    binary = str(kubectl_binary())
    env = {**os.environ, "KUBECONFIG": str(server.kubeconfig), "KUBECACHEDIR": str(tmp_path_factory.mktemp("kubecache"))}

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=60)
        if check and proc.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed: {proc.stderr}")
        return proc

    return run


def _setup(http: httpx.Client, method: str, path: str, body: Any, content_type: str = "application/json") -> Any:
    response = http.request(method, path, content=json.dumps(body), headers={"Content-Type": content_type})
    assert response.status_code < 300, response.text
    return response.json()


def _ready_node(http: httpx.Client, name: str, labels: dict[str, str]) -> None:
    """A node the scheduler may use: Ready, with room, no taints (nobody runs a kubelet here;
    the not-ready taint TaintNodesByCondition puts on a new node goes, as kube-controller-
    manager's node lifecycle controller removes it from a Ready node)."""
    _setup(http, "POST", "/api/v1/nodes", {"metadata": {"name": name, "labels": labels}})
    _setup(http, "PATCH", f"/api/v1/nodes/{name}", {"spec": {"taints": None}}, MERGE)
    room = {"cpu": "8", "memory": "32Gi", "pods": "110"}
    _setup(http, "PATCH", f"/api/v1/nodes/{name}/status", {"status": {
        "capacity": room, "allocatable": room,
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "fake",
                        "lastHeartbeatTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}},
           MERGE)
    # The not-ready taint TaintNodesByCondition put on the new node goes, as kube-controller-manager's
    # node lifecycle controller removes it once the node is Ready.
    _setup(http, "PATCH", f"/api/v1/nodes/{name}", {"spec": {"taints": None}}, MERGE)


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def test_kubectl_auth_whoami_and_can_i(kubectl: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    me = json.loads(kubectl("auth", "whoami", "-o", "json").stdout)["status"]["userInfo"]
    assert me == {"username": "admin", "uid": "admin-uid", "groups": ["system:masters", "system:authenticated"]}
    jane = json.loads(kubectl("auth", "whoami", "-o", "json", "--as", "jane", "--as-group", "devs").stdout)
    assert jane["status"]["userInfo"] == {"username": "jane", "groups": ["devs", "system:authenticated"]}
    assert kubectl("auth", "can-i", "create", "pods").stdout.strip() == "yes"
    assert kubectl("auth", "can-i", "delete", "nodes", "--as", "system:serviceaccount:default:nobody").stdout.strip() == "yes"
    assert kubectl("auth", "can-i", "get", "/healthz").stdout.strip() == "yes"
    rules = kubectl("auth", "can-i", "--list", "-n", "default").stdout.splitlines()
    assert rules[1].split()[:1] == ["*.*"] and "[*]" in rules[2]


def test_kubectl_create_token(kubectl: Callable[..., subprocess.CompletedProcess[str]], server: ServerProcess) -> None:
    kubectl("create", "serviceaccount", "robot", "-n", "default")
    account = json.loads(kubectl("get", "serviceaccount", "robot", "-n", "default", "-o", "json").stdout)
    token = kubectl("create", "token", "robot", "-n", "default", "--duration", "20m", "--audience", "vault").stdout.strip()
    header, payload, signature = token.split(".")
    # Signed by the key the issuer publishes.
    issuer = server.http.get("/.well-known/openid-configuration").json()
    keys = httpx.get(issuer["jwks_uri"]).json()["keys"]
    (key,) = [k for k in keys if k["kid"] == json.loads(_unb64(header))["kid"]]
    public = rsa.RSAPublicNumbers(int.from_bytes(_unb64(key["e"]), "big"), int.from_bytes(_unb64(key["n"]), "big")).public_key()
    public.verify(_unb64(signature), f"{header}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())
    claims = json.loads(_unb64(payload))
    assert claims["iss"] == issuer["issuer"] and claims["aud"] == ["vault"]
    assert claims["sub"] == "system:serviceaccount:default:robot" and claims["exp"] - claims["iat"] == 1200
    assert claims["kubernetes.io"] == {"namespace": "default", "serviceaccount": {
        "name": "robot", "uid": account["metadata"]["uid"]}}
    # The token identifies its service account (sent by hand: kubectl sends no credentials to a
    # server without TLS); kube's minimum lifetime is enforced.
    api_token = kubectl("create", "token", "robot", "-n", "default").stdout.strip()
    review = server.http.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", json={},
                              headers={"Authorization": f"Bearer {api_token}"})
    whoami = review.json()["status"]["userInfo"]
    assert whoami["username"] == "system:serviceaccount:default:robot"
    assert whoami["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]
    checked = server.http.post("/apis/authentication.k8s.io/v1/tokenreviews", json={"spec": {"token": token,
                                                                                              "audiences": ["vault"]}})
    assert checked.json()["status"]["user"]["username"] == "system:serviceaccount:default:robot"
    short = kubectl("create", "token", "robot", "-n", "default", "--duration", "5m", check=False)
    assert short.returncode != 0 and "may not specify a duration less than 10 minutes" in short.stderr


def test_kubectl_drain_evicts_within_the_budget(kubectl: Callable[..., subprocess.CompletedProcess[str]],
                                                server: ServerProcess) -> None:
    http = server.http
    _setup(http, "POST", "/api/v1/namespaces", {"metadata": {"name": "drain"}})
    _ready_node(http, "drained", {"kubernetes.io/hostname": "drained"})
    for name in ("web-1", "web-2"):
        _setup(http, "POST", "/api/v1/namespaces/drain/pods", {"metadata": {"name": name, "labels": {"app": "web"}},
                                                                "spec": {"nodeName": "drained", "containers": [
                                                                    {"name": "c", "image": "nginx"}]}})
        _setup(http, "PATCH", f"/api/v1/namespaces/drain/pods/{name}/status",
               {"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}, MERGE)
    kubectl("create", "poddisruptionbudget", "web", "-n", "drain", "--selector", "app=web", "--min-available", "1")
    budget_status = "/apis/policy/v1/namespaces/drain/poddisruptionbudgets/web/status"
    _setup(http, "PATCH", budget_status, {"status": {"observedGeneration": 1, "disruptionsAllowed": 0,
                                                     "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 2}}, MERGE)
    blocked = kubectl("drain", "drained", "--force", "--timeout", "3s", check=False)
    assert blocked.returncode != 0
    assert "Cannot evict pod as it would violate the pod's disruption budget" in blocked.stderr
    assert len(http.get("/api/v1/namespaces/drain/pods").json()["items"]) == 2
    _setup(http, "PATCH", budget_status, {"status": {"disruptionsAllowed": 2, "desiredHealthy": 0}}, MERGE)
    drained = kubectl("drain", "drained", "--force", "--timeout", "30s")
    assert "node/drained drained" in drained.stdout
    assert http.get("/api/v1/namespaces/drain/pods").json()["items"] == []
    assert http.get("/api/v1/nodes/drained").json()["spec"]["unschedulable"] is True
    budget = http.get("/apis/policy/v1/namespaces/drain/poddisruptionbudgets/web").json()
    assert budget["status"]["disruptionsAllowed"] == 0
    assert set(budget["status"]["disruptedPods"]) == {"web-1", "web-2"}


@pytest.fixture(scope="module")
def scheduler(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scheduler]:
    with Scheduler(tmp_path_factory.mktemp("scheduler"), Path(server.kubeconfig), leader_elect=False) as running:
        yield running


def test_real_scheduler_binds_pods(scheduler: Scheduler, server: ServerProcess) -> None:
    http = server.http
    _setup(http, "POST", "/api/v1/namespaces", {"metadata": {"name": "scheduled"}})
    _ready_node(http, "worker", {"kubernetes.io/hostname": "worker", "topology.kubernetes.io/zone": "zone-a",
                                 "disk": "ssd"})
    containers = [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}]
    _setup(http, "POST", "/api/v1/namespaces/scheduled/pods", {"metadata": {"name": "fits"}, "spec": {
        "schedulerName": "default-scheduler", "containers": containers}})
    _setup(http, "POST", "/api/v1/namespaces/scheduled/pods", {"metadata": {"name": "nowhere"}, "spec": {
        "schedulerName": "default-scheduler", "nodeSelector": {"disk": "tape"}, "containers": containers}})

    def bound() -> dict[str, Any] | None:
        pod = http.get("/api/v1/namespaces/scheduled/pods/fits").json()
        return pod if pod["spec"].get("nodeName") else None
    pod = eventually(bound, "the scheduler binds the pod", timeout=30)
    assert pod["spec"]["nodeName"] == "worker"
    assert [(c["type"], c["status"]) for c in pod["status"]["conditions"]] == [("PodScheduled", "True")]
    assert pod["metadata"]["labels"]["topology.kubernetes.io/zone"] == "zone-a"  # PodTopologyLabels

    def unschedulable() -> dict[str, Any] | None:
        pod = http.get("/api/v1/namespaces/scheduled/pods/nowhere").json()
        conditions = pod.get("status", {}).get("conditions") or []
        return pod if any(c["type"] == "PodScheduled" and c.get("reason") == "Unschedulable" for c in conditions) else None
    pod = eventually(unschedulable, "the scheduler reports the pod unschedulable", timeout=30)
    assert not pod["spec"].get("nodeName")


def test_kubectl_debug_and_resize(kubectl: Callable[..., subprocess.CompletedProcess[str]], server: ServerProcess) -> None:
    # kubectl debug reads spec.securityContext, which kube defaults to {} (given here until the
    # pod defaults are ported).
    kubectl("run", "debugged", "--image", "nginx", "--overrides", '{"spec": {"securityContext": {}}}')
    kubectl("debug", "debugged", "--image", "busybox", "-c", "debugger", "--attach=false", "--profile", "general")
    pod = server.http.get("/api/v1/namespaces/default/pods/debugged").json()
    assert [(c["name"], c["image"]) for c in pod["spec"]["ephemeralContainers"]] == [("debugger", "busybox")]
    assert [c["name"] for c in pod["spec"]["containers"]] == ["debugged"]
    kubectl("patch", "pod", "debugged", "--subresource", "resize", "-p",
            '{"spec": {"containers": [{"name": "debugged", "image": "ignored", "resources": {"requests": {"cpu": "250m"}}}]}}')
    pod = server.http.get("/api/v1/namespaces/default/pods/debugged").json()
    assert pod["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "250m"}}
    assert pod["spec"]["containers"][0]["image"] == "nginx"
    refused = kubectl("patch", "pod", "debugged", "--subresource", "resize", "--type", "json", "-p",
                      '[{"op": "remove", "path": "/spec/containers/0/resources/requests"}]', check=False)
    assert refused.returncode != 0 and "resource requests cannot be removed" in refused.stderr
