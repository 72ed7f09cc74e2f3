"""HTTP-level answers that clients rely on: /version, which versions are served, Status errors
for requests the server cannot decode, content negotiation, control endpoints. (Protobuf bodies:
test_protobuf.py.)"""

from __future__ import annotations

import httpx

from fakeapi.machinery.release import TARGET_RELEASE


def test_version_is_the_release_the_catalogue_serves(server):
    info = httpx.get(f"{server.url}/version").json()
    assert info["gitVersion"] == f"v{TARGET_RELEASE}.0"
    assert (info["major"], info["minor"]) == tuple(TARGET_RELEASE.split("."))


def test_malformed_json_is_400(server):
    resp = httpx.post(f"{server.url}/api/v1/namespaces/default/configmaps", content=b"{not json",
                      headers={"Content-Type": "application/json"})
    assert resp.status_code == 400 and resp.json()["reason"] == "BadRequest"


META_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
META = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"


def test_metadata_only_get_and_list(server):
    ns = f"{server.url}/api/v1/namespaces/default/configmaps"
    created = httpx.post(ns, json={"metadata": {"name": "meta", "labels": {"a": "b"}}, "data": {"k": "v"}}).json()
    # (client-go's metadata client offers protobuf first: test_protobuf_responses.py.)
    accept = f"{META_LIST},application/json"
    listed = httpx.get(ns, headers={"Accept": accept}).json()
    assert (listed["kind"], listed["apiVersion"]) == ("PartialObjectMetadataList", "meta.k8s.io/v1")
    item = next(i for i in listed["items"] if i["metadata"]["name"] == "meta")
    assert item == {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": created["metadata"]}
    got = httpx.get(f"{ns}/meta", headers={"Accept": META}).json()
    assert got == item
    # The full object is still served as stored.
    assert httpx.get(f"{ns}/meta").json() == created


def test_unservable_accept_is_406(server):
    ns = f"{server.url}/api/v1/namespaces/default/configmaps"
    for accept in ("text/html", META, "application/json;as=Nope;g=meta.k8s.io;v=v1",
                   "application/json;as=Table;g=example.com;v=v1"):
        resp = httpx.get(ns, headers={"Accept": accept})  # META names the item kind on a list: 406
        assert resp.status_code == 406, accept
        assert resp.json()["reason"] == "NotAcceptable"
        assert resp.json()["message"] == ("only the following media types are accepted: application/json, "
                                          "application/yaml, application/vnd.kubernetes.protobuf")
    watch = httpx.get(ns, params={"watch": "1"}, headers={"Accept": "text/html"})
    assert watch.status_code == 406
    assert watch.json()["message"] == ("only the following media types are accepted: application/json;stream=watch, "
                                       "application/vnd.kubernetes.protobuf;stream=watch")


def test_control_endpoints_reject_bad_bodies(server):
    for path, body in (("compact", b"[1]"), ("compact", b'{"revision": "x"}'),
                       ("faults/close-watches", b'{"resource": 3}'), ("faults/close-watches", b"{")):
        resp = httpx.post(f"{server.url}/fakeapi/v1/{path}", content=body)
        assert resp.status_code == 400 and resp.json()["reason"] == "BadRequest", (path, body)
    assert httpx.post(f"{server.url}/fakeapi/v1/faults/close-watches", json={"resource": "pods"}).json() == {"closed": 0}
