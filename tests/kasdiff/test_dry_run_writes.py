"""Dry-run writes (``dryRun=All``) on fakeapi and on the real kube-apiserver: PUT, merge, JSON and
strategic merge patches, server-side apply, a ``/status`` and a ``/scale`` update, a custom
resource's patches in its storage version and in a version converted to it, creates and deletes.

kube's ``DryRunnableStorage`` runs an update's function on the stored object and answers its
result without writing it: the answer keeps the stored object's resourceVersion (no storage
versioner gives it the next one), while managedFields, generation and the rest are what a real
write would have stored. A dry-run create answers the object without a resourceVersion; a
dry-run delete answers what it would have answered, the object unchanged or marked deleting.
An update that deletes its object (a deleting object's last finalizer gone), dry run or not,
answers the update's object the same way: the delete does not version it.

The differ renumbers resourceVersions per case, which would hide an answer at the next version
behind the first time it is seen: each answer's resourceVersion is compared as whether it is the
object's stored one before the request. After the writes, each object still reads as before on
both servers, a watch from before them delivers nothing, and fakeapi's store revision has not
moved (kube-apiserver's own lease writes move kube's)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from differ import CRDS, NAMESPACE, Pair, check, serve_crd

Json = Any
CASE = "dry-run-writes"
CMS = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
DEPLOYMENTS = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments"
GROUP = "dryrun.kasdiff.example.com"
GIZMOS_V1 = f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/gizmos"
GIZMOS_V2 = f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/gizmos"
DRY = "dryRun=All"
MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"
HOLD = "kasdiff.example.com/hold"

_SCHEMA = {"openAPIV3Schema": {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {"size": {"type": "integer"}, "color": {"type": "string"}}}}}}
_CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"gizmos.{GROUP}"},
        "spec": {"group": GROUP, "scope": "Namespaced",
                 "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": _SCHEMA},
                              {"name": "v2", "served": True, "storage": False, "schema": _SCHEMA}]}}

_DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "dry-deployment"}, "spec": {
    "replicas": 1, "selector": {"matchLabels": {"app": "dry"}},
    "template": {"metadata": {"labels": {"app": "dry"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def _stored_version(client: httpx.Client, path: str) -> str | None:
    """The resourceVersion of the object at ``path`` (None: there is none)."""
    response = client.get(path)
    return response.json()["metadata"]["resourceVersion"] if response.status_code == 200 else None


def _comparable(pair: Pair, object_path: str) -> Callable[[Json, bool], Json]:
    """A ``rewrite`` of an object's answers: its resourceVersion becomes whether it is the one the
    object at ``object_path`` had on the answering server before the request, and the order of
    a built-in object's metadata fields is kept as a list (the differ compares parsed objects,
    where order does not show; a dry-run create encodes its object otherwise than a write does).
    Not a custom resource's: kube encodes its metadata as a map, in key order, and fakeapi in
    ObjectMeta's, in every answer (a difference of its own, not of dry runs)."""
    stored = {True: _stored_version(pair.fake, object_path), False: _stored_version(pair.real, object_path)}

    def rewrite(answer: Json, is_fake: bool) -> Json:
        meta = answer.get("metadata") if isinstance(answer, dict) else None
        if not isinstance(meta, dict) or "name" not in meta:
            return answer
        if "resourceVersion" in meta:
            same = meta["resourceVersion"] == stored[is_fake]
            meta["resourceVersion"] = "the stored one" if same else "not the stored one"
        if not answer.get("apiVersion", "").startswith(f"{GROUP}/"):
            answer["metadata fields"] = list(meta)
        return answer
    return rewrite


def _each_server(pair: Pair, path: str, change: Callable[[Json], Json]) -> tuple[bytes, bytes]:
    """The body ``change`` makes of each server's own object at ``path`` (fakeapi's, kube's)."""
    return (json.dumps(change(pair.fake.get(path).json())).encode(),
            json.dumps(change(pair.real.get(path).json())).encode())


def _with(obj: Json, path: tuple[str, ...], value: Json) -> Json:
    node = obj
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return obj


def test_dry_run_writes_answer_the_stored_version_and_store_nothing(pair: Pair) -> None:
    start = len(pair.outcomes)
    serve_crd(pair, _CRD, GIZMOS_V1)
    cm, deployment, gizmo = f"{CMS}/dry-cm", f"{DEPLOYMENTS}/dry-deployment", f"{GIZMOS_V1}/dry-gizmo"
    held, deleting = f"{CMS}/dry-held", f"{CMS}/dry-deleting"
    for client in (pair.fake, pair.real):
        for collection, obj in (
                (CMS, {"metadata": {"name": "dry-cm"}, "data": {"k": "v"}}),
                (CMS, {"metadata": {"name": "dry-held", "finalizers": [HOLD]}}),
                (CMS, {"metadata": {"name": "dry-deleting", "finalizers": [HOLD]}}),
                (DEPLOYMENTS, _DEPLOYMENT),
                (GIZMOS_V1, {"apiVersion": f"{GROUP}/v1", "kind": "Gizmo", "metadata": {"name": "dry-gizmo"},
                             "spec": {"size": 1}})):
            response = client.post(f"{collection}?fieldManager=creator", json=obj)
            assert response.status_code == 201, response.text
        assert client.delete(deleting).status_code == 200
    # Where a watch starts from: each collection's version once the objects are there.
    watched_from = {collection: (pair.fake.get(collection).json()["metadata"]["resourceVersion"],
                                 pair.real.get(collection).json()["metadata"]["resourceVersion"])
                    for collection in (CMS, DEPLOYMENTS, GIZMOS_V1)}
    fake_revision = pair.fake.get(CMS).json()["metadata"]["resourceVersion"]
    try:
        def dry(verb: str, kind: str, method: str, path: str, object_path: str,
                body: bytes | tuple[bytes, bytes] | None = None, content_type: str = "application/json") -> None:
            """The dry run, then the object read: unchanged, at the version it had."""
            rewrite = _comparable(pair, object_path)
            separator = "&" if "?" in path else "?"
            pair.send(CASE, kind, verb, method, f"{path}{separator}{DRY}", body=body, content_type=content_type,
                      rewrite=rewrite)
            pair.send(CASE, kind, f"{verb} (object)", "GET", object_path, rewrite=rewrite)

        dry("put", "ConfigMap", "PUT", f"{cm}?fieldManager=putter", cm,
            _each_server(pair, cm, lambda obj: _with(obj, ("data", "k"), "put")))
        dry("merge patch", "ConfigMap", "PATCH", f"{cm}?fieldManager=merger", cm,
            b'{"data":{"k":"merged"}}', MERGE)
        dry("json patch", "ConfigMap", "PATCH", cm, cm, b'[{"op":"add","path":"/data/j","value":"x"}]', JSON_PATCH)
        dry("apply", "ConfigMap", "PATCH", f"{cm}?fieldManager=applier", cm, json.dumps(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dry-cm"}, "data": {"a": "b"}}).encode(),
            APPLY)
        dry("patch changing nothing", "ConfigMap", "PATCH", cm, cm, b'{"data":{"k":"v"}}', MERGE)
        dry("strategic patch", "Deployment", "PATCH", deployment, deployment,
            b'{"spec":{"template":{"metadata":{"labels":{"tier":"web"}}}}}', STRATEGIC)
        dry("status put", "Deployment", "PUT", f"{deployment}/status", deployment,
            _each_server(pair, deployment, lambda obj: _with(obj, ("status", "observedGeneration"), 1)))
        dry("scale put", "Deployment", "PUT", f"{deployment}/scale", deployment,
            _each_server(pair, f"{deployment}/scale", lambda obj: _with(obj, ("spec", "replicas"), 3)))
        dry("custom resource merge patch", "Gizmo", "PATCH", gizmo, gizmo, b'{"spec":{"size":2}}', MERGE)
        dry("converted version json patch", "Gizmo", "PATCH", f"{GIZMOS_V2}/dry-gizmo", gizmo,
            b'[{"op":"add","path":"/spec/color","value":"red"}]', JSON_PATCH)
        dry("update removing a deleting object's last finalizer", "ConfigMap", "PATCH", deleting, deleting,
            b'{"metadata":{"finalizers":null}}', MERGE)
        dry("create", "ConfigMap", "POST", CMS, f"{CMS}/dry-new",
            json.dumps({"metadata": {"name": "dry-new"}, "data": {"k": "v"}}).encode())
        dry("delete", "ConfigMap", "DELETE", cm, cm)
        dry("delete held by a finalizer", "ConfigMap", "DELETE", held, held)
        dry("delete in the foreground", "Deployment", "DELETE", f"{deployment}?propagationPolicy=Foreground",
            deployment)
        dry("custom resource delete", "Gizmo", "DELETE", gizmo, gizmo)
        for collection, versions in watched_from.items():
            watched = pair.send(CASE, "watch", f"events of {collection.rsplit('/', 1)[-1]}", "GET", (
                f"{collection}?watch=1&timeoutSeconds=1&resourceVersion={versions[0]}",
                f"{collection}?watch=1&timeoutSeconds=1&resourceVersion={versions[1]}"))
            assert watched.fake.body == watched.real.body == [], collection
        assert pair.fake.get(CMS).json()["metadata"]["resourceVersion"] == fake_revision
        check(pair, start)
    finally:
        for client in (pair.fake, pair.real):
            for path in (held, deleting):
                client.patch(path, content=b'{"metadata":{"finalizers":null}}', headers={"Content-Type": MERGE})
            for path in (cm, held, deployment, gizmo):
                client.delete(path)
            client.delete(f"{CRDS}/gizmos.{GROUP}")


def test_an_update_that_deletes_its_object_answers_the_stored_version(pair: Pair) -> None:
    start = len(pair.outcomes)
    case = "update-deleting-object"
    finishing = f"{CMS}/finishing"
    for client in (pair.fake, pair.real):
        response = client.post(CMS, json={"metadata": {"name": "finishing", "finalizers": [HOLD]}})
        assert response.status_code == 201, response.text
        assert client.delete(finishing).status_code == 200
    rewrite = _comparable(pair, finishing)
    pair.send(case, "ConfigMap", "update removing the last finalizer", "PATCH", finishing,
              body=b'{"metadata":{"finalizers":null}}', content_type=MERGE, rewrite=rewrite)
    pair.send(case, "ConfigMap", "get after", "GET", finishing)
    check(pair, start)
