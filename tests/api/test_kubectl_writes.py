"""kubectl's writes against a real server: client-side apply (three-way strategic merge),
server-side apply with conflicts and --force-conflicts, patch of every type, label, annotate,
scale, dry runs, wait for a condition."""

from __future__ import annotations

import json

import pytest

NS = "writes"
DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: writes
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: "app:1", env: [{name: A, value: "1"}]}
      - {name: sidecar, image: "sidecar:1"}
"""


@pytest.fixture(scope="module", autouse=True)
def namespace(kubectl):
    kubectl("create", "namespace", NS)


def get(kubectl, *args: str) -> dict:
    return json.loads(kubectl("get", "-n", NS, "-o", "json", *args))


def test_client_side_apply_merges_three_ways(kubectl):
    assert "deployment.apps/web created" in kubectl("apply", "-f", "-", input=DEPLOYMENT)
    # Someone else changes a field kubectl apply does not manage; the next apply keeps it.
    kubectl("set", "env", "-n", NS, "deployment/web", "-c", "sidecar", "C=3")
    edited = DEPLOYMENT.replace('"app:1"', '"app:2"').replace('{name: A, value: "1"}', '{name: B, value: "2"}')
    assert "deployment.apps/web configured" in kubectl("apply", "-f", "-", input=edited)
    deployment = get(kubectl, "deployment", "web")
    containers = {c["name"]: c for c in deployment["spec"]["template"]["spec"]["containers"]}
    assert containers["app"]["image"] == "app:2" and containers["app"]["env"] == [{"name": "B", "value": "2"}]
    assert containers["sidecar"]["env"] == [{"name": "C", "value": "3"}]
    assert deployment["metadata"]["generation"] == 3
    assert "unchanged" in kubectl("apply", "-f", "-", input=edited)


def test_server_side_apply_conflicts_and_force(kubectl):
    manifest = DEPLOYMENT.replace("name: web", "name: ssa", 1).replace("app: web", "app: ssa")
    assert "serverside-applied" in kubectl("apply", "--server-side", "-f", "-", input=manifest)
    other = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ssa, namespace: writes}\nspec: {replicas: 3}\n"
    conflict = kubectl("apply", "--server-side", "--field-manager=scaler", "-f", "-", input=other, check=False)
    assert 'conflict with "kubectl": .spec.replicas' in conflict
    kubectl("apply", "--server-side", "--field-manager=scaler", "--force-conflicts", "-f", "-", input=other)
    deployment = get(kubectl, "deployment", "ssa", "--show-managed-fields")
    assert deployment["spec"]["replicas"] == 3
    managers = {m["manager"]: m for m in deployment["metadata"]["managedFields"]}
    assert "f:replicas" in managers["scaler"]["fieldsV1"]["f:spec"]
    assert "f:replicas" not in managers["kubectl"]["fieldsV1"]["f:spec"]


def test_patch_types_label_annotate_scale(kubectl):
    kubectl("create", "configmap", "-n", NS, "cm", "--from-literal=a=1")
    kubectl("patch", "-n", NS, "configmap", "cm", "--type=merge", "-p", '{"data":{"b":"2"}}')
    kubectl("patch", "-n", NS, "configmap", "cm", "--type=json", "-p", '[{"op":"remove","path":"/data/a"}]')
    kubectl("patch", "-n", NS, "configmap", "cm", "-p", '{"data":{"c":"3"}}')  # strategic
    assert get(kubectl, "configmap", "cm")["data"] == {"b": "2", "c": "3"}
    failed = kubectl("patch", "-n", NS, "configmap", "cm", "--type=json", "-p",
                     '[{"op":"test","path":"/data/b","value":"9"}]', check=False)
    assert "The request is invalid" in failed
    kubectl("label", "-n", NS, "configmap", "cm", "tier=x")
    kubectl("annotate", "-n", NS, "configmap", "cm", "note=y")
    meta = get(kubectl, "configmap", "cm")["metadata"]
    assert meta["labels"] == {"tier": "x"} and meta["annotations"] == {"note": "y"}
    kubectl("label", "-n", NS, "configmap", "cm", "tier-")
    assert "labels" not in get(kubectl, "configmap", "cm")["metadata"]
    kubectl("scale", "-n", NS, "deployment", "web", "--replicas=4")
    assert get(kubectl, "deployment", "web")["spec"]["replicas"] == 4


def test_server_dry_run_changes_nothing(kubectl):
    out = kubectl("scale", "-n", NS, "deployment", "web", "--replicas=9", "--dry-run=server")
    assert "(server dry run)" in out
    assert get(kubectl, "deployment", "web")["spec"]["replicas"] != 9
    kubectl("delete", "-n", NS, "deployment", "web", "--dry-run=server")
    assert get(kubectl, "deployment", "web")["metadata"]["name"] == "web"


def test_wait_for_condition_set_through_status(kubectl, api_client):
    from kubernetes import client

    apps = client.AppsV1Api(api_client)
    deployment = apps.read_namespaced_deployment("web", NS)
    deployment.status = client.V1DeploymentStatus(conditions=[client.V1DeploymentCondition(
        type="Available", status="True", reason="MinimumReplicasAvailable")])
    apps.replace_namespaced_deployment_status("web", NS, deployment)
    out = kubectl("wait", "-n", NS, "--for=condition=Available", "deployment/web", "--timeout=10s")
    assert "condition met" in out
