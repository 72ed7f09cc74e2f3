"""The corpus of manifests (``corpus/*.yaml``), each put through the same lifecycle on fakeapi and
on the real kube-apiserver; every answer must be the same after normalisation (``differ.py``).

A corpus file holds YAML documents, one case each::

    case: pod-minimal              # unique; names the case in reports
    manifest: {apiVersion: v1, kind: Pod, metadata: {name: ...}, spec: {...}}
    updates:                       # optional: PUTs of the stored object changed by a merge patch
      - {spec: {activeDeadlineSeconds: 5}}
    patches:                       # optional: PATCH requests
      - {type: strategic, body: {...}, subresource: status}
    lifecycle: false               # optional: only the create and the case's own steps
    delete_query: "?propagationPolicy=Background"  # optional: the lifecycle's DELETE query
    setup: [{apiVersion: v1, kind: LimitRange, ...}]  # optional: created first (a status
                                   # given is then written through /status), deleted after
    namespace: {name: ..., labels: {...}}  # optional: the case's own namespace (metadata), in
                                   # which it works instead of kasdiff: created (compared) before
                                   # the setup, deleted after
    namespace_patches: [{metadata: {labels: {...}}}]  # optional: merge patches of the case's
                                   # namespace, after the case's updates and patches
    await_condition: Available     # optional: after the create, wait until each server's object
                                   # has this status condition (set by a controller of the
                                   # server, kube-aggregator's availability controllers), then
                                   # read it (compared)

``!repeat [text, count]`` in a manifest is ``text`` repeated ``count`` times (objects over a size
limit without megabytes of YAML).

The lifecycle: create; get; list by name; a PUT of the object unchanged (a no-op: same
resourceVersion); the case's updates and patches; a label by merge patch, an annotation by
strategic merge patch, a label by JSON patch; server-side apply of the manifest; delete; get.
An invalid manifest stops after the create (whose Status must be the same). Differences not
listed in ``known-differences.yaml`` fail the test, and a listed difference that no longer
happens fails it too, so the list stays true.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from differ import NAMESPACE, Outcome, Pair, known_differences

from fakeapi.apis.catalogue import default_catalogue

CORPUS = Path(__file__).parent / "corpus"
#: Kinds that kube reads from informers: ResourceQuota, LimitRanger's LimitRanges (a namespace
#: whose lister shows none is looked up live and kept so for 30 s), DefaultIngressClass's
#: IngressClasses, PersistentVolumeClaimResize's StorageClasses (admission plugins), the Services
#: and EndpointSlices behind APIServices (the aggregator's availability controller).
_READ_FROM_INFORMERS = frozenset({"ResourceQuota", "LimitRange", "IngressClass", "StorageClass", "Service",
                                  "EndpointSlice"})
#: How long a case's ``await_condition`` may take to appear.
_CONDITION_TIMEOUT = 10.0
_PATCH_TYPES = {
    "merge": "application/merge-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "json": "application/json-patch+json",
    "apply": "application/apply-patch+yaml",
}


def _json(value: Any) -> bytes:
    """A request body as client-go and kubectl send it: compact JSON (kube keeps a RawExtension's
    bytes as sent, so spacing is visible to byte comparisons such as ControllerRevision data's)."""
    return json.dumps(value, separators=(",", ":")).encode()


def _repeat(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    text, count = loader.construct_sequence(node)  # type: ignore[arg-type]
    return str(text) * int(count)


yaml.SafeLoader.add_constructor("!repeat", _repeat)


def _cases() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(CORPUS.glob("**/*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                document["file"] = str(path.relative_to(CORPUS))
                cases.append(document)
    names = [case["case"] for case in cases]
    duplicates = {name for name in names if names.count(name) > 1}
    assert not duplicates, f"case names must be unique: {sorted(duplicates)}"
    return cases


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


class Case:
    def __init__(self, pair: Pair, spec: dict[str, Any]) -> None:
        self.pair = pair
        self.spec = spec
        self.name = spec["case"]
        manifest = spec["manifest"]
        self.namespace = spec.get("namespace", {}).get("name", NAMESPACE)
        self.collection = _collection(manifest, self.namespace)
        self.kind = manifest["kind"]
        #: The object's name on (fakeapi, kube): they differ when the manifest has generateName.
        self.names = (manifest.get("metadata", {}).get("name", ""),) * 2

    def send(self, verb: str, method: str, subresource: str | None = None, body: Any = None, *,
             query: str = "", content_type: str = "application/json", collection: bool = False) -> Outcome:
        raw = None
        if body is not None:
            raw = body.encode() if isinstance(body, str) else _json(body)
        if collection:
            path: str | tuple[str, str] = self.collection + query
        else:
            path = tuple(self.item(name, subresource) + query for name in self.names)  # type: ignore[assignment]
        return self.pair.send(self.name, self.kind, verb, method, path, body=raw, content_type=content_type)

    def item(self, name: str, subresource: str | None = None) -> str:
        return f"{self.collection}/{name}" + (f"/{subresource}" if subresource else "")

    def run(self) -> None:
        """The case's lifecycle, between the creation of its setup objects and their deletion
        (not compared: deletion is the lifecycle's business); they are read (compared) after."""
        setup = self.spec.get("setup", ())
        if "namespace" in self.spec:
            self.pair.send(self.name, "Namespace", "namespace-create", "POST", "/api/v1/namespaces",
                           body=_json({"apiVersion": "v1", "kind": "Namespace", "metadata": self.spec["namespace"]}))
        for manifest in setup:
            self.pair.send(self.name, manifest["kind"], "setup-create", "POST", _collection(manifest, self.namespace),
                           body=_json(manifest))
            if "status" in manifest:
                self.pair.send(self.name, manifest["kind"], "setup-status", "PATCH",
                               f"{_collection(manifest, self.namespace)}/{manifest['metadata']['name']}/status",
                               body=_json({"status": manifest["status"]}), content_type=_PATCH_TYPES["merge"])
        if any(manifest["kind"] in _READ_FROM_INFORMERS for manifest in setup):
            # kube's admission plugins read these from informers (and quota's, a namespace it
            # found without any stays so in its live-lookup cache for 30 s): give the informer
            # the moment it needs to see the new object, or kube admits without it (by chance).
            time.sleep(1)
        try:
            self._run()
        finally:
            for manifest in setup:  # what the case did to them (a quota's usage)
                self.pair.send(self.name, manifest["kind"], "setup-get", "GET",
                               f"{_collection(manifest, self.namespace)}/{manifest['metadata']['name']}")
            for manifest in reversed(setup):
                for client in (self.pair.fake, self.pair.real):
                    client.delete(f"{_collection(manifest, self.namespace)}/{manifest['metadata']['name']}")
            if "namespace" in self.spec:
                for client in (self.pair.fake, self.pair.real):
                    client.delete(f"/api/v1/namespaces/{self.namespace}")

    def _run(self) -> None:
        spec = self.spec
        created = self.send("create", "POST", body=spec["manifest"], collection=True)
        if created.real.status >= 300 or created.fake.status >= 300:
            return
        self.names = (self._created_name(self.pair.fake), self._created_name(self.pair.real))
        if "await_condition" in spec:
            self._await_condition(spec["await_condition"])
        lifecycle = spec.get("lifecycle", True)
        if lifecycle:
            self.send("get", "GET")
            self.pair.send(self.name, self.kind, "list", "GET", tuple(  # type: ignore[arg-type]
                f"{self.collection}?fieldSelector=metadata.name%3D{name}" for name in self.names))
            self._put_changed("update-noop", {})
        for change in spec.get("updates", ()):
            self._put_changed("update", change)
        for patch in spec.get("patches", ()):
            kind = patch["type"]
            body = yaml.safe_dump(patch["body"]) if kind == "apply" else patch["body"]
            self.send(f"patch-{kind}", "PATCH", patch.get("subresource"), body, content_type=_PATCH_TYPES[kind],
                      query="?fieldManager=kasdiff&force=true" if kind == "apply" else "")
        if spec.get("namespace_patches"):
            # kube's PodSecurity checks a namespace's new enforce level against the pods its
            # informer holds: give it the moment it needs to see the pods just created.
            time.sleep(1)
        for patch in spec.get("namespace_patches", ()):
            self.pair.send(self.name, "Namespace", "namespace-patch", "PATCH", f"/api/v1/namespaces/{self.namespace}",
                           body=_json(patch), content_type=_PATCH_TYPES["merge"])
        if not lifecycle:
            if "/namespaces/" not in self.collection:
                # A cluster-scoped object outlives the case's namespace: removed (not compared),
                # so that no later test meets it (an APIService's group is in kube's discovery).
                for client, name in zip((self.pair.fake, self.pair.real), self.names, strict=True):
                    client.delete(self.item(name))
            return
        self.send("patch-merge", "PATCH", body={"metadata": {"labels": {"kasdiff/merge": "yes"}}},
                  content_type=_PATCH_TYPES["merge"])
        self.send("patch-strategic", "PATCH", body={"metadata": {"annotations": {"kasdiff/strategic": "yes"}}},
                  content_type=_PATCH_TYPES["strategic"])
        self.send("patch-json", "PATCH", body=[{"op": "add", "path": "/metadata/labels/kasdiff~1json", "value": "yes"}],
                  content_type=_PATCH_TYPES["json"])
        self.pair.send(self.name, self.kind, "apply", "PATCH", tuple(  # type: ignore[arg-type]
            self.item(name) + "?fieldManager=kasdiff-apply&force=true" for name in self.names),
            body=tuple(_applied(spec["manifest"], name) for name in self.names),  # type: ignore[arg-type]
            content_type=_PATCH_TYPES["apply"])
        self.send("delete", "DELETE", query=spec.get("delete_query", ""))
        self.send("get-deleted", "GET")

    def _created_name(self, client: Any) -> str:
        """The name the server gave the object (the newest object of the case's kind there)."""
        if self.names[0]:
            return self.names[0]
        items = client.get(self.collection).json()["items"]
        prefix = self.spec["manifest"]["metadata"]["generateName"]
        mine = [item for item in items if item["metadata"]["name"].startswith(prefix)]
        return max(mine, key=lambda item: int(item["metadata"]["resourceVersion"]))["metadata"]["name"]

    def _await_condition(self, condition: str) -> None:
        """Wait until the object on each server has the status condition ``condition`` (at most
        ``_CONDITION_TIMEOUT``), then read it from both (compared)."""
        deadline = time.monotonic() + _CONDITION_TIMEOUT
        for client, name in zip((self.pair.fake, self.pair.real), self.names, strict=True):
            while time.monotonic() < deadline:
                conditions = (client.get(self.item(name)).json().get("status") or {}).get("conditions") or ()
                if any(c.get("type") == condition for c in conditions):
                    break
                time.sleep(0.1)
        self.send("get-awaited", "GET")

    def _put_changed(self, verb: str, change: dict[str, Any]) -> None:
        """PUT the object as each server stores it, changed by ``change`` (a merge patch): both
        servers get the same change to their own current object."""
        bodies = []
        for client, name in zip((self.pair.fake, self.pair.real), self.names, strict=True):
            current = client.get(self.item(name)).json()
            bodies.append(_json(merge_patch(current, change)))
        self.pair.send(self.name, self.kind, verb, "PUT", tuple(self.item(name) for name in self.names),  # type: ignore[arg-type]
                       body=(bodies[0], bodies[1]))


def _collection(manifest: dict[str, Any], namespace: str = NAMESPACE) -> str:
    group, _, version = manifest["apiVersion"].rpartition("/")
    resource = default_catalogue().lookup_kind(group, manifest["kind"])
    assert resource is not None, f"no resource for {manifest['apiVersion']} {manifest['kind']}"
    root = f"/apis/{group}/{version}" if group else f"/api/{version}"
    return f"{root}/namespaces/{namespace}/{resource.plural}" if resource.namespaced else f"{root}/{resource.plural}"


def _applied(manifest: dict[str, Any], name: str) -> bytes:
    """The manifest as an apply configuration of the object named ``name`` on one server."""
    metadata = {key: value for key, value in manifest.get("metadata", {}).items() if key != "generateName"}
    return yaml.safe_dump({**manifest, "metadata": {**metadata, "name": name}}).encode()


CASES = _cases()


@pytest.mark.parametrize("spec", CASES, ids=[case["case"] for case in CASES])
def test_case(pair: Pair, spec: dict[str, Any]) -> None:
    start = len(pair.outcomes)
    Case(pair, spec).run()
    found = [f"{o.verb}: {d}" for o in pair.outcomes[start:] for d in o.differences]
    known = known_differences().get(spec["case"], [])
    unexpected = [d for d in found if d not in known]
    gone = [d for d in known if d not in found]
    assert not unexpected, f"{spec['case']} ({spec['file']}) differs from kube-apiserver:\n" + "\n".join(unexpected)
    assert not gone, f"{spec['case']}: known differences no longer happen, remove them:\n" + "\n".join(gone)
