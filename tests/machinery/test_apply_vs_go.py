"""Server-side apply and managedFields against kube's own field manager.

``tests/ssadiff`` runs apimachinery v0.32.13's ``NewDefaultCRDFieldManager`` (typed by
``managedfields.NewTypeConverter`` from the same OpenAPI definitions fakeapi reads, or the
deduced converter) on each case below; ``FieldManager`` must give the same object and
managedFields, or the same Status. Conflict causes are compared grouped by manager: kube lists
managers in Go map order.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fakeapi.machinery.field_manager import FieldManager
from fakeapi.machinery.release import TARGET_RELEASE
from fakeapi.machinery.schema import Schema, kind_schema
from fakeapi.machinery.status import StatusError

SSADIFF = Path(__file__).resolve().parents[1] / "ssadiff"
NOW = "2025-01-01T00:00:00Z"
EARLIER = "2024-06-01T10:00:00Z"


def _definitions_path() -> Path:
    spec = importlib.util.find_spec("kubernetes_validate")
    assert spec is not None and spec.submodule_search_locations
    return (Path(next(iter(spec.submodule_search_locations))) / "kubernetes-json-schema"
            / f"v{TARGET_RELEASE}.0-local" / "_definitions.json")


@pytest.fixture(scope="session")
def ssadiff_bin() -> Path:
    go = shutil.which("go", path=os.environ.get("PATH", "") + os.pathsep + "/usr/local/go/bin")
    if go is None:
        pytest.fail("go is not installed: the server-side apply differential test needs it (/usr/local/go/bin)")
    out = SSADIFF / "bin" / "ssadiff"
    subprocess.run([go, "build", "-o", str(out), "."], cwd=SSADIFF, check=True)
    return out


# --- cases ---------------------------------------------------------------------------------

DEPLOY = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "app", "image": "nginx:1",
                                                   "ports": [{"containerPort": 80}]}]}}},
}
CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "default"},
      "data": {"a": "1", "b": "2"}}
WIDGET_SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {
            "size": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"],
                      "items": {"type": "object", "properties": {"id": {"type": "string"}, "v": {"type": "string"}}}},
            "order": {"type": "array", "items": {"type": "string"}},
            "sel": {"type": "object", "x-kubernetes-map-type": "atomic",
                    "additionalProperties": {"type": "string"}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        }},
    },
}
WIDGET = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
          "spec": {"size": 1, "tags": ["a", "b"], "items": [{"id": "x", "v": "1"}, {"id": "y", "v": "2"}],
                   "order": ["p", "q"], "sel": {"k": "v"}, "free": {"deep": {"x": 1}, "list": [1, 2]}}}


def with_changes(obj: dict[str, Any], *changes: tuple[tuple[str, ...], Any]) -> dict[str, Any]:
    """A copy of ``obj`` with each (path, value) set; value ``...`` deletes."""
    out = copy.deepcopy(obj)
    for path, value in changes:
        node = out
        for part in path[:-1]:
            node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
        if value is ...:
            node.pop(path[-1], None)
        else:
            node[path[-1]] = value
    return out


def step(op: str, obj: dict[str, Any], manager: str, **extra: Any) -> dict[str, Any]:
    return {"op": op, "object": obj, "manager": manager, **extra}


SCENARIOS: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
    # scenario: (endpoint, steps); each step runs on the previous step's result
    "create then apply takes nothing": ({"apiVersion": "apps/v1", "kind": "Deployment"}, [
        step("update", DEPLOY, "kubectl-create"),
        step("apply", DEPLOY, "kubectl"),
    ]),
    "apply create, update shrinks, apply conflicts": ({"apiVersion": "apps/v1", "kind": "Deployment"}, [
        step("apply", DEPLOY, "kubectl"),
        step("update", with_changes(DEPLOY, (("spec", "replicas"), 5)), "hpa"),
        step("apply", with_changes(DEPLOY, (("spec", "replicas"), 3)), "kubectl"),
    ]),
    "force moves ownership": ({"apiVersion": "apps/v1", "kind": "Deployment"}, [
        step("apply", DEPLOY, "kubectl"),
        step("update", with_changes(DEPLOY, (("spec", "replicas"), 5), (("metadata", "labels", "x"), "y")), "hpa"),
        step("apply", with_changes(DEPLOY, (("spec", "replicas"), 3), (("metadata", "labels", "x"), "z")), "kubectl",
             force=True),
    ]),
    "two conflicting managers": ({"apiVersion": "apps/v1", "kind": "Deployment"}, [
        step("apply", DEPLOY, "a"),
        step("apply", with_changes(DEPLOY, (("metadata", "labels", "b"), "1")), "b"),
        step("apply", with_changes(DEPLOY, (("spec", "replicas"), 9), (("metadata", "labels", "app"), "x"),
                                   (("spec", "template", "spec", "containers"), [{"name": "app", "image": "nginx:2"}])),
             "c"),
    ]),
    "applier drops fields it stops applying": ({"apiVersion": "apps/v1", "kind": "Deployment"}, [
        step("apply", with_changes(DEPLOY, (("metadata", "labels", "tier"), "fe"), (("metadata", "annotations"), {"n": "1"})),
             "kubectl"),
        step("apply", DEPLOY, "kubectl"),
    ]),
    "shared fields survive removal": ({"apiVersion": "apps/v1", "kind": "Deployment"}, [
        step("apply", with_changes(DEPLOY, (("metadata", "labels", "tier"), "fe")), "a"),
        step("apply", with_changes(DEPLOY, (("metadata", "labels", "tier"), "fe")), "b"),
        step("apply", DEPLOY, "a"),
        step("apply", with_changes(DEPLOY, (("metadata", "labels"), ...)), "b"),
    ]),
    "containers and ports by key": ({"apiVersion": "apps/v1", "kind": "Deployment"}, [
        step("apply", DEPLOY, "a"),
        step("apply", with_changes(DEPLOY, (("spec", "template", "spec", "containers"), [
            {"name": "side", "image": "busybox", "ports": [{"containerPort": 53, "protocol": "UDP"},
                                                           {"containerPort": 53, "protocol": "TCP"}]}])), "b"),
        step("apply", with_changes(DEPLOY, (("spec", "template", "spec", "containers"), [
            {"name": "app", "image": "nginx:1", "ports": [{"containerPort": 80}, {"containerPort": 443}]}])), "a"),
    ]),
    "finalizers are a set": ({"apiVersion": "v1", "kind": "ConfigMap"}, [
        step("apply", with_changes(CM, (("metadata", "finalizers"), ["a/x", "b<&>"])), "a"),
        step("apply", with_changes(CM, (("metadata", "finalizers"), ["c"]), (("data",), ...)), "b"),
        step("apply", with_changes(CM, (("metadata", "finalizers"), ["b<&>"])), "a"),
    ]),
    # merge order: the configuration's items in its order, the live object's others kept in place
    "set items merge in order": ({"apiVersion": "v1", "kind": "ConfigMap"}, [
        step("apply", with_changes(CM, (("metadata", "finalizers"), ["x", "y"])), "a"),
        step("apply", with_changes(CM, (("metadata", "finalizers"), ["z", "x"])), "b"),
        step("apply", with_changes(CM, (("metadata", "finalizers"), ["w", "y", "x"])), "c"),
    ]),
    "keyed items merge in order": ({"apiVersion": "apps/v1", "kind": "Deployment"}, [
        step("apply", with_changes(DEPLOY, (("spec", "template", "spec", "containers"), [
            {"name": "a", "image": "i"}, {"name": "b", "image": "i"}, {"name": "c", "image": "i"}])), "m1"),
        step("apply", with_changes(DEPLOY, (("spec", "template", "spec", "containers"), [
            {"name": "d", "image": "i"}, {"name": "c", "image": "i"}, {"name": "a", "image": "i"}])), "m2"),
        step("apply", with_changes(DEPLOY, (("spec", "template", "spec", "containers"), [
            {"name": "b", "image": "j"}, {"name": "e", "image": "i"}, {"name": "a", "image": "i"}])), "m3", force=True),
    ]),
    "update by many managers caps at ten": ({"apiVersion": "v1", "kind": "ConfigMap"}, [
        step("update", CM, "creator"),
        *(step("update", with_changes(CM, *((("data", f"k{j}"), str(j)) for j in range(i + 1))), f"writer-{i:02d}",
               live_uid=True) for i in range(12)),
    ]),
    "managedFields reset by an empty list": ({"apiVersion": "v1", "kind": "ConfigMap"}, [
        step("update", CM, "creator"),
        step("update", with_changes(CM, (("metadata", "managedFields"), []), (("data", "c"), "3")), "writer",
             live_uid=True),
    ]),
    "managedFields kept when omitted, untracked object stays untracked": ({"apiVersion": "v1", "kind": "ConfigMap"}, [
        step("update", with_changes(CM, (("data", "c"), "3")), "writer", live=with_changes(CM, (("metadata", "uid"), "u"))),
    ]),
    "first apply to an untracked object": ({"apiVersion": "v1", "kind": "ConfigMap"}, [
        step("apply", with_changes(CM, (("data",), {"a": "9"})), "kubectl",
             live=with_changes(CM, (("metadata", "uid"), "u"))),
    ]),
    "status subresource": ({"apiVersion": "apps/v1", "kind": "Deployment", "subresource": "status"}, [
        step("update", with_changes(DEPLOY, (("status",), {"replicas": 2})), "controller",
             live=with_changes(DEPLOY, (("metadata", "uid"), "u"))),
    ]),
    "custom resource lists and maps": ({"apiVersion": "example.com/v1", "kind": "Widget", "crdSchema": WIDGET_SCHEMA}, [
        step("apply", WIDGET, "a"),
        step("apply", with_changes(WIDGET, (("spec", "tags"), ["c"]), (("spec", "items"), [{"id": "z", "v": "3"}]),
                                   (("spec", "size"), ...), (("spec", "order"), ["r"]), (("spec", "sel"), {"o": "p"}),
                                   (("spec", "free"), {"deep": {"y": 2}})), "b", force=True),
        step("apply", with_changes(WIDGET, (("spec", "tags"), ["a"]), (("spec", "items"), [{"id": "x", "v": "1"}])), "a"),
    ]),
    "deduced types": ({"apiVersion": "example.com/v1", "kind": "Widget", "deduced": True}, [
        step("apply", WIDGET, "a"),
        step("apply", with_changes(WIDGET, (("spec", "tags"), ["c"]), (("metadata", "finalizers"), ["f"])), "b"),
        step("apply", with_changes(WIDGET, (("metadata", "finalizers"), ["g"])), "a", force=True),
    ]),
    "bad apply bodies": ({"apiVersion": "apps/v1", "kind": "Deployment"}, [
        step("apply", with_changes(DEPLOY, (("apiVersion",), ...)), "kubectl"),
        step("apply", with_changes(DEPLOY, (("kind",), "StatefulSet")), "kubectl"),
        step("apply", with_changes(DEPLOY, (("metadata", "managedFields"), [])), "kubectl"),
        step("apply", with_changes(DEPLOY, (("spec", "replicas"), "two")), "kubectl"),
        step("apply", with_changes(DEPLOY, (("spec", "bogus"), 1)), "kubectl"),
        step("apply", with_changes(DEPLOY, (("spec", "template", "spec", "containers"), [{"image": "x"}])), "kubectl"),
        # lists of one scalar type: a string list with a number, a boolean, a null, a map
        step("apply", with_changes(DEPLOY, (("spec", "template", "spec", "containers"), [
            {"name": "app", "image": "x", "args": ["a", 1]}])), "kubectl"),
        step("apply", with_changes(DEPLOY, (("spec", "template", "spec", "containers"), [
            {"name": "app", "image": "x", "command": [True]}])), "kubectl"),
        step("apply", with_changes(DEPLOY, (("spec", "template", "spec", "containers"), [
            {"name": "app", "image": "x", "args": ["a", None]}])), "kubectl"),
        step("apply", with_changes(DEPLOY, (("metadata", "finalizers"), [{"a": "b"}])), "kubectl"),
    ]),
    "nulls, empty lists and a zero entry reset": ({"apiVersion": "v1", "kind": "ConfigMap"}, [
        step("apply", with_changes(CM, (("metadata", "labels"), {"a": "b"}), (("metadata", "finalizers"), ["x"])), "one"),
        step("apply", with_changes(CM, (("metadata", "labels"), None), (("metadata", "finalizers"), []),
                                   (("data", "f"), 1.5)), "two", force=True),
        step("update", with_changes(CM, (("metadata", "managedFields"), [{}])), "three", live_uid=True),
    ]),
    "duplicate keys in the live object": ({"apiVersion": "apps/v1", "kind": "Deployment"}, [
        step("update", with_changes(DEPLOY, (("spec", "template", "spec", "containers"), [
            {"name": "app", "image": "a"}, {"name": "app", "image": "b"}])), "creator"),
        step("apply", DEPLOY, "kubectl", live_uid=True),
    ]),
    "no-op apply keeps the time": ({"apiVersion": "v1", "kind": "ConfigMap"}, [
        step("apply", CM, "kubectl"),
        step("apply", CM, "kubectl", now=NOW.replace("2025", "2026")),
    ]),
    "kubectl takes over from client-side apply": ({"apiVersion": "v1", "kind": "ConfigMap"}, [
        step("update", with_changes(CM, (("metadata", "annotations"), {
            "kubectl.kubernetes.io/last-applied-configuration": json.dumps(CM)})), "kubectl-client-side-apply"),
        step("apply", with_changes(CM, (("data", "a"), "changed")), "kubectl", live_uid=True),
    ]),
}


def expand(name: str) -> list[dict[str, Any]]:
    endpoint, steps = SCENARIOS[name]
    return [{**{k: v for k, v in endpoint.items()}, "now": NOW, **s} for s in steps]


def run_python(case: dict[str, Any], live: dict[str, Any] | None) -> dict[str, Any]:
    if case.get("deduced"):
        schema = None
    elif "crdSchema" in case:
        schema = Schema(case["crdSchema"])
    else:
        group, _, version = case["apiVersion"].rpartition("/")
        schema = kind_schema(group, version, case["kind"])
    manager = FieldManager(case["apiVersion"], case["kind"], schema, subresource=case.get("subresource", ""))
    try:
        if case["op"] == "apply":
            return {"object": manager.apply(live, case["object"], case["manager"], force=case.get("force", False),
                                            now=case["now"])}
        return {"object": manager.update(live, case["object"], case["manager"], now=case["now"])}
    except StatusError as err:
        return {"error": err.to_dict()}


def comparable(result: dict[str, Any]) -> dict[str, Any]:
    """Conflict causes grouped by manager, in order within one (kube walks a Go map)."""
    out = copy.deepcopy(result)
    causes = out.get("error", {}).get("details", {}).get("causes")
    if causes:
        causes.sort(key=lambda cause: cause.get("message", ""))
    return out


def run_go(binary: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    lines = "".join(json.dumps(case) + "\n" for case in cases)
    done = subprocess.run([str(binary), "-definitions", str(_definitions_path())], input=lines,
                          capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_matches_kube_field_manager(ssadiff_bin: Path, name: str) -> None:
    live: dict[str, Any] | None = None
    for index, case in enumerate(expand(name)):
        if "live" in case:
            live = case.pop("live")
        if case.pop("live_uid", False) and live is not None:
            live = with_changes(live, (("metadata", "uid"), "uid-1"))
        # the previous result's times are in the past by the next step (kube compares them)
        go_case = {**case, "live": live}
        (expected,) = run_go(ssadiff_bin, [go_case])
        assert "harnessError" not in expected, expected
        got = run_python(case, copy.deepcopy(live))
        assert comparable(got) == comparable(expected), f"step {index}"
        if "object" in got:
            live = _age_times(got["object"])


def _age_times(obj: dict[str, Any]) -> dict[str, Any]:
    """Moves every managedFields time before the next step's ``now`` so the Go harness, which
    stamps ``now`` on entries newer than its start, leaves them alone."""
    out = copy.deepcopy(obj)
    for entry in out.get("metadata", {}).get("managedFields") or []:
        if entry.get("time") == NOW:
            entry["time"] = EARLIER
    return out
