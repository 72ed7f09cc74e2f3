"""Custom resource defaulting for requests and from storage, on fakeapi and on the real
kube-apiserver, as the conformance spec "custom resource defaulting for requests and from storage
works" (``test/e2e/apimachinery/custom_resource_definition.go``) goes and further: objects stored
before a default was added show it on GET, LIST (from the watch cache and at resourceVersion 0)
and in a watch's initial events, without being written (their resourceVersion stays); the next
write stores it (a PUT of the object as read, a JSON patch that only tests the defaulted field);
a default removed later stays in the objects that were written with it, and objects that were
not lose it; a default inside an object applies where that object is. Every answer compared:
code, body (resourceVersions renumbered per server, so a write one server made and the other
did not shows) and the ``Warning`` headers."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx
from differ import CRDS, Pair, check, serve_crd

GROUP = "defaults.kasdiff.example.com"
COLLECTION = f"/apis/{GROUP}/v1/gadgets"
CRD_NAME = f"gadgets.{GROUP}"


def _json(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def _gadget(name: str, **fields: Any) -> bytes:
    return _json({"apiVersion": f"{GROUP}/v1", "kind": "Gadget", "metadata": {"name": name}, **fields})


def _until(client: httpx.Client, path: str, ready: Callable[[dict[str, Any]], bool]) -> None:
    """Until ``client`` reads at ``path`` what ``ready`` wants: kube serves a changed CRD's
    schema a moment after the update."""
    deadline = time.monotonic() + 30
    while not ready(client.get(path).json()):
        assert time.monotonic() < deadline, f"{path} never became ready on {client.base_url}"
        time.sleep(0.1)


def _patch_crd(pair: Pair, case: str, operations: list[dict[str, Any]]) -> None:
    pair.send(case, "customresourcedefinitions", "patch", "PATCH", f"{CRDS}/{CRD_NAME}", body=_json(operations),
              content_type="application/json-patch+json", rewrite=lambda answer, _fake: answer.get("kind"))


def _reads(pair: Pair, case: str, *names: str) -> None:
    for name in names:
        pair.send(case, "gadgets", "get", "GET", f"{COLLECTION}/{name}")
    pair.send(case, "gadgets", "list", "GET", COLLECTION)
    pair.send(case, "gadgets", "list", "GET", f"{COLLECTION}?resourceVersion=0")
    pair.send(case, "gadgets", "watch", "GET", f"{COLLECTION}?watch=1&resourceVersion=0&timeoutSeconds=1")


def test_defaults_from_storage(pair: Pair) -> None:
    start = len(pair.outcomes)
    case = "defaulting-from-storage"
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "spec": {
        "type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "string"}}}}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": CRD_NAME},
           "spec": {"group": GROUP, "scope": "Cluster",
                    "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}]}}
    serve_crd(pair, crd, COLLECTION)
    # stored without defaults
    pair.send(case, "gadgets", "create", "POST", COLLECTION, body=_gadget("cr-1"))
    pair.send(case, "gadgets", "create", "POST", COLLECTION, body=_gadget("cr-put", spec={}))
    pair.send(case, "gadgets", "create", "POST", COLLECTION, body=_gadget("cr-test", spec={"y": "q"}))

    _patch_crd(pair, case, [
        {"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/a/default", "value": "A"},
        {"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/x/default",
         "value": 5}])
    for client in (pair.fake, pair.real):
        _until(client, f"{COLLECTION}/cr-1", lambda obj: "a" in obj)
    _reads(pair, case, "cr-1", "cr-put", "cr-test")

    # the next write stores what the read added
    put = {name: client.get(f"{COLLECTION}/cr-put").content for name, client in (("fake", pair.fake), ("real", pair.real))}
    pair.send(case, "gadgets", "update", "PUT", f"{COLLECTION}/cr-put", body=(put["fake"], put["real"]))
    pair.send(case, "gadgets", "patch", "PATCH", f"{COLLECTION}/cr-test",
              body=_json([{"op": "test", "path": "/a", "value": "A"}, {"op": "test", "path": "/spec/x", "value": 5}]),
              content_type="application/json-patch+json")
    # a request's defaults
    pair.send(case, "gadgets", "create", "POST", COLLECTION, body=_gadget("cr-2", spec={"y": "z"}))

    _patch_crd(pair, case, [
        {"op": "remove", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/a/default"},
        {"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/b/default", "value": "B"}])
    for client in (pair.fake, pair.real):
        _until(client, f"{COLLECTION}/cr-2", lambda obj: "b" in obj)
    # cr-1 was never written: its "a" went with the default; the others keep theirs
    _reads(pair, case, "cr-1", "cr-2", "cr-put", "cr-test")
    check(pair, start)
