"""CRD schemas published in OpenAPI, on fakeapi and on the real kube-apiserver: the situations of
the CustomResourcePublishOpenAPI conformance specs (``test/e2e/apimachinery/
crd_publish_openapi.go``: a CRD with a validation schema, without one, preserving unknown fields
at the root and in a nested object; several CRDs of different groups, of one group in different
versions, of one group version with different kinds; a version renamed; a version no longer
served), with the e2e's schemas and its kind names (lower case, with dashes), and a CRD that
exercises the rest of kube's builder (cluster scope, the status and scale subresources,
int-or-string, nullable, embedded resources, junctors, what a structural schema drops).

Each situation's CRDs are created on both servers; once kube has published them (its OpenAPI
controllers run behind the CRD's write: the e2e polls /openapi/v2 for up to a minute, so does
this test), what each server publishes for them is compared:

- ``/openapi/v2``: the definitions named for the CRDs' groups, and their paths (kube shares
  parameters across the document as ``#/parameters/<name>-<hash>`` references, which are
  resolved first: where the parameter is written is no part of what it says);
- ``/openapi/v3/apis/<group>/<version>``: the whole document of each group version (paths, and
  the components of the CRDs and of the built-in kinds they refer to: built-in components by
  name, their bodies being kubernetes-validate's rendering in fakeapi);
- ``/openapi/v3``: a group version is listed while served, and its hash changes with the CRD;
- kubectl 1.35: ``explain`` of the resource and its fields (the e2e's), and a validated create
  and apply of the e2e's custom resources, the same output from both servers.

After each change and after the CRDs are deleted, the definitions each server drops are compared
too (the e2e's ``waitForDefinitionCleanup``). Last, built-in paths of each shape, in v2 and v3:
the parameters, media types and descriptions the CRDs' paths share with them."""

from __future__ import annotations

import copy
import json
import subprocess
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import yaml
from differ import NAMESPACE, Pair, differences

from fakeapi.cluster.control_plane import kubectl_binary

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
#: The e2e's minute, doubled: the two servers share two cores with whatever else runs.
_PUBLISH_TIMEOUT = 120.0

SCHEMA_FOO = yaml.safe_load("""
description: Foo CRD for Testing
type: object
properties:
  spec:
    type: object
    description: Specification of Foo
    properties:
      bars:
        description: List of Bars and their specs.
        type: array
        items:
          type: object
          required: [name]
          properties:
            name: {description: Name of Bar., type: string}
            age: {description: Age of Bar., type: string}
            feeling: {description: Whether Bar is feeling great., type: string, enum: [Great, Down]}
            bazs: {description: List of Bazs., items: {type: string}, type: array}
  status:
    description: Status of Foo
    type: object
    properties:
      bars:
        description: List of Bars and their statuses.
        type: array
        items:
          type: object
          properties:
            name: {description: Name of Bar., type: string}
            available: {description: Whether the Bar is installed., type: boolean}
            quxType: {description: Indicates to external qux type., pattern: in-tree|out-of-tree, type: string}
""")
_WALDO_STATUS = {"description": "Status of Waldo", "type": "object", "properties": {"bars": {
    "description": "List of Bars and their statuses.", "type": "array", "items": {"type": "object"}}}}
_WALDO_SPEC = {"description": "Specification of Waldo", "type": "object",
               "properties": {"dummy": {"description": "Dummy property.", "type": "object"}}}
SCHEMA_WALDO = {"description": "Waldo CRD for Testing", "type": "object",
                "properties": {"spec": _WALDO_SPEC, "status": _WALDO_STATUS}}
SCHEMA_PRESERVE_ROOT = {"description": "preserve-unknown-properties at root for Testing",
                        "x-kubernetes-preserve-unknown-fields": True, "type": "object",
                        "properties": {"spec": _WALDO_SPEC, "status": _WALDO_STATUS}}
SCHEMA_PRESERVE_NESTED = {"description": "preserve-unknown-properties in nested field for Testing", "type": "object",
                          "properties": {"spec": {**_WALDO_SPEC, "x-kubernetes-preserve-unknown-fields": True},
                                         "status": _WALDO_STATUS}}
#: What the e2e's setupCRD gives a CRD "without validation schema".
SCHEMA_NONE = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
#: The rest of the builder: what a structural schema drops, int-or-string, nullable, embedded
#: resources (preserving unknown fields or not), junctors, formats, defaults and the vendor
#: extensions.
SCHEMA_GADGET = {
    "type": "object", "description": "Gadget", "example": {"spec": {}}, "externalDocs": {"url": "https://example.com"},
    "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}},
        "spec": {"type": "object", "required": ["size", "maybe"], "properties": {
            "replicas": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 10, "default": 1},
            "size": {"x-kubernetes-int-or-string": True},
            "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "limit": {"x-kubernetes-int-or-string": True, "anyOf": [{"pattern": "^[0-9]+$"}]},
            "maybe": {"type": "object", "nullable": True, "properties": {"x": {"type": "string"}}},
            "tags": {"type": "array", "nullable": True, "items": {"type": "string"}},
            "names": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set",
                      "uniqueItems": False, "maxItems": 5},
            "pairs": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                      "items": {"type": "object", "required": ["k"], "properties": {
                          "k": {"type": "string"}, "v": {"type": "string", "default": "", "enum": ["", "a"]}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string", "nullable": True},
                       "x-kubernetes-map-type": "granular", "required": []},
            "template": {"type": "object", "x-kubernetes-embedded-resource": True,
                         "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}},
            "raw": {"type": "object", "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True},
            "choice": {"type": "string", "oneOf": [{"enum": ["a"]}, {"enum": ["b"]}], "not": {"enum": ["c"]},
                       "allOf": [{"minLength": 1}]},
            "when": {"type": "string", "format": "date-time", "title": "When", "description": ""},
            "odd": {"type": "string", "format": "not-a-format"},
            "ratio": {"type": "number", "multipleOf": 0.5, "exclusiveMinimum": True, "minimum": 0},
            "anything": {"x-kubernetes-preserve-unknown-fields": True},
            "list": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                                                 "properties": {"a": {"type": "string"}}}},
            "bag": {"type": "array", "x-kubernetes-preserve-unknown-fields": True, "items": {"type": "string"}},
        }, "x-kubernetes-validations": [{"rule": "self.replicas >= 0", "message": "no negative replicas"}]},
        "status": {"type": "object", "properties": {"replicas": {"type": "integer"}, "selector": {"type": "string"}}},
    }}


def _kind(tag: str) -> str:
    """A kind as the e2e's genRandomCRD names one: lower case, with dashes."""
    return f"e2e-test-crd-publish-openapi-{tag}-crd"


def _version(name: str, schema: dict[str, Any], storage: bool, **extra: Any) -> dict[str, Any]:
    return {"name": name, "served": True, "storage": storage, "schema": {"openAPIV3Schema": schema}, **extra}


def _crd(group_suffix: str, tag: str, schema: dict[str, Any], *versions: str, scope: str = "Namespaced",
         **version_extra: Any) -> dict[str, Any]:
    """A CRD as the e2e's setupCRD writes one: group ``crd-publish-openapi-test-<suffix>.example.com``,
    each version serving ``schema``, the first stored."""
    group = f"crd-publish-openapi-test-{group_suffix}.example.com"
    kind = _kind(tag)
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{kind}s.{group}"},
            "spec": {"group": group, "scope": scope,
                     "names": {"plural": f"{kind}s", "singular": kind, "kind": kind, "listKind": f"{kind}List"},
                     "versions": [_version(v, copy.deepcopy(schema), i == 0, **version_extra)
                                  for i, v in enumerate(versions)]}}


def _definition_name(crd: dict[str, Any], version: str) -> str:
    spec = crd["spec"]
    return ".".join(reversed(spec["group"].split("."))) + f".{version}.{spec['names']['kind']}"


def _group_versions(crds: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(crd["spec"]["group"], version["name"]) for crd in crds for version in crd["spec"]["versions"]
            if version["served"]}


# --------------------------------------------------------------------------- reading what is published


def _v2(client: httpx.Client) -> dict[str, Any]:
    response = client.get("/openapi/v2", headers={"Accept": "application/json"})
    assert response.status_code == 200, response.text
    return response.json()


def _resolved(node: Any, parameters: dict[str, Any]) -> Any:
    """``node`` with kube's shared ``#/parameters/`` references replaced by what they refer to."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/parameters/"):
            return parameters[ref.removeprefix("#/parameters/")]
        return {key: _resolved(value, parameters) for key, value in node.items()}
    if isinstance(node, list):
        return [_resolved(item, parameters) for item in node]
    return node


def _published_v2(client: httpx.Client, groups: set[str]) -> dict[str, Any]:
    """What /openapi/v2 publishes for ``groups``: their definitions and their paths."""
    document = _v2(client)
    prefixes = tuple(".".join(reversed(group.split("."))) + "." for group in groups)
    return {
        "definitions": {name: body for name, body in document["definitions"].items() if name.startswith(prefixes)},
        "paths": {path: _resolved(item, document.get("parameters") or {}) for path, item in document["paths"].items()
                  if any(path.startswith(f"/apis/{group}/") for group in groups)},
    }


def _v3_root(client: httpx.Client, groups: set[str]) -> dict[str, str]:
    """The /openapi/v3 root's group versions of ``groups``, each with its document's hash."""
    response = client.get("/openapi/v3")
    assert response.status_code == 200, response.text
    return {path: entry["serverRelativeURL"].partition("?hash=")[2] for path, entry in response.json()["paths"].items()
            if any(path.startswith(f"apis/{group}/") for group in groups)}


def _v3_document(client: httpx.Client, path: str) -> dict[str, Any]:
    """The v3 document of a group version of custom resources (``apis/<group>/<version>``)."""
    response = client.get(f"/openapi/v3/{path}")
    assert response.status_code == 200, response.text
    document = response.json()
    schemas = document["components"]["schemas"]
    prefix = ".".join(reversed(path.split("/")[1].split("."))) + "."
    # Built-in components by name: fakeapi's are kubernetes-validate's rendering of them.
    document["components"]["schemas"] = {name: body if name.startswith(prefix) else "built-in"
                                         for name, body in schemas.items()}
    return document


def _wait_until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + _PUBLISH_TIMEOUT
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.5)


def _servers(pair: Pair) -> tuple[tuple[str, httpx.Client], ...]:
    return ("kube", pair.real), ("fakeapi", pair.fake)


def _wait_published(server: str, client: httpx.Client, present: set[str], absent: set[str] = frozenset()) -> None:
    """The e2e's waitForDefinition and waitForDefinitionCleanup: until /openapi/v2 has every
    definition of ``present`` and none of ``absent``."""
    def published() -> bool:
        names = _v2(client)["definitions"].keys()
        return present <= names and not absent & names
    _wait_until(published, f"{server}'s definitions {sorted(present)} and not {sorted(absent)}")


def _compare(pair: Pair, crds: list[dict[str, Any]], gone: set[str] = frozenset()) -> None:
    """Wait until both servers publish ``crds`` (and none of the definitions ``gone``), then
    compare what they publish."""
    present = {_definition_name(crd, version["name"]) for crd in crds for version in crd["spec"]["versions"]
               if version["served"]}
    groups = {crd["spec"]["group"] for crd in crds}
    for server, client in _servers(pair):
        _wait_published(server, client, present, gone)
        listed = {f"apis/{group}/{version}" for group, version in _group_versions(crds)}
        _wait_until(lambda: listed <= _v3_root(client, groups).keys(),
                    f"{server}'s v3 root to list {sorted(listed)}: {sorted(_v3_root(client, groups))}")
    fake, real = _published_v2(pair.fake, groups), _published_v2(pair.real, groups)
    assert not list(differences(fake, real)), "\n".join(differences(fake, real))
    # kube keeps the v3 document of a version renamed or no longer served: both roots list it.
    fake_root, real_root = _v3_root(pair.fake, groups), _v3_root(pair.real, groups)
    assert sorted(fake_root) == sorted(real_root)
    for path in sorted(real_root):
        fake_document, real_document = _v3_document(pair.fake, path), _v3_document(pair.real, path)
        assert not list(differences(fake_document, real_document)), "\n".join(
            [f"{path}:", *differences(fake_document, real_document)])


# --------------------------------------------------------------------------- kubectl


@pytest.fixture(scope="module")
def kubectl(fake_server: Any, real_server: Any, tmp_path_factory: pytest.TempPathFactory
            ) -> Callable[..., tuple[Any, Any]]:
    """``kubectl(*args, input=)`` run against both servers (each with a discovery cache of its
    own): (fakeapi's (code, stdout, stderr), kube's), the server's URL masked."""
    cache = tmp_path_factory.mktemp("kubectl-cache")

    def run(*args: str, input: str | None = None) -> tuple[Any, Any]:
        outputs = []
        for name, server in (("fake", fake_server), ("real", real_server)):
            proc = subprocess.run([str(kubectl_binary()), "--kubeconfig", str(server.kubeconfig), "--cache-dir",
                                   str(cache / name), *args], input=input, capture_output=True, text=True,
                                  timeout=60)
            outputs.append((proc.returncode, proc.stdout, proc.stderr.replace(server.url, "<server>")))
        return outputs[0], outputs[1]
    return run


def _explain_matches(kubectl: Callable[..., tuple[Any, Any]], target: str) -> tuple[int, str, str]:
    fake, real = kubectl("explain", target)
    assert fake == real, target
    return real


def _custom_resource(crd: dict[str, Any], name: str, body: dict[str, Any]) -> str:
    spec = crd["spec"]
    return json.dumps({"kind": spec["names"]["kind"], "apiVersion": f"{spec['group']}/{spec['versions'][0]['name']}",
                       "metadata": {"name": name}, **body})


def _writes_match(kubectl: Callable[..., tuple[Any, Any]], crd: dict[str, Any], name: str,
                  body: dict[str, Any]) -> None:
    """The e2e's kubectl create and apply (validated against the published schema) of a custom
    resource, each followed by a delete, with the same outcome on both servers."""
    manifest = _custom_resource(crd, name, body)
    plural = crd["spec"]["names"]["plural"]
    for verb in ("create", "apply"):
        fake, real = kubectl("--namespace", NAMESPACE, verb, "-f", "-", input=manifest)
        assert real[0] == 0, real
        assert fake == real, verb
        fake, real = kubectl("--namespace", NAMESPACE, "delete", plural, name)
        assert fake == real and real[0] == 0, real


# --------------------------------------------------------------------------- the situations


#: How long a deleted CRD may stay before ``_await_deletion`` nudges kube's finalizer.
_FINALIZER_GRACE = 10.0


def _await_deletion(server: str, client: httpx.Client, crd_names: list[str]) -> None:
    """Until the server has none of ``crd_names`` (deleted). kube's CRD finalizer can stall for
    its informer's resync, five minutes (seen here once in ~20 runs): its first pass finds the
    resource's storage re-initializing (the deletion changed the CRD, so the CRD handler rebuilds
    the storage), writes that into the Terminating condition and retries; the retry updates its
    informer's copy from before that write, gets a conflict and waits to be called again by the
    CRD's next update; and that update, its own, differs in the Terminating condition only, which
    it ignores (``crd_finalizer.go``: ``sync``, ``updateCustomResourceDefinition``). An annotation
    written to a CRD still there after a grace period is an update it does not ignore."""
    started = time.monotonic()
    nudged = False

    def deleted() -> bool:
        nonlocal nudged
        left = [name for name in crd_names if client.get(f"{CRDS}/{name}").status_code != 404]
        if left and not nudged and time.monotonic() - started > _FINALIZER_GRACE:
            for name in left:
                client.patch(f"{CRDS}/{name}", json={"metadata": {"annotations": {"fakeapi.test/finalize": "again"}}},
                             headers={"Content-Type": "application/merge-patch+json"})
            nudged = True
        return not left
    _wait_until(deleted, f"{server} to delete {crd_names}")


@pytest.fixture
def created(pair: Pair) -> Iterator[Callable[[dict[str, Any]], dict[str, Any]]]:
    """``create(crd)`` on both servers; every CRD created is deleted at the end, and both servers
    drop its definitions."""
    made: list[dict[str, Any]] = []

    def create(crd: dict[str, Any], *, exists: bool = False) -> dict[str, Any]:
        """``exists``: only deleted at the end (a CRD changed since it was created)."""
        if not exists:
            for client in (pair.fake, pair.real):
                response = client.post(CRDS, json=crd)
                assert response.status_code == 201, response.text
        made.append(crd)
        return crd

    yield create
    names = {_definition_name(crd, version["name"]) for crd in made for version in crd["spec"]["versions"]}
    crd_names = list(dict.fromkeys(crd["metadata"]["name"] for crd in made))  # a changed CRD is made twice
    for crd_name in crd_names:
        for client in (pair.fake, pair.real):
            response = client.delete(f"{CRDS}/{crd_name}")
            assert response.status_code == 200, response.text
    groups = {crd["spec"]["group"] for crd in made}
    for server, client in _servers(pair):
        _await_deletion(server, client, crd_names)
        _wait_published(server, client, set(), names)
        _wait_until(lambda: not _v3_root(client, groups), f"{server}'s v3 root to drop the CRDs' group versions")
    for group, version in _group_versions(made):
        # Both without a document for the group version: kube's 404, its body empty.
        fake, real = (client.get(f"/openapi/v3/apis/{group}/{version}") for client in (pair.fake, pair.real))
        assert (fake.status_code, fake.content) == (real.status_code, real.content) == (404, b"")


def _change(pair: Pair, crd: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """``change`` made to the stored CRD on both servers (an update of what each stored)."""
    changed = None
    for client in (pair.fake, pair.real):
        stored = client.get(f"{CRDS}/{crd['metadata']['name']}").json()
        change(stored)
        response = client.put(f"{CRDS}/{crd['metadata']['name']}", json=stored)
        assert response.status_code == 200, response.text
        changed = stored
    assert changed is not None
    return changed


def test_crd_with_validation_schema(pair: Pair, created: Any, kubectl: Any) -> None:
    crd = created(_crd("foo", "1001", SCHEMA_FOO, "v1"))
    _compare(pair, [crd])
    _writes_match(kubectl, crd, "test-foo", {"spec": {"bars": [{"name": "test-bar"}]}})
    plural = crd["spec"]["names"]["plural"]
    assert "Foo CRD for Testing" in _explain_matches(kubectl, plural)[1]
    assert "CreationTimestamp is a timestamp" in _explain_matches(kubectl, f"{plural}.metadata")[1]
    assert "List of Bars and their specs" in _explain_matches(kubectl, f"{plural}.spec")[1]
    assert "Name of Bar" in _explain_matches(kubectl, f"{plural}.spec.bars")[1]
    assert 'field "bars2" does not exist' in _explain_matches(kubectl, f"{plural}.spec.bars2")[2]


def test_crd_without_validation_schema(pair: Pair, created: Any, kubectl: Any) -> None:
    crd = created(_crd("empty", "1002", SCHEMA_NONE, "v1"))
    _compare(pair, [crd])
    _writes_match(kubectl, crd, "test-cr", {"a": {"b": [{"c": "d"}]}})
    assert "<empty>" in _explain_matches(kubectl, crd["spec"]["names"]["plural"])[1]


def test_crd_preserving_unknown_fields_at_the_schema_root(pair: Pair, created: Any, kubectl: Any) -> None:
    crd = created(_crd("unknown-at-root", "1003", SCHEMA_PRESERVE_ROOT, "v1"))
    _compare(pair, [crd])
    _writes_match(kubectl, crd, "test-cr", {"a": {"b": [{"c": "d"}]}})
    assert crd["spec"]["names"]["kind"] in _explain_matches(kubectl, crd["spec"]["names"]["plural"])[1]


def test_crd_preserving_unknown_fields_in_an_embedded_object(pair: Pair, created: Any, kubectl: Any) -> None:
    crd = created(_crd("unknown-in-nested", "1004", SCHEMA_PRESERVE_NESTED, "v1"))
    _compare(pair, [crd])
    _writes_match(kubectl, crd, "test-cr", {"spec": {"a": None, "b": [{"c": "d"}]}})
    plural = crd["spec"]["names"]["plural"]
    assert "preserve-unknown-properties in nested field" in _explain_matches(kubectl, plural)[1]
    _explain_matches(kubectl, f"{plural}.spec")


@pytest.mark.parametrize(("foo_at", "waldo_at"), [
    (("foo", "v1"), ("waldo", "v1beta1")),
    (("common-group", "v4"), ("common-group", "v5")),
    (("common-group", "v6"), ("common-group", "v6")),
], ids=["different-groups", "same-group-different-versions", "same-group-version-different-kinds"])
def test_multiple_crds(pair: Pair, created: Any, foo_at: tuple[str, str], waldo_at: tuple[str, str]) -> None:
    foo = created(_crd(foo_at[0], "1005", SCHEMA_FOO, foo_at[1]))
    waldo = created(_crd(waldo_at[0], "1006", SCHEMA_WALDO, waldo_at[1]))
    _compare(pair, [foo, waldo])


def test_one_crd_of_several_versions(pair: Pair, created: Any) -> None:
    _compare(pair, [created(_crd("multi-ver", "1007", SCHEMA_FOO, "v2", "v3"))])


def test_renaming_a_version_updates_the_published_spec(pair: Pair, created: Any) -> None:
    crd = created(_crd("multi-ver", "1012", SCHEMA_FOO, "v2", "v3"))
    _compare(pair, [crd])
    groups = {crd["spec"]["group"]}
    before = [_v3_root(client, groups) for client in (pair.fake, pair.real)]

    def rename(stored: dict[str, Any]) -> None:
        stored["spec"]["versions"][1]["name"] = "v4"
    renamed = _change(pair, crd, rename)
    _compare(pair, [renamed], gone={_definition_name(crd, "v3")})
    after = [_v3_root(client, groups) for client in (pair.fake, pair.real)]
    group_path = f"apis/{crd['spec']['group']}"
    for old, new in zip(before, after):
        # v3's document stays, as kube keeps it; v2's shows the kind's other versions nowhere:
        # both are unchanged, and so are their hashes.
        assert old.keys() == {f"{group_path}/v2", f"{group_path}/v3"}
        assert new.keys() == {f"{group_path}/v2", f"{group_path}/v3", f"{group_path}/v4"}
        assert all(old[path] == new[path] for path in old)
    created(renamed, exists=True)  # its definitions' cleanup awaited as renamed


def test_a_version_no_longer_served_leaves_the_spec(pair: Pair, created: Any) -> None:
    crd = created(_crd("multi-to-single-ver", "1013", SCHEMA_FOO, "v5", "v6alpha1"))
    _compare(pair, [crd])

    def unserve(stored: dict[str, Any]) -> None:
        stored["spec"]["versions"][1]["served"] = False
    _compare(pair, [_change(pair, crd, unserve)], gone={_definition_name(crd, "v6alpha1")})


def test_schema_features_and_subresources(pair: Pair, created: Any, kubectl: Any) -> None:
    """The builder's other paths: a cluster-scoped CRD with the status and scale subresources, a
    namespaced one of the same group and version, and a schema with what v2 and v3 publish
    differently; then a schema change, which changes the group version's hash."""
    scale = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
             "labelSelectorPath": ".status.selector"}
    gadget = created(_crd("gadgets", "1014", SCHEMA_GADGET, "v1", scope="Cluster",
                          subresources={"status": {}, "scale": scale}))
    other = created(_crd("gadgets", "1015", SCHEMA_WALDO, "v1", subresources={"status": {}}))
    _compare(pair, [gadget, other])
    groups = {gadget["spec"]["group"]}
    before = {server: _v3_root(client, groups) for server, client in _servers(pair)}
    plural = gadget["spec"]["names"]["plural"]
    for field in ("", ".spec", ".spec.template", ".spec.size", ".spec.maybe", ".metadata"):
        _explain_matches(kubectl, plural + field)

    def describe(stored: dict[str, Any]) -> None:
        stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"] = "Gadget, described again"
    changed = _change(pair, gadget, describe)
    for server, client in _servers(pair):
        _wait_until(lambda: "Gadget, described again" in json.dumps(_v2(client)["definitions"].get(
            _definition_name(gadget, "v1"))), f"{server}'s new description")
    _compare(pair, [changed, other])
    # kube's root lags its documents: the group version's document already shows the change
    # while the root lists the old hash for up to a second (its merged discovery cache), so the
    # new hash is awaited; fakeapi's root changes with the write.
    for server, client in _servers(pair):
        def rehashed(client: httpx.Client = client, old: dict[str, str] = before[server]) -> bool:
            new = _v3_root(client, groups)
            return new.keys() == old.keys() and all(new[path] != old[path] for path in old)
        _wait_until(rehashed, f"{server}'s v3 root to list new hashes")


def test_v2_document_revalidates_with_its_etag(pair: Pair) -> None:
    """The e2e fetches /openapi/v2 with If-None-Match: an unchanged document is a 304."""
    for client in (pair.fake, pair.real):
        first = client.get("/openapi/v2", headers={"Accept": "application/json"})
        assert first.status_code == 200 and first.headers["content-type"] == "application/json"
        again = client.get("/openapi/v2", headers={"Accept": "application/json", "If-None-Match": first.headers["etag"]})
        assert again.status_code == 304 and not again.content


def test_kubectl_explain_recursive(pair: Pair, created: Any, kubectl: Any) -> None:
    """``kubectl explain --recursive`` walks the whole published schema."""
    crd = created(_crd("foo", "1016", SCHEMA_FOO, "v1"))
    _compare(pair, [crd])
    fake, real = kubectl("explain", crd["spec"]["names"]["plural"], "--recursive")
    assert fake == real and real[0] == 0


#: Built-in paths of each shape the path builder writes (a collection, an object, a subresource,
#: the deprecated watch paths, kinds named with an article of each kind), by v3 document.
_BUILTIN_PATHS = {
    "api/v1": ("/api/v1/namespaces/{namespace}/configmaps", "/api/v1/namespaces/{namespace}/configmaps/{name}",
               "/api/v1/configmaps", "/api/v1/watch/namespaces/{namespace}/configmaps/{name}",
               "/api/v1/namespaces/{namespace}/events", "/api/v1/namespaces/{namespace}/endpoints/{name}",
               "/api/v1/namespaces/{namespace}/pods/{name}/status"),
    "apis/apps/v1": ("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale",
                     "/apis/apps/v1/namespaces/{namespace}/deployments"),
}


def test_builtin_paths_in_v2_and_v3(pair: Pair) -> None:
    """The built-in operations the CRDs' share their parameters with: in v3, and in v2, where
    they are the v3 operations rewritten (media types in kube's order, bodies as parameters)."""
    v2 = [_v2(client) for client in (pair.fake, pair.real)]
    for document, paths in _BUILTIN_PATHS.items():
        v3 = [client.get(f"/openapi/v3/{document}").json()["paths"] for client in (pair.fake, pair.real)]
        for path in paths:
            fake, real = v3[0][path], v3[1][path]
            assert not list(differences(fake, real)), "\n".join([f"v3 {path}:", *differences(fake, real)])
            fake, real = v2[0]["paths"][path], _resolved(v2[1]["paths"][path], v2[1]["parameters"])
            assert not list(differences(fake, real)), "\n".join([f"v2 {path}:", *differences(fake, real)])
