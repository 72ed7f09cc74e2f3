"""OpenAPI v3 through HTTP, and kubectl using it: schema-checked writes and ``explain``."""

from __future__ import annotations

import hashlib
import re
import subprocess

import httpx
import pytest

HASH = re.compile(r"[0-9A-F]{128}")

CONFIGMAP_AND_DEPLOYMENT = """
apiVersion: v1
kind: ConfigMap
metadata: {name: oa-cm}
data: {a: "%(value)s"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: oa-web}
spec:
  replicas: 1
  selector: {matchLabels: {app: oa-web}}
  template:
    metadata: {labels: {app: oa-web}}
    spec: {containers: [{name: c, image: "nginx:%(value)s"}]}
"""


def kubectl(env: dict[str, str], *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["kubectl", *args], env=env, input=input, capture_output=True, text=True, timeout=60)


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def root(server) -> httpx.Response:  # type: ignore[no-untyped-def]
    return httpx.get(f"{server.url}/openapi/v3")


def test_root_lists_each_group_version_with_its_hash(root: httpx.Response) -> None:
    assert root.status_code == 200
    assert root.headers["content-type"] == "application/json"
    assert root.headers["etag"] == '"' + hashlib.sha512(root.content).hexdigest().upper() + '"'
    paths = root.json()["paths"]
    assert {"api/v1", "apis/apps/v1", "apis/coordination.k8s.io/v1"} <= set(paths)
    url = paths["apis/apps/v1"]["serverRelativeURL"]
    prefix, _, digest = url.partition("?hash=")
    assert prefix == "/openapi/v3/apis/apps/v1" and HASH.fullmatch(digest)


def test_root_revalidates_with_its_etag(server, root: httpx.Response) -> None:  # type: ignore[no-untyped-def]
    again = httpx.get(f"{server.url}/openapi/v3", headers={"If-None-Match": root.headers["etag"]})
    assert again.status_code == 304 and not again.content


def test_document_at_its_hash_is_immutable(server, root: httpx.Response) -> None:  # type: ignore[no-untyped-def]
    url = root.json()["paths"]["apis/apps/v1"]["serverRelativeURL"]
    resp = httpx.get(server.url + url, headers={"Accept": "application/json"})
    assert resp.status_code == 200
    digest = url.split("hash=")[1]
    assert hashlib.sha512(resp.content).hexdigest().upper() == digest
    assert resp.headers["etag"] == f'"{digest}"'
    assert resp.headers["cache-control"] == "public, immutable"
    assert resp.headers["vary"] == "Accept"
    assert resp.headers["expires"].endswith(" UTC")

    unhashed = httpx.get(f"{server.url}/openapi/v3/apis/apps/v1")
    # Without its hash, the handler sets no Cache-Control: kube's filter's default is answered.
    assert unhashed.content == resp.content and unhashed.headers["cache-control"] == "no-cache, private"

    stale = httpx.get(f"{server.url}/openapi/v3/apis/apps/v1?hash=0123", follow_redirects=False)
    assert stale.status_code == 301 and stale.headers["location"] == url

    protobuf_only = httpx.get(server.url + url, headers={"Accept": "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"})
    assert protobuf_only.status_code == 406


def test_document_shape(server) -> None:  # type: ignore[no-untyped-def]
    doc = httpx.get(f"{server.url}/openapi/v3/apis/apps/v1").json()
    assert doc["openapi"] == "3.0.0"
    schemas = doc["components"]["schemas"]
    deployment = schemas["io.k8s.api.apps.v1.Deployment"]
    assert deployment["type"] == "object"
    assert deployment["x-kubernetes-group-version-kind"] == [{"group": "apps", "kind": "Deployment", "version": "v1"}]
    assert deployment["properties"]["spec"]["allOf"] == [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}]
    containers = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-merge-key"] == "name" and containers["x-kubernetes-patch-strategy"] == "merge"
    refs = set(re.findall(r'"#/components/schemas/([^"]+)"', httpx.get(f"{server.url}/openapi/v3/apis/apps/v1").text))
    assert refs <= set(schemas)  # every reference resolves within the document

    item = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]
    patch = item["patch"]
    assert patch["operationId"] == "patchAppsV1NamespacedDeployment"
    assert patch["x-kubernetes-action"] == "patch"
    assert patch["x-kubernetes-group-version-kind"] == {"group": "apps", "kind": "Deployment", "version": "v1"}
    assert [p["name"] for p in patch["parameters"]] == ["dryRun", "fieldManager", "fieldValidation", "force"]
    assert set(item) == {"delete", "get", "parameters", "patch", "put"}
    scale = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["put"]
    assert scale["x-kubernetes-group-version-kind"] == {"group": "autoscaling", "kind": "Scale", "version": "v1"}


def test_unknown_group_version_is_an_empty_404_as_in_kube(server) -> None:  # type: ignore[no-untyped-def]
    resp = httpx.get(f"{server.url}/openapi/v3/apis/nope.example.com/v1")
    assert resp.status_code == 404 and resp.content == b""


def test_create_replace_apply_are_validated_by_the_server(kubectl_env) -> None:  # type: ignore[no-untyped-def]
    """kubectl's default --validate=strict finds fieldValidation on the kinds' PATCH operations,
    skips client-side validation and asks the server for Strict."""
    manifests = CONFIGMAP_AND_DEPLOYMENT % {"value": "1"}
    created = kubectl(kubectl_env, "create", "-f", "-", "-v=6", input=manifests)
    assert "configmap/oa-cm created" in ok(created) and "deployment.apps/oa-web created" in created.stdout
    assert "fieldValidation=Strict" in created.stderr
    assert "/openapi/v2" not in created.stderr

    replaced = ok(kubectl(kubectl_env, "replace", "-f", "-", input=CONFIGMAP_AND_DEPLOYMENT % {"value": "2"}))
    assert "configmap/oa-cm replaced" in replaced and "deployment.apps/oa-web replaced" in replaced

    applied = ok(kubectl(kubectl_env, "apply", "-f", "-", input=APPLIED % {"value": "1"}))
    assert "configmap/oa-applied-cm created" in applied and "deployment.apps/oa-applied-web created" in applied


APPLIED = CONFIGMAP_AND_DEPLOYMENT.replace("oa-", "oa-applied-")


def test_apply_patches_with_v3_patch_metadata(kubectl_env) -> None:  # type: ignore[no-untyped-def]
    ok(kubectl(kubectl_env, "apply", "-f", "-", input=APPLIED % {"value": "1"}))
    reapplied = kubectl(kubectl_env, "apply", "-f", "-", "-v=6", input=APPLIED % {"value": "2"})
    assert "configmap/oa-applied-cm configured" in ok(reapplied)
    assert "deployment.apps/oa-applied-web configured" in reapplied.stdout
    assert "/openapi/v2" not in reapplied.stderr  # the strategic-merge patch's metadata came from v3


def test_unknown_field_is_rejected_by_the_server(kubectl_env) -> None:  # type: ignore[no-untyped-def]
    """With the server claiming fieldValidation, kubectl does not validate client-side: the
    manifest reaches the server with fieldValidation=Strict, and the server answers 400."""
    manifest = CONFIGMAP_AND_DEPLOYMENT.split("---")[1].replace("oa-web", "oa-unknown").replace(
        "replicas: 1", "replicas: 1\n  foo: bar") % {"value": "1"}
    out = kubectl(kubectl_env, "create", "-f", "-", input=manifest)
    assert ('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
            'unknown field "spec.foo"') in out.stderr
    assert "ValidationError" not in out.stderr  # the client-side validator's wording
    warned = kubectl(kubectl_env, "create", "--validate=warn", "-f", "-", input=manifest)
    assert 'unknown field "spec.foo"' in warned.stderr and "deployment.apps/oa-unknown created" in warned.stdout


def test_explain_reads_v3(kubectl_env) -> None:  # type: ignore[no-untyped-def]
    containers = ok(kubectl(kubectl_env, "explain", "pods.spec.containers"))
    assert "KIND:       Pod" in containers and "FIELD: containers <[]Container>" in containers
    assert "List of containers belonging to the pod." in containers
    assert re.search(r"^  name\t<string> -required-$", containers, re.MULTILINE)
    assert re.search(r"^  image\t<string>$", containers, re.MULTILINE)

    recursive = ok(kubectl(kubectl_env, "explain", "deployments.spec.strategy", "--recursive"))
    assert re.search(r"^  rollingUpdate\t<RollingUpdateDeployment>\n    maxSurge\t<IntOrString>$", recursive, re.MULTILINE)

    deployment = ok(kubectl(kubectl_env, "explain", "deployments", "--api-version", "apps/v1"))
    assert "GROUP:      apps" in deployment and "KIND:       Deployment" in deployment
    assert "Deployment enables declarative updates for Pods and ReplicaSets." in deployment
    assert re.search(r"^  spec\t<DeploymentSpec>$", deployment, re.MULTILINE)
