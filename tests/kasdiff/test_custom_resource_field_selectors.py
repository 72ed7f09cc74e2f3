"""Field selectors on custom resources (``spec.versions[].selectableFields``,
``CustomResourceFieldSelectors``), on fakeapi and on the real kube-apiserver: CRDs whose
selectable fields kube refuses (paths it cannot follow, to metadata, to a field of another type,
repeated, too many; the same fields on versions of one schema, which kube's internal conversion
moves to the spec) and those it accepts; lists and watches of each version selecting by its own
fields (strings, integers and booleans as strings, a missing field as ``""``, ``=``, ``==`` and
``!=``) and refused with kube's 400 for another version's field, a cluster-scoped resource's
``metadata.namespace`` or a field the version does not offer; a watch's objects entering and
leaving the selection; a CRD update adding a selectable field. Every answer compared: code,
Status, the lists' and watch events' bodies."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import quote

import pytest
from differ import CRDS, NAMESPACE, Pair, check, serve_crd

GROUP = "selectors.kasdiff.example.com"

_SPEC = {"type": "object", "properties": {
    "color": {"type": "string"}, "size": {"type": "integer"}, "on": {"type": "boolean"}, "hue": {"type": "string"},
    "tone": {"type": "string", "enum": ["dark", "light"]}, "when": {"type": "string", "format": "date-time"},
    "ratio": {"type": "number"}, "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "nested": {"type": "object", "properties": {"deep": {"type": "string"}}},
    "port": {"x-kubernetes-int-or-string": True}, "list": {"type": "array", "items": {"type": "string"}}}}


def _schema(**extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": _SPEC, **extra}}


def _version(name: str, storage: bool, fields: list[str], schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "served": True, "storage": storage, "selectableFields": [{"jsonPath": f} for f in fields],
            "schema": {"openAPIV3Schema": schema or _schema()}}


def _crd(plural: str, versions: list[dict[str, Any]], scope: str = "Namespaced") -> dict[str, Any]:
    kind = plural.capitalize()[:-1]
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": scope, "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
                     "versions": versions}}


#: (case, versions) of CRDs whose answer is compared (a refusal's Status, or both accepting).
CRDS_CASES = [
    ("no-leading-dot", [_version("v1", True, ["spec.color"])]),
    ("array-notation", [_version("v1", True, [".spec['color']"])]),
    ("unknown-field", [_version("v1", True, [".spec.shade"])]),
    ("trailing-dot", [_version("v1", True, [".spec."])]),
    ("double-dot", [_version("v1", True, ["..spec"])]),
    ("empty", [_version("v1", True, [""])]),
    ("object", [_version("v1", True, [".spec.nested"])]),
    ("number", [_version("v1", True, [".spec.ratio"])]),
    ("int-or-string", [_version("v1", True, [".spec.port"])]),
    ("list", [_version("v1", True, [".spec.list"])]),
    ("map-value", [_version("v1", True, [".spec.labels.x"])]),
    ("metadata", [_version("v1", True, [".metadata.name"], _schema(
        metadata={"type": "object", "properties": {"name": {"type": "string"}}}))]),
    ("duplicate", [_version("v1", True, [".spec.color", ".spec.size", ".spec.color"])]),
    ("too-many", [_version("v1", True, [".spec.color", ".spec.size", ".spec.on", ".spec.hue", ".spec.tone",
                                        ".spec.when", ".spec.nested.deep", ".spec.labels.a", ".spec.labels.b"])]),
    ("enum-format-nested-map", [_version("v1", True, [".spec.tone", ".spec.when", ".spec.nested.deep",
                                                      ".spec.labels.a"])]),
    # one schema for both versions: kube's internal conversion moves it to spec.validation
    ("same-schema-other-fields", [_version("v1", True, [".spec.color"]), _version("v2", False, [".spec.hue"])]),
    ("same-schema-same-fields", [_version("v1", True, [".spec.color"]), _version("v2", False, [".spec.color"])]),
    ("same-schema-same-bad-fields", [_version("v1", True, [".spec.nope"]), _version("v2", False, [".spec.nope"])]),
    ("other-schemas-bad-fields", [_version("v1", True, [".spec.nope"]),
                                  _version("v2", False, [".spec.ratio"], _schema(status={"type": "object"}))]),
    # the same fields on versions of other schemas: moved to the spec, whose schema is none
    ("other-schemas-same-fields", [_version("v1", True, [".spec.color"]),
                                   _version("v2", False, [".spec.color"], _schema(status={"type": "object"}))]),
]


@pytest.mark.parametrize(("case", "versions"), CRDS_CASES, ids=[case for case, _versions in CRDS_CASES])
def test_crd_selectable_fields(pair: Pair, case: str, versions: list[dict[str, Any]]) -> None:
    start = len(pair.outcomes)
    plural = f"{case.replace('-', '')}s"
    outcome = pair.send(f"selectable-crd-{case}", "customresourcedefinitions", "create", "POST", CRDS,
                        body=_json(_crd(plural, versions)),
                        rewrite=lambda answer, _fake: answer if answer.get("kind") == "Status" else "created")
    if outcome.real.status == 201:
        for client in (pair.fake, pair.real):
            client.delete(f"{CRDS}/{plural}.{GROUP}")
    check(pair, start)


def _json(obj: Any) -> bytes:
    return json.dumps(obj).encode()


@pytest.fixture(scope="module")
def shirts(pair: Pair) -> tuple[str, str]:
    """The namespaced collections of v1 (storage; color, size, on) and v2 (hue; another schema,
    so that each version keeps its own selectable fields), with four shirts."""
    crd = _crd("shirts", [_version("v1", True, [".spec.color", ".spec.size", ".spec.on"]),
                          _version("v2", False, [".spec.hue", ".spec.nested.deep"], _schema(status={"type": "object"}))])
    v1 = serve_crd(pair, crd, f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/shirts")
    v2 = f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/shirts"
    for name, spec in (("a", {"color": "blue", "size": 1, "on": True, "hue": "x"}),
                       ("b", {"color": "red", "size": 22, "on": False, "nested": {"deep": "d"}}),
                       ("c", {}), ("d", {"color": "blue", "size": -3})):
        pair.send("selectable-shirts", "shirts", "create", "POST", v1,
                  body=_json({"apiVersion": f"{GROUP}/v1", "kind": "Shirt", "metadata": {"name": name}, "spec": spec}))
    return v1, v2


V1_SELECTORS = ["spec.color=blue", "spec.color!=blue", "spec.color==red", "spec.color=", "spec.size=1",
                "spec.size=-3", "spec.size!=22", "spec.on=true", "spec.on=false", "spec.on=", "spec.color=blue,spec.size=1",
                "spec.color=blue,metadata.name=d", "metadata.namespace=kasdiff,spec.on!=true", "spec.hue=x",
                "spec.nested.deep=d", "spec.color in (blue)", "spec.colour=blue", "status.x=1"]
V2_SELECTORS = ["spec.hue=x", "spec.hue=", "spec.nested.deep=d", "spec.nested.deep!=d", "spec.color=blue", "spec.size=1"]


@pytest.mark.parametrize(("version", "selector"), [("v1", s) for s in V1_SELECTORS] + [("v2", s) for s in V2_SELECTORS])
def test_list(pair: Pair, shirts: tuple[str, str], version: str, selector: str) -> None:
    start = len(pair.outcomes)
    collection = shirts[0] if version == "v1" else shirts[1]
    pair.send(f"selectable-list-{version}-{selector}", "shirts", "list", "GET",
              f"{collection}?fieldSelector={quote(selector)}")
    check(pair, start)


def test_watch_objects_entering_and_leaving(pair: Pair) -> None:
    """A watch from a revision before the writes, selecting blue shirts: created blue, turned
    red (leaves: kube sends it DELETED), turned blue again (enters: ADDED), deleted; in both
    versions."""
    start = len(pair.outcomes)
    crd = _crd("vests", [_version("v1", True, [".spec.color"]),
                         _version("v2", False, [".spec.color", ".spec.hue"], _schema(status={"type": "object"}))])
    collection = serve_crd(pair, crd, f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/vests")
    revisions = tuple(client.get(collection).json()["metadata"]["resourceVersion"] for client in (pair.fake, pair.real))
    case = "selectable-watch"

    def vest(color: str) -> bytes:
        return _json({"apiVersion": f"{GROUP}/v1", "kind": "Vest", "metadata": {"name": "v"}, "spec": {"color": color}})

    pair.send(case, "vests", "create", "POST", collection, body=vest("blue"))
    pair.send(case, "vests", "create", "POST", collection,
              body=_json({"apiVersion": f"{GROUP}/v1", "kind": "Vest", "metadata": {"name": "w"}, "spec": {"color": "red"}}))
    for color in ("red", "green", "blue"):
        pair.send(case, "vests", "patch", "PATCH", f"{collection}/v", body=_json({"spec": {"color": color}}),
                  content_type="application/merge-patch+json")
    pair.send(case, "vests", "delete", "DELETE", f"{collection}/v")
    for version in ("v1", "v2"):
        path = f"/apis/{GROUP}/{version}/namespaces/{NAMESPACE}/vests?watch=1&timeoutSeconds=1&fieldSelector=spec.color%3Dblue"
        pair.send(case, "vests", f"watch {version}", "GET",
                  (f"{path}&resourceVersion={revisions[0]}", f"{path}&resourceVersion={revisions[1]}"))
    check(pair, start)


def test_crd_update_adds_a_selectable_field(pair: Pair) -> None:
    """A field selectable once the CRD says so, on both servers (kube serves the new field a
    moment after the update)."""
    start = len(pair.outcomes)
    collection = serve_crd(pair, _crd("socks", [_version("v1", True, [".spec.color"])]),
                           f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/socks")
    case = "selectable-crd-update"
    for name, size in (("s", 1), ("t", 2)):
        pair.send(case, "socks", "create", "POST", collection, body=_json(
            {"apiVersion": f"{GROUP}/v1", "kind": "Sock", "metadata": {"name": name}, "spec": {"color": "blue", "size": size}}))
    pair.send(case, "socks", "list", "GET", f"{collection}?fieldSelector=spec.size%3D2")
    pair.send(case, "customresourcedefinitions", "patch", "PATCH", f"{CRDS}/socks.{GROUP}",
              body=_json([{"op": "add", "path": "/spec/versions/0/selectableFields/-", "value": {"jsonPath": ".spec.size"}}]),
              content_type="application/json-patch+json", rewrite=lambda answer, _fake: answer.get("kind"))
    for client in (pair.fake, pair.real):
        deadline = time.monotonic() + 30
        while client.get(f"{collection}?fieldSelector=spec.size%3D2").status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    pair.send(case, "socks", "list", "GET", f"{collection}?fieldSelector=spec.size%3D2")
    pair.send(case, "socks", "list", "GET", f"{collection}?fieldSelector=spec.size%3D2,spec.color%3Dblue")
    check(pair, start)


def test_cluster_scoped(pair: Pair) -> None:
    """A cluster-scoped resource offers no ``metadata.namespace``."""
    start = len(pair.outcomes)
    collection = serve_crd(pair, _crd("hats", [_version("v1", True, [".spec.color"])], scope="Cluster"),
                           f"/apis/{GROUP}/v1/hats")
    case = "selectable-cluster-scoped"
    pair.send(case, "hats", "create", "POST", collection, body=_json(
        {"apiVersion": f"{GROUP}/v1", "kind": "Hat", "metadata": {"name": "h"}, "spec": {"color": "blue"}}))
    for selector in ("spec.color%3Dblue", "metadata.namespace%3D", "metadata.name%3Dh"):
        pair.send(case, "hats", "list", "GET", f"{collection}?fieldSelector={selector}")
    check(pair, start)
