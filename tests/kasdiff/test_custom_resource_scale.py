"""Writes of a custom resource's ``/scale`` on fakeapi and on the real kube-apiserver: PUT, merge
patch and server-side apply of a Scale, and the managedFields each leaves on the object (kube's
custom resource handler moves the owners of the CRD version's ``specReplicasPath`` between the
object and its Scale, ``managedfields.ScaleHandler``; a version without a scale subresource keeps
its entries). kube applies a custom resource's Scale with the custom resource's converter, which
cannot convert the result: an apply that changes the Scale is its 500, one that changes nothing
records its manager. Every answer, and the object read after each write, is compared."""

from __future__ import annotations

import json
from typing import Any

import yaml
from differ import CRDS, NAMESPACE, Pair, check, serve_crd

GROUP = "scale.kasdiff.example.com"
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
_SCHEMA = {"openAPIV3Schema": {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {"size": {"type": "integer"}, "color": {"type": "string"}}},
    "status": {"type": "object", "properties": {"ready": {"type": "integer"}}}}}}


def _crd() -> dict[str, Any]:
    """Gadgets: v1 (storage) scales through ``.spec.size``, v2 is served without a scale."""
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                     "versions": [
                         {"name": "v1", "served": True, "storage": True, "schema": _SCHEMA, "subresources": {
                             "status": {}, "scale": {"specReplicasPath": ".spec.size",
                                                     "statusReplicasPath": ".status.ready"}}},
                         {"name": "v2", "served": True, "storage": False, "schema": _SCHEMA}]}}


def _scale(size: int | None) -> bytes:
    spec = {} if size is None else {"spec": {"replicas": size}}
    return yaml.safe_dump({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "g"}, **spec}).encode()


def test_scale_writes_move_the_owners_of_the_replicas(pair: Pair) -> None:
    start = len(pair.outcomes)
    v1 = serve_crd(pair, _crd(), f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/gadgets")
    v2 = f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/gadgets"
    try:
        def send(verb: str, method: str, path: str, body: bytes, content_type: str = "application/json") -> None:
            pair.send("custom-resource-scale", "Gadget", verb, method, path, body=body, content_type=content_type)
            pair.send("custom-resource-scale", "Gadget", f"{verb} (object)", "GET", f"{v1}/g")

        send("create", "POST", f"{v1}?fieldManager=creator", json.dumps(
            {"apiVersion": f"{GROUP}/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"size": 1}}).encode())
        send("apply v2", "PATCH", f"{v2}/g?fieldManager=colorist", yaml.safe_dump(
            {"apiVersion": f"{GROUP}/v2", "kind": "Gadget", "metadata": {"name": "g"},
             "spec": {"color": "red", "size": 1}}).encode(), APPLY)
        send("apply scale", "PATCH", f"{v1}/g/scale?fieldManager=scaler&force=true", _scale(2), APPLY)
        send("apply scale, conflict", "PATCH", f"{v1}/g/scale?fieldManager=other", _scale(3), APPLY)
        send("merge scale", "PATCH", f"{v1}/g/scale?fieldManager=merger", json.dumps({"spec": {"replicas": 4}}).encode(),
             MERGE)
        send("put scale", "PUT", f"{v1}/g/scale?fieldManager=putter", json.dumps(
            {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "g"},
             "spec": {"replicas": 5}}).encode())
        send("apply scale, same", "PATCH", f"{v1}/g/scale?fieldManager=scaler&force=true", _scale(5), APPLY)
        send("apply scale, same without force", "PATCH", f"{v1}/g/scale?fieldManager=other", _scale(5), APPLY)
        send("apply scale, nothing", "PATCH", f"{v1}/g/scale?fieldManager=scaler&force=true", _scale(None), APPLY)
        send("apply object", "PATCH", f"{v1}/g?fieldManager=scaler&force=true", yaml.safe_dump(
            {"apiVersion": f"{GROUP}/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"size": 6}}).encode(),
             APPLY)
    finally:
        for client in (pair.fake, pair.real):
            client.delete(f"{CRDS}/gadgets.{GROUP}")
    check(pair, start)
