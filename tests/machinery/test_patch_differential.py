"""``fakeapi.machinery.patch`` against Go: the libraries kube-apiserver v1.32 patches with, driven by
``tests/patchdiff`` (built here with ``go build``), on hand-written and generated patches over
realistic Pods, Deployments, Services and ConfigMaps. Results must be equal; errors must have the
same code, reason and message, and the same library error behind them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakeapi.machinery.patch import (
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    apply_patch,
)
from fakeapi.machinery.schema import kind_schema
from fakeapi.machinery.status import StatusError

HARNESS = Path(__file__).parents[1] / "patchdiff"
MEDIA_TYPES = {"json": JSON_PATCH, "merge": MERGE_PATCH, "strategic": STRATEGIC_MERGE_PATCH}
GROUPS = {"Pod": ("", "v1"), "Service": ("", "v1"), "ConfigMap": ("", "v1"), "Deployment": ("apps", "v1"),
          "PodDisruptionBudget": ("policy", "v1")}


class GoPatcher:
    """The running harness: one JSON case per line in, one answer per line out."""

    def __init__(self, binary: Path) -> None:
        self.process = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def apply(self, patch_type: str, kind: str, original: dict[str, Any], patch: str) -> dict[str, Any]:
        assert self.process.stdin and self.process.stdout
        case = {"type": patch_type, "kind": kind, "original": original, "patch": patch}
        self.process.stdin.write(json.dumps(case) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait(10)


@pytest.fixture(scope="session")
def go_patcher() -> Iterator[GoPatcher]:
    env = dict(os.environ, PATH=f"/usr/local/go/bin:{os.environ.get('PATH', '')}")
    if shutil.which("go", path=env["PATH"]) is None:
        pytest.fail("Go is required for the patch differential tests (make test-deps installs it)")
    subprocess.run(["go", "build", "-o", "bin/patchdiff", "./cmd/patchdiff"], cwd=HARNESS, env=env, check=True)
    patcher = GoPatcher(HARNESS / "bin" / "patchdiff")
    yield patcher
    patcher.close()


def ours(patch_type: str, kind: str, original: dict[str, Any], patch: str) -> dict[str, Any]:
    """Our answer in the harness's shape."""
    group, version = GROUPS[kind]
    schema = kind_schema(group, version, kind)
    try:
        return {"result": apply_patch(MEDIA_TYPES[patch_type], original, patch.encode(), schema,
                                      group=group, kind=kind, name="x")}
    except StatusError as err:
        return {"error": {"code": err.code, "reason": err.reason, "message": err.message,
                          "cause": str(err.__cause__) if err.__cause__ else ""}}


def assert_same(go: GoPatcher, patch_type: str, kind: str, original: dict[str, Any], patch: str) -> None:
    expected = go.apply(patch_type, kind, original, patch)
    if "panic" in expected:  # Go panics (kube answers 500): nothing to compare
        return
    actual = ours(patch_type, kind, original, patch)
    context = f"{patch_type} {kind} patch {patch}: ours {actual}, Go {expected}"
    if "result" in expected:
        if isinstance(expected["result"], dict):
            assert actual == expected, context
        else:  # a result that is no object fails to decode in kube: 422
            assert actual["error"]["code"] == 422, context
        return
    assert "error" in actual, context
    go_error, our_error = expected["error"], actual["error"]
    assert {k: our_error[k] for k in ("code", "reason", "message")} == \
        {k: go_error.get(k, "") for k in ("code", "reason", "message")}, context
    if go_error.get("cause", "") not in ("", go_error["message"]):  # the generic 422 hides the library's error
        assert our_error["cause"] == go_error["cause"], context


# ----------------------------------------------------------------------------- objects

POD: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "uid": "u-1", "resourceVersion": "12",
                 "labels": {"app": "web", "tier": "front"}, "annotations": {"a": "<b>&"},
                 "finalizers": ["example.com/a", "example.com/b"],
                 "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "o-1"}]},
    "spec": {
        "containers": [
            {"name": "app", "image": "nginx:1", "ports": [{"containerPort": 80, "protocol": "TCP"}],
             "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
             "volumeMounts": [{"name": "data", "mountPath": "/data"}],
             "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "500m"}}},
            {"name": "sidecar", "image": "busybox", "args": ["sleep", "1000"]},
        ],
        "volumes": [{"name": "data", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "cfg"}}],
        "tolerations": [{"key": "k", "operator": "Exists"}],
        "nodeSelector": {"disk": "ssd"},
        "terminationGracePeriodSeconds": 30,
    },
    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
}

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}, "generation": 3},
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "web"}},
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
        "template": {"metadata": {"labels": {"app": "web"}},
                     "spec": {"containers": [{"name": "app", "image": "nginx:1",
                                              "env": [{"name": "A", "value": "1"}]}]}},
    },
}

SERVICE: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
    "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}],
             "type": "ClusterIP"},
}

CONFIGMAP: dict[str, Any] = {
    "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "default"},
    "data": {"a": "1", "b": "2"},
}

PDB: dict[str, Any] = {
    "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web", "tier": "front"}}},
}

OBJECTS = {"Pod": POD, "Deployment": DEPLOYMENT, "Service": SERVICE, "ConfigMap": CONFIGMAP, "PodDisruptionBudget": PDB}


# ----------------------------------------------------------------------------- hand-written cases

STRATEGIC_CASES = [
    ("Pod", {"metadata": {"labels": {"app": None, "new": "x"}}}),
    ("Pod", {"spec": {"containers": [{"name": "app", "image": "nginx:2"}]}}),
    ("Pod", {"spec": {"containers": [{"name": "new", "image": "x"}]}}),
    ("Pod", {"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}}),
    ("Pod", {"spec": {"containers": [{"name": "z", "image": "z"}, {"$patch": "replace"}]}}),
    ("Pod", {"spec": {"containers": [{"name": "app", "env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}]}]}}),
    ("Pod", {"spec": {"containers": [{"name": "app", "env": [{"name": "A", "$patch": "delete"}]}]}}),
    ("Pod", {"spec": {"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "app"}]}}),
    ("Pod", {"spec": {"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "n"}, {"name": "app"}],
                      "containers": [{"name": "n", "image": "n"}]}}),
    ("Pod", {"spec": {"$setElementOrder/containers": [{"name": "app"}], "containers": [{"name": "q", "image": "q"}]}}),
    ("Pod", {"metadata": {"finalizers": ["example.com/c", "example.com/a"]}}),
    ("Pod", {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a"]}}),
    ("Pod", {"metadata": {"$setElementOrder/finalizers": ["example.com/b", "example.com/a"]}}),
    ("Pod", {"metadata": {"$deleteFromPrimitiveList/finalizers": None}}),
    ("Pod", {"metadata": {"$deleteFromPrimitiveListfinalizers": ["x"]}}),
    ("Pod", {"spec": {"$setElementOrderx": []}}),
    ("Pod", {"metadata": {"ownerReferences": [{"uid": "o-2", "name": "b", "kind": "K", "apiVersion": "v1"}]}}),
    ("Pod", {"spec": {"volumes": [{"name": "data", "hostPath": {"path": "/x"}, "$retainKeys": ["name", "hostPath"]}]}}),
    ("Pod", {"spec": {"volumes": [{"name": "data", "hostPath": {"path": "/x"}, "$retainKeys": ["name"]}]}}),
    ("Pod", {"spec": {"volumes": [{"name": "data", "$retainKeys": "name"}]}}),
    ("Pod", {"spec": {"tolerations": [{"key": "other", "operator": "Exists"}]}}),
    ("Pod", {"spec": {"containers": [{"image": "no-name"}]}}),
    ("Pod", {"spec": {"containers": [{"name": "app", "$patch": "merge"}]}}),
    ("Pod", {"spec": {"containers": [{"name": "app", "$patch": "bogus"}]}}),
    ("Pod", {"spec": {"$patch": "replace", "containers": []}}),
    ("Pod", {"spec": {"$patch": "delete"}}),
    ("Pod", {"metadata": {"$patch": "merge"}}),
    ("Pod", {"spec": {"containers": [["nested"]]}}),
    ("Pod", {"spec": {"containers": [{"name": "app", "args": ["x"]}, "scalar"]}}),
    ("Pod", {"spec": {"containers": {"name": "app"}}}),
    ("Pod", {"spec": {"nodeSelector": {"disk": None, "zone": "a"}, "x-unknown": {"a": None, "b": {"c": None}}}}),
    ("Pod", {"spec": {"containers": [{"name": "new", "env": [{"name": "X", "value": None}], "image": None}]}}),
    ("Pod", {"metadata": {"finalizers": [1, "x"]}}),
    ("Pod", {"status": {"conditions": [{"type": "Ready", "status": "False"}, {"type": "PodScheduled", "status": "True"}]}}),
    ("Deployment", {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}),
    ("Deployment", {"spec": {"strategy": {"type": "Recreate", "rollingUpdate": None}}}),
    ("Deployment", {"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "nginx:3"}]}}, "replicas": 5}}),
    ("Deployment", {"spec": {"selector": {"matchLabels": {"x": "y"}}}}),
    ("Service", {"spec": {"ports": [{"port": 443, "name": "https"}]}}),
    ("Service", {"spec": {"ports": [{"port": 80, "targetPort": 9090}]}}),
    ("Service", {"spec": {"ports": [{"port": 80, "$patch": "delete"}]}}),
    ("ConfigMap", {"data": {"a": None, "c": "3"}, "metadata": {"labels": {"x": "y"}}}),
    ("ConfigMap", {"$patch": "replace", "data": {"only": "1"}}),
    ("PodDisruptionBudget", {"spec": {"selector": {"matchLabels": {"app": "other"}}}}),
]

RAW_STRATEGIC_PATCHES = ["", "null", "[1]", '"x"', "5", "true", "{", '{"a":1}x', '{"metadata":{"labels":{"a":"\\ud800"}}}']


@pytest.mark.parametrize(("kind", "patch"), STRATEGIC_CASES)
def test_strategic_merge_cases(go_patcher: GoPatcher, kind: str, patch: dict[str, Any]) -> None:
    assert_same(go_patcher, "strategic", kind, OBJECTS[kind], json.dumps(patch))


@pytest.mark.parametrize("patch", RAW_STRATEGIC_PATCHES)
@pytest.mark.parametrize("patch_type", ["strategic", "merge", "json"])
def test_undecodable_patches(go_patcher: GoPatcher, patch_type: str, patch: str) -> None:
    assert_same(go_patcher, patch_type, "Pod", POD, patch)


JSON_PATCH_CASES: list[list[Any] | Any] = [
    [{"op": "add", "path": "/metadata/labels/new", "value": "x"}],
    [{"op": "add", "path": "/metadata/labels/new"}],
    [{"op": "add", "path": "/metadata/missing/new", "value": "x"}],
    [{"op": "add", "path": "/spec/containers/-", "value": {"name": "c"}}],
    [{"op": "add", "path": "/spec/containers/-1", "value": {"name": "c"}}],
    [{"op": "add", "path": "/spec/containers/-3", "value": {"name": "c"}}],
    [{"op": "add", "path": "/spec/containers/-4", "value": {"name": "c"}}],
    [{"op": "add", "path": "/spec/containers/3", "value": {"name": "c"}}],
    [{"op": "add", "path": "/spec/containers/x", "value": {"name": "c"}}],
    [{"op": "add", "path": "/spec/containers/99999999999999999999", "value": {}}],
    [{"op": "add", "path": "metadata/x", "value": 1}],
    [{"op": "add", "path": "", "value": 1}],
    [{"op": "add", "value": 1}],
    [{"op": "add", "path": 5, "value": 1}],
    [{"op": "remove", "path": "/metadata/labels/app"}],
    [{"op": "remove", "path": "/metadata/labels/none"}],
    [{"op": "remove", "path": "/spec/containers/-1"}],
    [{"op": "remove", "path": "/spec/containers/2"}],
    [{"op": "remove", "path": "/spec/containers/-3"}],
    [{"op": "remove", "path": "/spec/containers/a"}],
    [{"op": "replace", "path": "/metadata/labels/none", "value": "x"}],
    [{"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:2"}],
    [{"op": "replace", "path": "/spec/containers/5", "value": {}}],
    [{"op": "replace", "path": "/spec/containers/-1", "value": {"name": "last"}}],
    [{"op": "replace", "path": "", "value": {"kind": "Pod"}}],
    [{"op": "replace", "path": "", "value": "scalar"}],
    [{"op": "replace", "path": "", "value": None}],
    [{"op": "replace", "path": "", "value": [1]}],
    [{"op": "replace"}],
    [{"op": "move", "from": "/metadata/labels/app", "path": "/metadata/labels/moved"}],
    [{"op": "move", "from": "/metadata/labels/none", "path": "/metadata/labels/moved"}],
    [{"op": "move", "from": "/spec/containers/0", "path": "/spec/containers/-"}],
    [{"op": "move", "from": "/metadata/labels", "path": "/metadata/labels/x"}],
    [{"op": "move", "path": "/a"}],
    [{"op": "copy", "from": "/metadata/labels", "path": "/spec/nodeSelector"}],
    [{"op": "copy", "from": "/metadata/none", "path": "/spec/copied"}],
    [{"op": "copy", "from": "/spec/containers/7", "path": "/spec/copied"}],
    [{"op": "copy", "path": "/spec/copied"}],
    [{"op": "copy", "from": "/spec", "path": "/nope/x"}],
    [{"op": "test", "path": "/metadata/resourceVersion", "value": "12"}],
    [{"op": "test", "path": "/metadata/resourceVersion", "value": "13"}],
    [{"op": "test", "path": "/metadata/annotations/a", "value": "<b>&"}],
    [{"op": "test", "path": "/metadata/annotations/a", "value": "\\u003cb\\u003e\\u0026"}],
    [{"op": "test", "path": "/spec/terminationGracePeriodSeconds", "value": 30}],
    [{"op": "test", "path": "/spec/terminationGracePeriodSeconds", "value": 30.0}],
    [{"op": "test", "path": "/metadata/none", "value": None}],
    [{"op": "test", "path": "/metadata/none", "value": "x"}],
    [{"op": "test", "path": "/metadata/labels", "value": {"tier": "front", "app": "web"}}],
    [{"op": "test", "path": "/metadata/finalizers", "value": ["example.com/a", "example.com/b"]}],
    [{"op": "test", "path": "/spec/containers/1/args", "value": ["sleep"]}],
    [{"op": "test", "path": "/spec/emptyDirLike", "value": {}}],
    [{"op": "test", "path": "/spec/volumes/0/emptyDir", "value": None}],
    [{"op": "test", "path": "", "value": POD}],
    [{"op": "test", "path": "/spec/containers/9", "value": 1}],
    [{"op": "bogus", "path": "/a"}],
    [{"path": "/a"}],
    [None],
    [1],
    {"op": "add"},
    [],
    [{"op": "add", "path": "/metadata/labels/a~1b~0c", "value": "x"}, {"op": "test", "path": "/metadata/labels/a~1b~0c", "value": "x"}],
]


@pytest.mark.parametrize("patch", JSON_PATCH_CASES)
def test_json_patch_cases(go_patcher: GoPatcher, patch: Any) -> None:
    text = json.dumps(patch).replace("\\\\u", "\\u")  # let a case spell a JSON escape
    assert_same(go_patcher, "json", "Pod", POD, text)


MERGE_CASES: list[Any] = [
    {"metadata": {"labels": {"app": None, "x": "y"}}},
    {"metadata": {"labels": None}},
    {"spec": {"containers": [{"name": "only", "image": None}]}},
    {"spec": {"nodeSelector": "scalar"}},
    {"spec": {"terminationGracePeriodSeconds": {"a": None, "b": [None, {"c": None}]}}},
    {"spec": {"nodeSelector": [None, {"c": None}]}},
    {"spec": {"new": {"a": None, "b": {"c": None, "d": 1}}}},
    {},
    [1, None, {"a": None}],
]


@pytest.mark.parametrize("patch", MERGE_CASES)
def test_merge_patch_cases(go_patcher: GoPatcher, patch: Any) -> None:
    assert_same(go_patcher, "merge", "Pod", POD, json.dumps(patch))


# ----------------------------------------------------------------------------- generated cases

NAMES = st.sampled_from(["app", "sidecar", "new", "A", "B", "C", "data", "cfg", "x"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 100), st.sampled_from(["", "a", "<&>", "nginx:2"]))
LABELS = st.dictionaries(st.sampled_from(["app", "tier", "x", "y"]), st.one_of(st.none(), st.sampled_from(["a", "b"])),
                         max_size=3)
DIRECTIVE = st.sampled_from([{}, {}, {}, {"$patch": "delete"}, {"$patch": "replace"}])


@st.composite
def named_items(draw: st.DrawFn, extra: dict[str, st.SearchStrategy[Any]]) -> list[dict[str, Any]]:
    items = []
    for name in draw(st.lists(NAMES, max_size=3, unique=True)):
        item: dict[str, Any] = {"name": name, **draw(DIRECTIVE)}
        for field, values in extra.items():
            if draw(st.booleans()):
                item[field] = draw(values)
        items.append(item)
    return items


ENV = named_items({"value": st.one_of(st.none(), st.sampled_from(["1", "9"]))})
CONTAINERS = named_items({"image": st.one_of(st.none(), st.sampled_from(["i:1", "i:2"])), "env": ENV,
                          "args": st.lists(st.sampled_from(["a", "b"]), max_size=2)})


@st.composite
def pod_strategic_patches(draw: st.DrawFn) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    spec: dict[str, Any] = {}
    if draw(st.booleans()):
        metadata["labels"] = draw(LABELS)
    if draw(st.booleans()):
        metadata["finalizers"] = draw(st.lists(st.sampled_from(["example.com/a", "example.com/b", "z"]), max_size=3))
    elif draw(st.booleans()):
        metadata["$deleteFromPrimitiveList/finalizers"] = draw(
            st.lists(st.sampled_from(["example.com/a", "example.com/b", "z"]), max_size=2))
    if draw(st.booleans()):
        spec["containers"] = draw(CONTAINERS)
    if draw(st.booleans()):
        order = [item for item in spec.get("containers", []) if "$patch" not in item]
        extra = draw(st.lists(st.sampled_from(["app", "sidecar"]), max_size=2, unique=True))
        names = [item["name"] for item in order] + [name for name in extra if name not in {i["name"] for i in order}]
        spec["$setElementOrder/containers"] = [{"name": name} for name in draw(st.permutations(names))]
    if draw(st.booleans()):
        spec["volumes"] = draw(named_items({"emptyDir": st.just({}), "hostPath": st.just({"path": "/p"})}))
    if draw(st.booleans()):
        spec["terminationGracePeriodSeconds"] = draw(SCALARS)
    if draw(st.booleans()):
        spec["tolerations"] = draw(st.lists(st.fixed_dictionaries({"key": st.sampled_from(["a", "b"])}), max_size=2))
    patch: dict[str, Any] = {}
    if metadata:
        patch["metadata"] = metadata
    if spec:
        patch["spec"] = spec
    return patch


SETTINGS = settings(max_examples=250, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(patch=pod_strategic_patches())
def test_generated_strategic_merge_patches(go_patcher: GoPatcher, patch: dict[str, Any]) -> None:
    assert_same(go_patcher, "strategic", "Pod", POD, json.dumps(patch))


@SETTINGS
@given(patch=st.fixed_dictionaries({}, optional={
    "metadata": st.fixed_dictionaries({}, optional={"labels": LABELS, "annotations": LABELS}),
    "spec": st.fixed_dictionaries({}, optional={
        "replicas": SCALARS,
        "strategy": st.fixed_dictionaries({}, optional={
            "type": st.sampled_from(["Recreate", "RollingUpdate"]),
            "rollingUpdate": st.one_of(st.none(), st.just({"maxSurge": 1})),
            "$retainKeys": st.lists(st.sampled_from(["type", "rollingUpdate"]), unique=True)}),
        "template": st.fixed_dictionaries({}, optional={"spec": st.fixed_dictionaries({}, optional={
            "containers": CONTAINERS})})})}))
def test_generated_deployment_strategic_merge_patches(go_patcher: GoPatcher, patch: dict[str, Any]) -> None:
    assert_same(go_patcher, "strategic", "Deployment", DEPLOYMENT, json.dumps(patch))


POINTERS = st.sampled_from([
    "", "/metadata/labels/app", "/metadata/labels/new", "/metadata/finalizers/0", "/metadata/finalizers/-",
    "/metadata/finalizers/-1", "/metadata/finalizers/5", "/spec/containers/0/image", "/spec/containers/1",
    "/spec/containers/-", "/spec/containers/-2", "/spec/nodeSelector", "/spec/none/x", "/status/phase",
    "/metadata/annotations/a", "/spec/terminationGracePeriodSeconds", "/spec/containers/x",
])
VALUES = st.recursive(SCALARS | st.sampled_from(["<b>&", 30, 30.0, "web", "example.com/a"]),
                      lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(["a", "app"]), inner,
                                                                                   max_size=2), max_leaves=4)
OPERATION = st.fixed_dictionaries(
    {"op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "test"]), "path": POINTERS},
    optional={"from": POINTERS, "value": VALUES})


@SETTINGS
@given(patch=st.lists(OPERATION, max_size=4))
def test_generated_json_patches(go_patcher: GoPatcher, patch: list[dict[str, Any]]) -> None:
    assert_same(go_patcher, "json", "Pod", POD, json.dumps(patch))


@SETTINGS
@given(patch=st.dictionaries(st.sampled_from(["metadata", "spec", "status", "x"]),
                             st.one_of(st.none(), VALUES, st.fixed_dictionaries({}, optional={
                                 "labels": LABELS, "containers": VALUES, "nodeSelector": VALUES})), max_size=3))
def test_generated_merge_patches(go_patcher: GoPatcher, patch: dict[str, Any]) -> None:
    assert_same(go_patcher, "merge", "Pod", POD, json.dumps(patch))
