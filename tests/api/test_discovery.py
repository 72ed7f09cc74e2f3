"""Discovery: the aggregated documents (``apidiscovery.k8s.io/v2``) kubectl and client-go ask
``/api`` and ``/apis`` for, in JSON and protobuf, with kube's ETag and 304; the legacy documents
for any other Accept header (in protobuf too); both telling the same resources, custom resources
coming and going with their definitions."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fakeapi.http.protobuf import MAGIC, message_json
from fakeapi.http.protobuf_encoding import message_name
from fakeapi.machinery.gotypes import UNKNOWN, message_class

PROTOBUF = "application/vnd.kubernetes.protobuf"
AS_V2 = "g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
AS_V2BETA1 = "g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
#: What client-go 1.35's discovery client sends (``acceptDiscoveryFormats``).
CLIENT_GO = f"application/json;{AS_V2},application/json;{AS_V2BETA1},application/json"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "sprockets.disco.example.com"},
    "spec": {"group": "disco.example.com", "scope": "Cluster",
             "names": {"plural": "sprockets", "singular": "sprocket", "kind": "Sprocket", "shortNames": ["spr"]},
             "versions": [{"name": name, "served": True, "storage": name == "v1", "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
                          for name in ("v1", "v2beta1")]},
}


@pytest.fixture(scope="module")
def http(server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        yield client


def decode(body: bytes) -> dict[str, Any]:
    unknown = message_class(UNKNOWN).FromString(body[len(MAGIC):])
    api_version, kind = unknown.typeMeta.apiVersion, unknown.typeMeta.kind
    return {"kind": kind, "apiVersion": api_version,
            **message_json(message_name(api_version or "v1", kind), unknown.raw)}


def aggregated(http: httpx.Client, path: str) -> dict[str, Any]:
    response = http.get(path, headers={"Accept": CLIENT_GO})
    assert response.headers["content-type"] == f"application/json;{AS_V2}"
    return response.json()


def test_aggregated_documents_of_the_core_and_the_groups(http):
    core = aggregated(http, "/api")
    assert (core["kind"], core["apiVersion"], core["metadata"]) == ("APIGroupDiscoveryList", "apidiscovery.k8s.io/v2", {})
    [group] = core["items"]
    assert group["metadata"] == {} and [v["version"] for v in group["versions"]] == ["v1"]
    pods = next(r for r in group["versions"][0]["resources"] if r["resource"] == "pods")
    assert pods["responseKind"] == {"group": "", "version": "", "kind": "Pod"}
    assert (pods["scope"], pods["singularResource"], pods["shortNames"], pods["categories"]) == (
        "Namespaced", "pod", ["po"], ["all"])
    assert {"subresource": "status", "responseKind": {"group": "", "version": "", "kind": "Pod"},
            "verbs": ["get", "patch", "update"]} in pods["subresources"]
    groups = aggregated(http, "/apis")["items"]
    names = [g["metadata"]["name"] for g in groups]
    assert "" not in names and names[:2] == ["apiregistration.k8s.io", "apps"]  # kube's group priority order
    autoscaling = next(g for g in groups if g["metadata"]["name"] == "autoscaling")
    assert [v["version"] for v in autoscaling["versions"]] == ["v2", "v1"] and autoscaling["versions"][0]["freshness"] == "Current"
    deployments = next(r for g in groups if g["metadata"]["name"] == "apps"
                       for r in g["versions"][0]["resources"] if r["resource"] == "deployments")
    scale = next(s for s in deployments["subresources"] if s["subresource"] == "scale")
    assert scale["responseKind"] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}


def test_aggregated_and_legacy_documents_agree(http):
    legacy_groups = http.get("/apis").json()["groups"]
    groups = {"": aggregated(http, "/api")["items"][0], **{g["metadata"]["name"]: g for g in aggregated(http, "/apis")["items"]}}
    assert [g["name"] for g in legacy_groups] == [name for name in groups if name]
    for name, group in groups.items():
        for version in group["versions"]:
            path = f"/apis/{name}/{version['version']}" if name else "/api/v1"
            legacy = {r["name"]: r for r in http.get(path).json()["resources"]}
            for resource in version["resources"]:
                entry = legacy.pop(resource["resource"])
                assert (entry["kind"], entry["verbs"], entry["namespaced"], entry["singularName"]) == (
                    resource["responseKind"]["kind"], resource["verbs"], resource["scope"] == "Namespaced",
                    resource["singularResource"])
                for sub in resource.get("subresources", []):
                    assert legacy.pop(f"{resource['resource']}/{sub['subresource']}")["verbs"] == sub["verbs"]
            assert legacy == {}, path


def test_etag_and_not_modified(http):
    first = http.get("/apis", headers={"Accept": CLIENT_GO})
    etag = first.headers["etag"]
    assert re.fullmatch(r'"[0-9A-F]{128}"', etag)
    assert (first.headers["vary"], first.headers["cache-control"]) == ("Accept", "public")
    again = http.get("/apis", headers={"Accept": CLIENT_GO, "If-None-Match": etag})
    assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", etag)
    stale = http.get("/apis", headers={"Accept": CLIENT_GO, "If-None-Match": '"0"'})
    assert stale.status_code == 200 and stale.content == first.content
    assert http.get("/api", headers={"Accept": CLIENT_GO}).headers["etag"] != etag


def test_protobuf_documents(http):
    response = http.get("/apis", headers={"Accept": f"{PROTOBUF};{AS_V2},application/json"})
    assert response.headers["content-type"] == f"{PROTOBUF};{AS_V2}"
    assert decode(response.content)["items"] == aggregated(http, "/apis")["items"]
    # The legacy documents, as kube envelopes them (no apiVersion for /api and /api/v1).
    for path, kind, api_version in (("/api", "APIVersions", ""), ("/apis", "APIGroupList", "v1"),
                                    ("/api/v1", "APIResourceList", ""), ("/apis/apps/v1", "APIResourceList", "v1")):
        response = http.get(path, headers={"Accept": f"{PROTOBUF}, application/json"})
        assert response.headers["content-type"] == PROTOBUF
        document = decode(response.content)
        assert (document["kind"], document["apiVersion"]) == (kind, api_version), path
        legacy = http.get(path).json()
        assert {k: v for k, v in document.items() if k not in ("kind", "apiVersion")}.keys() >= \
            {k for k in legacy if k not in ("kind", "apiVersion")}


def test_v2beta1_is_gone_in_1_35(http):
    """kube 1.35 serves only v2: a client asking v2beta1 first gets the legacy document, or 406
    when it accepts nothing else."""
    response = http.get("/api", headers={"Accept": f"application/json;{AS_V2BETA1},application/json"})
    assert response.headers["content-type"] == "application/json" and response.json()["kind"] == "APIVersions"
    assert http.get("/api", headers={"Accept": f"application/json;{AS_V2BETA1}"}).status_code == 406


def test_custom_resources_appear_and_disappear_with_their_definition(http):
    before = aggregated(http, "/apis")
    assert http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
    after = http.get("/apis", headers={"Accept": CLIENT_GO})
    group = next(g for g in after.json()["items"] if g["metadata"]["name"] == "disco.example.com")
    assert [v["version"] for v in group["versions"]] == ["v1", "v2beta1"]
    [sprockets] = group["versions"][0]["resources"]
    assert (sprockets["resource"], sprockets["scope"], sprockets["shortNames"]) == ("sprockets", "Cluster", ["spr"])
    assert [s["subresource"] for s in sprockets["subresources"]] == ["status"]
    assert after.json()["items"][-1] == group  # custom groups come after the built-in ones
    assert http.delete("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sprockets.disco.example.com").status_code == 200
    # The delete answers with the definition terminating; its finalizer (the custom resources'
    # cleanup) ends it a moment later, and discovery follows, as kube's does: eventually.
    deadline = time.monotonic() + 10
    while (gone := http.get("/apis", headers={"Accept": CLIENT_GO})).json()["items"] != before["items"]:
        assert time.monotonic() < deadline, "the deleted definition's group stays in discovery"
        time.sleep(0.01)
    assert gone.headers["etag"] != after.headers["etag"]


def test_kubectl_uses_aggregated_discovery(kubectl_env):
    log = subprocess.run(["kubectl", "api-resources", "-v=8"], env=kubectl_env, capture_output=True, text=True,
                         timeout=60)
    assert log.returncode == 0, log.stderr
    assert "deployments" in log.stdout and "apiregistration.k8s.io" in log.stdout
    assert re.search(r'"Response" status="200 OK" headers=', log.stderr)  # kubectl 1.35's -v=8 format
    assert f"application/json;{AS_V2}" in log.stderr  # the response's content type, logged by kubectl
    # Aggregated discovery needs no per-group-version request.
    assert "/apis/apps/v1" not in log.stderr.replace("/apis/apps/v1/", "")
    assert json.loads(subprocess.run(["kubectl", "get", "--raw", "/api"], env=kubectl_env, capture_output=True,
                                     text=True, timeout=60).stdout)["kind"] == "APIVersions"
