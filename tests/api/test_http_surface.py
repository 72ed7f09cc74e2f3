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
    # Ranges of media types the server writes, but not as asked: kube's handler refuses them.
    for accept in ("application/json;as=Nope;g=meta.k8s.io;v=v1", "application/json;as=Table;g=example.com;v=v1"):
        resp = httpx.get(ns, headers={"Accept": accept})
        assert resp.status_code == 406, accept
        assert resp.json()["reason"] == "NotAcceptable"
        assert resp.json()["message"] == ("only the following media types are accepted: application/json, "
                                          "application/yaml, application/vnd.kubernetes.protobuf")
    # The metadata of one object asked of a list (and the reverse) fails on the result, naming its Go type.
    assert httpx.get(ns, headers={"Accept": META}).json()["message"] == (
        "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)")
    assert httpx.get(f"{ns}/meta", headers={"Accept": META_LIST}).json()["message"] == (
        "you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)")
    # No media type the route produces (application/* is not */*): go-restful refuses them first,
    # listing the route's media types (a collection's GET also produces the watch streams).
    streams = ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
    for path, accept, produced in ((ns, "text/html", streams), (ns, "application/*", streams),
                                   (f"{ns}?watch=1", "text/html", streams), (f"{ns}/x", "text/html", ""),
                                   (f"{server.url}/api", "text/html", "")):
        resp = httpx.get(path, headers={"Accept": accept})
        assert resp.status_code == 406, (path, accept)
        assert resp.json()["message"] == ("406: Not Acceptable\n\nAvailable representations: application/json, "
                                          "application/yaml, application/vnd.kubernetes.protobuf" + produced)
        assert resp.json()["details"] == {}


def test_control_endpoints_reject_bad_bodies(server):
    for path, body in (("compact", b"[1]"), ("compact", b'{"revision": "x"}'),
                       ("faults/close-watches", b'{"resource": 3}'), ("faults/close-watches", b"{")):
        resp = httpx.post(f"{server.url}/fakeapi/v1/{path}", content=body)
        assert resp.status_code == 400 and resp.json()["reason"] == "BadRequest", (path, body)
    assert httpx.post(f"{server.url}/fakeapi/v1/faults/close-watches", json={"resource": "pods"}).json() == {"closed": 0}
