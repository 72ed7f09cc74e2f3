"""Protobuf responses over HTTP, as kube-apiserver negotiates and frames them: GET, LIST, WATCH
(length-prefixed ``WatchEvent`` frames), writes, Status errors, ``PartialObjectMetadata``;
JSON where kube answers JSON (Table, custom resources, errors for conversion requests) and 406
where it refuses. The bytes of each object are the encoder's (checked against Go in
test_protobuf_encoding.py); here the plumbing is checked: envelopes, list framing, watch
framing, content types and negotiation. Real clients (client-go's typed informers, kubectl)
speak protobuf to fakeapi in tests/clientgo and test_kubectl.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from fakeapi.http.protobuf import MAGIC, message_json
from fakeapi.http.protobuf_encoding import encoder, envelope, message_name, read_watch_frames
from fakeapi.machinery.gotypes import UNKNOWN, message_class

PROTOBUF = "application/vnd.kubernetes.protobuf"
PREFERS_PROTOBUF = f"{PROTOBUF}, application/json"  # client-go 1.35's typed clients
NS = "/api/v1/namespaces/default"
META = "as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
META_LIST = "as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]},
}


@pytest.fixture(scope="module")
def http(server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        yield client


def create_config_map(http: httpx.Client, name: str, **data: str) -> dict[str, Any]:
    response = http.post(f"{NS}/configmaps", json={"metadata": {"name": name, "labels": {"t": "pb"}}, "data": data})
    assert response.status_code == 201, response.text
    return response.json()


def decode_body(body: bytes) -> dict[str, Any]:
    """A protobuf response body as the JSON Go prints for its object."""
    assert body.startswith(MAGIC), body[:40]
    unknown = message_class(UNKNOWN).FromString(body[len(MAGIC):])
    api_version, kind = unknown.typeMeta.apiVersion, unknown.typeMeta.kind
    return {"kind": kind, "apiVersion": api_version, **message_json(message_name(api_version, kind), unknown.raw)}


def encoded(obj: dict[str, Any]) -> bytes:
    """The object's protobuf body, as the encoder writes it."""
    message = encoder(message_name(obj["apiVersion"], obj["kind"]))(obj)  # type: ignore[arg-type]
    return envelope(obj["apiVersion"], obj["kind"], message)


def test_get_and_list_are_protobuf_when_preferred(http):
    created = create_config_map(http, "pb-get", a="b")
    got = http.get(f"{NS}/configmaps/pb-get", headers={"Accept": PREFERS_PROTOBUF})
    assert got.headers["content-type"] == PROTOBUF
    assert got.content == encoded(created)
    listed = http.get(f"{NS}/configmaps", params={"labelSelector": "t=pb"}, headers={"Accept": PROTOBUF})
    assert listed.headers["content-type"] == PROTOBUF
    as_json = http.get(f"{NS}/configmaps", params={"labelSelector": "t=pb"}).json()
    decoded = decode_body(listed.content)
    assert (decoded["kind"], decoded["apiVersion"]) == ("ConfigMapList", "v1")
    assert decoded["metadata"]["resourceVersion"] == as_json["metadata"]["resourceVersion"]
    assert [item["metadata"]["name"] for item in decoded["items"]] == ["pb-get"]
    # A LIST's items are the objects' messages as a GET's envelope holds them.
    list_message = message_class("k8s.io.api.core.v1.ConfigMapList")()
    list_message.ParseFromString(message_class("k8s.io.apimachinery.pkg.runtime.Unknown").FromString(
        listed.content[len(MAGIC):]).raw)
    assert encoded(created).find(list_message.items[0].SerializeToString()) > 0


def test_json_stays_the_default(http):
    create_config_map(http, "pb-json")
    for accept in (None, "application/json", "*/*", f"application/json, {PROTOBUF}", f"{PROTOBUF};q=0.5, application/json"):
        response = http.get(f"{NS}/configmaps/pb-json", headers={"Accept": accept} if accept else {})
        assert response.headers["content-type"] == "application/json", accept


def test_writes_answer_in_protobuf(http):
    created = http.post(f"{NS}/configmaps", json={"metadata": {"name": "pb-write"}, "data": {"x": "1"}},
                        headers={"Accept": PREFERS_PROTOBUF})
    assert (created.status_code, created.headers["content-type"]) == (201, PROTOBUF)
    stored = http.get(f"{NS}/configmaps/pb-write").json()
    assert created.content == encoded(stored)
    patched = http.patch(f"{NS}/configmaps/pb-write", content=b'{"data":{"x":"2"}}',
                         headers={"Content-Type": "application/merge-patch+json", "Accept": PREFERS_PROTOBUF})
    assert decode_body(patched.content)["data"] == {"x": "2"}
    deleted = decode_body(http.delete(f"{NS}/configmaps/pb-write", headers={"Accept": PREFERS_PROTOBUF}).content)
    assert (deleted["kind"], deleted["status"], deleted["details"]["name"]) == ("Status", "Success", "pb-write")


def test_errors_follow_the_accept_header(http):
    missing = f"{NS}/configmaps/pb-missing"
    response = http.get(missing, headers={"Accept": PREFERS_PROTOBUF})
    assert (response.status_code, response.headers["content-type"]) == (404, PROTOBUF)
    status = decode_body(response.content)
    assert (status["kind"], status["reason"], status["code"]) == ("Status", "NotFound", 404)
    assert status["details"] == {"name": "pb-missing", "kind": "configmaps"}
    # The metadata client asks for a conversion first: errors skip it and come in JSON (kube's
    # ErrorNegotiated allows no conversion).
    response = http.get(missing, headers={"Accept": f"{PROTOBUF};{META},application/json;{META},application/json"})
    assert response.headers["content-type"] == "application/json"
    assert response.json()["reason"] == "NotFound"


def test_partial_object_metadata_in_protobuf(http):
    created = create_config_map(http, "pb-meta", k="v")
    accept = f"{PROTOBUF};{META_LIST},application/json;{META_LIST},application/json"  # client-go's metadata client
    listed = http.get(f"{NS}/configmaps", params={"labelSelector": "t=pb"}, headers={"Accept": accept})
    assert listed.headers["content-type"] == PROTOBUF
    decoded = decode_body(listed.content)
    assert (decoded["kind"], decoded["apiVersion"]) == ("PartialObjectMetadataList", "meta.k8s.io/v1")
    assert {item["metadata"]["name"] for item in decoded["items"]} >= {"pb-meta"}
    got = http.get(f"{NS}/configmaps/pb-meta", headers={"Accept": f"{PROTOBUF};{META}"})
    one = decode_body(got.content)
    assert (one["kind"], one["apiVersion"]) == ("PartialObjectMetadata", "meta.k8s.io/v1")
    assert one["metadata"]["uid"] == created["metadata"]["uid"] and "data" not in one


def test_table_is_never_protobuf(http):
    create_config_map(http, "pb-table")
    table = "as=Table;g=meta.k8s.io;v=v1"
    response = http.get(f"{NS}/configmaps", headers={"Accept": f"{PROTOBUF};{table},application/json;{table}"})
    assert response.headers["content-type"] == "application/json" and response.json()["kind"] == "Table"
    refused = http.get(f"{NS}/configmaps", headers={"Accept": f"{PROTOBUF};{table}"})
    assert refused.status_code == 406
    assert refused.json()["message"] == ("only the following media types are accepted: application/json, "
                                         "application/yaml, application/vnd.kubernetes.protobuf")


def test_custom_resources_answer_json_to_a_protobuf_preference(http):
    assert http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
    widgets = "/apis/example.com/v1/namespaces/default/widgets"
    created = http.post(widgets, json={"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                                       "spec": {"size": 1}}, headers={"Accept": PREFERS_PROTOBUF})
    assert (created.status_code, created.headers["content-type"]) == (201, "application/json")
    assert http.get(widgets, headers={"Accept": PREFERS_PROTOBUF}).headers["content-type"] == "application/json"
    assert http.get(f"{widgets}/w", headers={"Accept": PROTOBUF}).status_code == 406
    # Their metadata and their errors are protobuf all the same.
    meta = http.get(f"{widgets}/w", headers={"Accept": f"{PROTOBUF};{META}"})
    assert meta.headers["content-type"] == PROTOBUF and decode_body(meta.content)["metadata"]["name"] == "w"
    missing = http.get(f"{widgets}/nope", headers={"Accept": PREFERS_PROTOBUF})
    assert missing.status_code == 404 and decode_body(missing.content)["reason"] == "NotFound"


def watch_body(http: httpx.Client, path: str, accept: str, **params: Any) -> tuple[str, bytes]:
    with http.stream("GET", path, params={"watch": "1", "timeoutSeconds": "1", **params},
                     headers={"Accept": accept}) as response:
        return response.headers["content-type"], response.read()


def test_watch_frames_events_and_the_watch_list_bookmark(http):
    created = create_config_map(http, "pb-watch", a="1")
    content_type, body = watch_body(http, f"{NS}/configmaps", PREFERS_PROTOBUF, labelSelector="t=pb",
                                    sendInitialEvents="true", allowWatchBookmarks="true",
                                    resourceVersionMatch="NotOlderThan")
    assert content_type == f"{PROTOBUF};stream=watch"
    events = read_watch_frames(body)
    added = {decode_body(raw)["metadata"]["name"]: raw for kind, raw in events if kind == "ADDED"}
    assert added["pb-watch"] == encoded(created)
    bookmarks = [decode_body(raw) for kind, raw in events if kind == "BOOKMARK"]
    # One bookmark only: a watch of less than 2 s gets no periodic one (kube's nextBookmarkTime).
    assert [kind for kind, _raw in events] == ["ADDED"] * len(added) + ["BOOKMARK"]
    assert bookmarks[0]["kind"] == "ConfigMap"
    # kube-apiserver 1.35 marks the end of the initial events with this annotation alone.
    assert bookmarks[0]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert set(bookmarks[0]["metadata"]) == {"resourceVersion", "annotations"}


def test_watch_of_metadata_and_a_too_old_resource_version(http):
    create_config_map(http, "pb-watch-meta")
    _type, body = watch_body(http, f"{NS}/configmaps", f"{PROTOBUF};{META}", labelSelector="t=pb")
    names = {decode_body(raw)["metadata"]["name"] for kind, raw in read_watch_frames(body) if kind == "ADDED"}
    assert "pb-watch-meta" in names
    assert all(decode_body(raw)["kind"] == "PartialObjectMetadata" for _kind, raw in read_watch_frames(body))
    http.post("/fakeapi/v1/faults/restart")  # the watch cache forgets its history: old versions are gone
    _type, body = watch_body(http, f"{NS}/configmaps", PREFERS_PROTOBUF, resourceVersion="1")
    [(kind, raw)] = read_watch_frames(body)
    status = decode_body(raw)
    assert (kind, status["kind"], status["code"], status["reason"]) == ("ERROR", "Status", 410, "Expired")


def test_other_served_versions_encode_their_own_kind(http):
    created = http.post("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", json={
        "metadata": {"name": "pb-hpa"}, "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
                                                "minReplicas": 1, "maxReplicas": 3}})
    assert created.status_code == 201, created.text
    v1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/pb-hpa"
    response = http.get(v1, headers={"Accept": PREFERS_PROTOBUF})
    assert response.content == encoded(http.get(v1).json())
    assert decode_body(response.content)["apiVersion"] == "autoscaling/v1"


def test_scale_subresource_in_protobuf(http):
    deployment = {"metadata": {"name": "pb-scale"}, "spec": {
        "replicas": 2, "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    assert http.post("/apis/apps/v1/namespaces/default/deployments", json=deployment).status_code == 201
    response = http.get("/apis/apps/v1/namespaces/default/deployments/pb-scale/scale", headers={"Accept": PROTOBUF})
    scale = decode_body(response.content)
    assert (scale["apiVersion"], scale["kind"], scale["spec"]) == ("autoscaling/v1", "Scale", {"replicas": 2})


def test_stored_value_of_the_wrong_type_is_an_internal_error_not_a_crash(http):
    """An object kube would not have accepted (fakeapi does not check every type yet): its
    protobuf GET is a 500 Status, the rest of the server unharmed."""
    response = http.post(f"{NS}/configmaps", content=orjson.dumps({"metadata": {"name": "pb-bad"}, "immutable": "yes"}),
                         headers={"Content-Type": "application/json"})
    if response.status_code != 201:  # once fakeapi checks the value on write, as kube does
        assert response.status_code in (400, 422), response.text
        return
    bad = http.get(f"{NS}/configmaps/pb-bad", headers={"Accept": PREFERS_PROTOBUF})
    assert bad.status_code == 500 and decode_body(bad.content)["reason"] == "InternalError"
    assert http.get(f"{NS}/configmaps/pb-bad").json()["immutable"] == "yes"


def cached_views(fakeapi: Any, name: str) -> dict[str, bytes]:
    """The encodings the watch cache holds for one ConfigMap of the in-process server."""
    def views(server: Any) -> dict[str, bytes]:
        store = server.registry.resources[("", "v1", "configmaps")]
        cached = store.cacher.cache.objects[store.key("default", name)]
        return dict(cached.views or {})
    return fakeapi.server_call(views)


def test_each_object_version_is_encoded_once(fakeapi):
    """A write answered in protobuf leaves its bytes with the watch cache: the LISTs, GETs and
    watches that follow serve them without encoding the object again; JSON writes leave nothing."""
    http = fakeapi.http
    response = http.post(f"{NS}/configmaps", json={"metadata": {"name": "once"}, "data": {"a": "1"}},
                         headers={"Accept": PREFERS_PROTOBUF})
    fakeapi.wait_for("configmaps", "once", namespace="default")
    view = "protobuf:k8s.io.api.core.v1.ConfigMap"
    message = cached_views(fakeapi, "once")[view]
    assert response.content.find(message) > 0  # the very message the response carried
    listed = http.get(f"{NS}/configmaps", headers={"Accept": PROTOBUF}).content
    assert listed.find(message) > 0
    http.post(f"{NS}/configmaps", json={"metadata": {"name": "json"}})
    fakeapi.wait_for("configmaps", "json", namespace="default")
    assert cached_views(fakeapi, "json") == {}
    http.get(f"{NS}/configmaps/json", headers={"Accept": PROTOBUF})  # a GET encodes the cached copy
    assert view in cached_views(fakeapi, "json")


def test_written_objects_reach_the_cache_with_what_selectors_match(fakeapi):
    """A write hands the watch cache its object's labels and fields with its encodings (as
    kube's cacher keeps each event's): LISTs with selectors decode none of the written objects.
    The store's decoder of selectors refuses here, so a LIST that needed it would fail."""
    http = fakeapi.http

    def refuse_decoding(server: Any, refuse: bool) -> None:
        store = server.registry.resources[("", "v1", "configmaps")]
        if refuse:
            def refused(raw: bytes) -> Any:
                raise AssertionError("decoded a written object for its selectors")
            store._decode_selectors = refused
        else:
            store._decode_selectors = store._selectors

    fakeapi.server_call(lambda server: refuse_decoding(server, True))
    try:
        for name, tier in (("sel-a", "web"), ("sel-b", "db")):
            assert http.post(f"{NS}/configmaps", json={"metadata": {"name": name, "labels": {"tier": tier}}},
                             headers={"Accept": PREFERS_PROTOBUF}).status_code == 201
        # a new version's labels replace the old ones; its protobuf answer is kept beside them
        assert http.patch(f"{NS}/configmaps/sel-b", json={"metadata": {"labels": {"tier": "web"}}},
                          headers={"Content-Type": "application/merge-patch+json",
                                   "Accept": PREFERS_PROTOBUF}).status_code == 200
        fakeapi.wait_for("configmaps", "sel-b", namespace="default")

        def names(query: str) -> list[str]:
            listed = http.get(f"{NS}/configmaps?{query}&resourceVersion=0")
            assert listed.status_code == 200, listed.text
            return sorted(item["metadata"]["name"] for item in listed.json()["items"])

        assert names("labelSelector=tier%3Dweb") == ["sel-a", "sel-b"]
        assert names("labelSelector=tier%3Ddb") == []
        assert names("fieldSelector=metadata.name%3Dsel-b") == ["sel-b"]
        assert "protobuf:k8s.io.api.core.v1.ConfigMap" in cached_views(fakeapi, "sel-b")
    finally:
        fakeapi.server_call(lambda server: refuse_decoding(server, False))


def test_a_superseded_version_drops_its_encodings_and_is_served_again_all_the_same(fakeapi):
    """The cache keeps encodings of current objects only: an update drops the old version's
    (which would double the memory of the history), and a watch from before the update, which
    needs the old version again, gets it encoded anew, equal to what the write answered."""
    http = fakeapi.http
    first = http.post(f"{NS}/configmaps", json={"metadata": {"name": "superseded"}, "data": {"a": "1"}},
                      headers={"Accept": PREFERS_PROTOBUF})
    fakeapi.wait_for("configmaps", "superseded", namespace="default")
    view = "protobuf:k8s.io.api.core.v1.ConfigMap"
    assert view in cached_views(fakeapi, "superseded")
    before = http.get(f"{NS}/configmaps").json()["metadata"]["resourceVersion"]
    created_rv = decode_body(first.content)["metadata"]["resourceVersion"]
    second = http.put(f"{NS}/configmaps/superseded", headers={"Accept": PREFERS_PROTOBUF},
                      json={"metadata": {"name": "superseded", "resourceVersion": created_rv}, "data": {"a": "2"}})
    assert second.status_code == 200, second.text
    fakeapi.wait_for("configmaps", "superseded", namespace="default")

    def superseded_views(server: Any) -> list[dict[str, bytes] | None]:
        store = server.registry.resources[("", "v1", "configmaps")]
        key = store.key("default", "superseded")
        return [event.obj.views for event in store.cacher.cache.buffer if event.obj.key == key]

    old_views, new_views = fakeapi.server_call(superseded_views)
    assert old_views is None and view in new_views
    _content_type, body = watch_body(http, f"{NS}/configmaps", PREFERS_PROTOBUF, resourceVersion=str(int(before) - 1),
                                     fieldSelector="metadata.name=superseded")
    frames = [(kind, raw) for kind, raw in read_watch_frames(body) if kind in ("ADDED", "MODIFIED")]
    assert frames == [("ADDED", first.content), ("MODIFIED", second.content)]
