"""HTTP-level answers that clients rely on: /version, which versions are served, and Status
errors for requests the server cannot decode."""

from __future__ import annotations

import httpx

from fakeapi.registry.release import TARGET_RELEASE


def test_version_is_the_release_the_catalogue_serves(server):
    info = httpx.get(f"{server.url}/version").json()
    assert info["gitVersion"] == f"v{TARGET_RELEASE}.0"
    assert (info["major"], info["minor"]) == tuple(TARGET_RELEASE.split("."))


def test_one_version_is_served_per_storage_prefix(server):
    # autoscaling v1 and v2 share an etcd prefix, as do core and events.k8s.io events; without
    # conversions only one of each is served (never the same bytes under two shapes).
    groups = {g["name"]: [v["version"] for v in g["versions"]] for g in httpx.get(f"{server.url}/apis").json()["groups"]}
    assert groups["autoscaling"] == ["v2"]
    assert "events.k8s.io" not in groups
    assert httpx.get(f"{server.url}/apis/autoscaling/v1").status_code == 404
    core = {r["name"] for r in httpx.get(f"{server.url}/api/v1").json()["resources"]}
    assert "events" in core


def test_protobuf_body_is_415_with_accepted_types(server):
    resp = httpx.post(f"{server.url}/api/v1/namespaces/default/configmaps", content=b"k8s\x00",
                      headers={"Content-Type": "application/vnd.kubernetes.protobuf"})
    assert resp.status_code == 415
    body = resp.json()
    assert body["kind"] == "Status" and body["reason"] == "UnsupportedMediaType"
    assert body["message"] == ("the body of the request was in an unknown format - accepted media types include: "
                               "application/json, application/yaml")
    # nothing was created
    assert httpx.get(f"{server.url}/api/v1/namespaces/default/configmaps").json()["items"] == []


def test_malformed_json_is_400(server):
    resp = httpx.post(f"{server.url}/api/v1/namespaces/default/configmaps", content=b"{not json",
                      headers={"Content-Type": "application/json"})
    assert resp.status_code == 400 and resp.json()["reason"] == "BadRequest"
