"""``fakeapi.machinery.patch``: the handler-level rules (media types, limits, Status shapes) and one
case per operation and directive. ``test_patch_differential.py`` checks the semantics against Go
at scale; the expected values here were taken from that harness (kube-apiserver v1.32 libraries)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from fakeapi.machinery.patch import (
    APPLY_PATCH,
    JSON_PATCH,
    MAX_JSON_PATCH_OPERATIONS,
    MAX_REQUEST_BODY_BYTES,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    _go_scalar_json,
    apply_patch,
)
from fakeapi.machinery.schema import kind_schema
from fakeapi.machinery.status import StatusError
from fakeapi.machinery.strategic_merge import go_sprint

POD_SCHEMA = kind_schema("", "v1", "Pod")
POD: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web", "labels": {"app": "web"}, "finalizers": ["a", "b"], "annotations": {"h": "<b>"}},
    "spec": {"containers": [{"name": "app", "image": "nginx:1", "env": [{"name": "A", "value": "1"}]},
                            {"name": "side", "image": "busybox"}]},
}
WIDGET: dict[str, Any] = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                          "spec": {"size": 1, "tags": ["a"]}}


def patched(patch_type: str, patch: Any, original: dict[str, Any] = POD, custom: bool = False) -> dict[str, Any]:
    body = patch if isinstance(patch, bytes) else json.dumps(patch).encode()
    return apply_patch(patch_type, original, body, None if custom else POD_SCHEMA, group="", kind="Pod", name="web")


def failure(patch_type: str, patch: Any, custom: bool = False) -> StatusError:
    with pytest.raises(StatusError) as caught:
        patched(patch_type, patch, WIDGET if custom else POD, custom)
    return caught.value


BUILT_IN_415 = ("the body of the request was in an unknown format - accepted media types include: "
                "application/json-patch+json, application/merge-patch+json, "
                "application/strategic-merge-patch+json, application/apply-patch+yaml")
CUSTOM_415 = ("the body of the request was in an unknown format - accepted media types include: "
              "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
GENERIC_422 = "the server rejected our request due to an error in our request"


@pytest.mark.parametrize(("patch_type", "custom", "message"), [
    (STRATEGIC_MERGE_PATCH, True, CUSTOM_415),
    ("application/json", False, BUILT_IN_415),
    ("application/json", True, CUSTOM_415),
])
def test_unsupported_media_types(patch_type: str, custom: bool, message: str) -> None:
    err = failure(patch_type, {}, custom)
    assert err.to_dict() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                             "message": message, "reason": "UnsupportedMediaType", "code": 415}


def test_server_side_apply_is_not_applied_here() -> None:
    with pytest.raises(ValueError):
        patched(APPLY_PATCH, {})


def test_body_limit() -> None:
    err = failure(MERGE_PATCH, b" " * (MAX_REQUEST_BODY_BYTES + 1))
    assert (err.code, err.reason, err.message) == (413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728")


def test_json_patch_operation_limit() -> None:
    err = failure(JSON_PATCH, [{"op": "test", "path": "/kind", "value": "Pod"}] * (MAX_JSON_PATCH_OPERATIONS + 1))
    assert (err.code, err.message) == (413, "Request entity too large: The allowed maximum operations in a JSON patch "
                                             "is 10000, got 10001")
    assert patched(JSON_PATCH, [{"op": "test", "path": "/kind", "value": "Pod"}] * MAX_JSON_PATCH_OPERATIONS) == POD


@pytest.mark.parametrize(("patch_type", "body", "message"), [
    (JSON_PATCH, b"[{", "unexpected end of JSON input"),
    (JSON_PATCH, b'{"op":"add"}', "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
    (JSON_PATCH, b"[1]", "json: cannot unmarshal number into Go value of type jsonpatch.Operation"),
    (MERGE_PATCH, b"nope", "Invalid JSON Patch"),
    (MERGE_PATCH, b"null", "Invalid JSON Patch"),
    (MERGE_PATCH, b'"x"', "Invalid JSON Patch"),
    (STRATEGIC_MERGE_PATCH, b"{]", "invalid character ']' looking for beginning of object key string"),
    (STRATEGIC_MERGE_PATCH, b"[]", "json: cannot unmarshal array into Go value of type map[string]interface {}"),
    (STRATEGIC_MERGE_PATCH, b'{"metadata":{"$deleteFromPrimitiveListx":[]}}', "invalid patch format of primitive list"),
    (STRATEGIC_MERGE_PATCH, b'{"spec":{"$setElementOrderx":[]}}', "invalid patch format of setElementOrder list"),
    (STRATEGIC_MERGE_PATCH, b'{"spec":{"$retainKeys":["x"],"y":1}}', "invalid patch format of retainKeys"),
])
def test_bad_requests(patch_type: str, body: bytes, message: str) -> None:
    err = failure(patch_type, body)
    assert err.to_dict() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                             "message": message, "reason": "BadRequest", "code": 400}


@pytest.mark.parametrize(("operation", "cause"), [
    ({"op": "test", "path": "/metadata/name", "value": "x"}, "testing value /metadata/name failed: test failed"),
    ({"op": "test", "path": "/metadata/annotations/h", "value": "<b>"},  # Go wrote it as "\u003cb\u003e"
     "testing value /metadata/annotations/h failed: test failed"),
    ({"op": "remove", "path": "/metadata/labels/x"},
     "error in remove for path: '/metadata/labels/x': Unable to remove nonexistent key: x: missing value"),
    ({"op": "add", "path": "/nope/x", "value": 1}, 'add operation does not apply: doc is missing path: "/nope/x": missing value'),
    ({"op": "add", "path": "/spec/containers/3", "value": 1},
     "error in add for path: '/spec/containers/3': Unable to access invalid index: 3: invalid index referenced"),
    ({"op": "add", "path": "/spec/containers/x", "value": 1},
     "error in add for path: '/spec/containers/x': value was not a proper array index: 'x': "
     'strconv.Atoi: parsing "x": invalid syntax'),
    ({"op": "replace", "path": "/spec/containers/2", "value": 1},
     "replace operation does not apply: doc is missing key: /spec/containers/2: missing value"),
    ({"op": "move", "from": "/nope/a", "path": "/a"}, "move operation does not apply: doc is missing from path: /nope/a: missing value"),
    ({"op": "copy", "path": "/a"}, "copy operation failed to decode from: operation, missing from field: missing value"),
    ({"op": "replace", "path": 1}, "replace operation failed to decode path: json: cannot unmarshal number into Go value of type string"),
    ({"op": "frobnicate"}, "Unexpected kind: frobnicate"),
    ({"path": "/a"}, "Unexpected kind: unknown"),
])
def test_json_patch_failures_are_a_generic_422(operation: dict[str, Any], cause: str) -> None:
    err = failure(JSON_PATCH, [operation])
    assert err.to_dict() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                             "message": GENERIC_422, "reason": "Invalid", "details": {}, "code": 422}
    assert str(err.__cause__) == cause


def test_json_patch_operations() -> None:
    result = patched(JSON_PATCH, [
        {"op": "add", "path": "/metadata/labels/tier", "value": "front"},
        {"op": "replace", "path": "/metadata/labels/new", "value": "added"},  # replace of a missing key adds it
        {"op": "add", "path": "/metadata/finalizers/-1", "value": "c"},  # -1 is the end, as -
        {"op": "remove", "path": "/metadata/finalizers/0"},
        {"op": "move", "from": "/spec/containers/1", "path": "/spec/containers/0"},
        {"op": "copy", "from": "/metadata/missing", "path": "/metadata/copied"},  # copies a null
        {"op": "test", "path": "/metadata/copied", "value": None},
        {"op": "add", "path": "/metadata/labels/a~1b", "value": "slash"},
    ])
    assert result["metadata"]["labels"] == {"app": "web", "tier": "front", "new": "added", "a/b": "slash"}
    assert result["metadata"]["finalizers"] == ["b", "c"]
    assert result["metadata"]["copied"] is None
    assert [c["name"] for c in result["spec"]["containers"]] == ["side", "app"]


def test_json_patch_test_with_escaped_html_passes() -> None:
    body = b'[{"op":"test","path":"/metadata/annotations/h","value":"\\u003cb\\u003e"}]'
    assert patched(JSON_PATCH, body) == POD


def test_patch_results_that_are_not_objects_are_invalid() -> None:
    err = failure(MERGE_PATCH, [1, None])
    assert (err.code, err.reason, err.message) == (
        422, "Invalid", ' "" is invalid: patch: Invalid value: "[1,null]": couldn\'t get version/kind; json parse '
        'error: json: cannot unmarshal array into Go value of type struct { APIVersion string '
        '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }')
    assert failure(JSON_PATCH, [{"op": "replace", "path": "", "value": [1]}]).code == 422
    assert patched(JSON_PATCH, [{"op": "replace", "path": "", "value": "scalar"}]) == POD  # evanphx: a no-op


def test_merge_patch() -> None:
    result = patched(MERGE_PATCH, {"metadata": {"labels": {"app": None, "x": "y"}, "finalizers": ["z"]},
                                   "spec": {"new": {"a": None, "b": 1}}})
    assert result["metadata"]["labels"] == {"x": "y"}
    assert result["metadata"]["finalizers"] == ["z"]
    assert result["spec"]["new"] == {"b": 1}


def test_custom_resources_take_json_and_merge_patches() -> None:
    assert patched(MERGE_PATCH, {"spec": {"size": 2}}, WIDGET, custom=True)["spec"] == {"size": 2, "tags": ["a"]}
    assert patched(JSON_PATCH, [{"op": "add", "path": "/spec/tags/-", "value": "b"}], WIDGET,
                   custom=True)["spec"]["tags"] == ["a", "b"]


@pytest.mark.parametrize(("patch", "expected"), [
    ({"spec": {"containers": [{"name": "side", "image": "b:2"}, {"name": "new", "image": "n"}]}},
     [{"name": "app", "image": "nginx:1", "env": [{"name": "A", "value": "1"}]},
      {"name": "side", "image": "b:2"}, {"name": "new", "image": "n"}]),
    ({"spec": {"containers": [{"name": "app", "$patch": "delete"}]}}, [{"name": "side", "image": "busybox"}]),
    ({"spec": {"containers": [{"name": "only"}, {"$patch": "replace"}]}}, [{"name": "only"}]),
    ({"spec": {"$setElementOrder/containers": [{"name": "side"}, {"name": "app"}]}},
     [{"name": "side", "image": "busybox"}, {"name": "app", "image": "nginx:1", "env": [{"name": "A", "value": "1"}]}]),
    ({"spec": {"containers": [{"name": "app", "env": [{"name": "B", "value": "2"}]}]}},
     [{"name": "app", "image": "nginx:1", "env": [{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]},
      {"name": "side", "image": "busybox"}]),
])
def test_strategic_merge_lists_by_key(patch: dict[str, Any], expected: list[dict[str, Any]]) -> None:
    assert patched(STRATEGIC_MERGE_PATCH, patch)["spec"]["containers"] == expected


@pytest.mark.parametrize(("patch", "finalizers"), [
    ({"metadata": {"finalizers": ["c", "a"]}}, ["c", "a", "b"]),  # a set: the patch's items, then the others
    ({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}, ["b"]),
    ({"metadata": {"$setElementOrder/finalizers": ["b", "a"]}}, ["b", "a"]),
])
def test_strategic_merge_primitive_lists(patch: dict[str, Any], finalizers: list[str]) -> None:
    assert patched(STRATEGIC_MERGE_PATCH, patch)["metadata"]["finalizers"] == finalizers


def test_strategic_merge_maps_nulls_and_directives() -> None:
    result = patched(STRATEGIC_MERGE_PATCH, {"metadata": {"labels": {"app": None, "x": "y"}},
                                             "spec": {"new": {"a": None, "b": {"$patch": "delete"}, "c": 1}}})
    assert result["metadata"]["labels"] == {"x": "y"}
    assert result["spec"]["new"] == {"c": 1}  # nulls and directive maps are dropped from new values
    assert patched(STRATEGIC_MERGE_PATCH, {"metadata": {"$patch": "replace", "name": "n"}})["metadata"] == {"name": "n"}
    assert patched(STRATEGIC_MERGE_PATCH, None) == POD


def test_strategic_merge_retain_keys() -> None:
    deployment = {"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}
    schema = kind_schema("apps", "v1", "Deployment")
    body = json.dumps({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}).encode()
    result = apply_patch(STRATEGIC_MERGE_PATCH, deployment, body, schema, group="apps", kind="Deployment", name="d")
    assert result == {"spec": {"strategy": {"type": "Recreate"}}}


def test_strategic_merge_replace_strategy_next_to_a_ref() -> None:
    """PodDisruptionBudgetSpec.selector is ``patchStrategy:"replace"``, published beside its $ref."""
    pdb = {"spec": {"selector": {"matchLabels": {"a": "1", "b": "2"}}}}
    body = json.dumps({"spec": {"selector": {"matchLabels": {"c": "3"}}}}).encode()
    result = apply_patch(STRATEGIC_MERGE_PATCH, pdb, body, kind_schema("policy", "v1", "PodDisruptionBudget"),
                         group="policy", kind="PodDisruptionBudget", name="p")
    assert result["spec"]["selector"] == {"matchLabels": {"c": "3"}}


def test_strategic_merge_list_of_lists_is_a_generic_422() -> None:
    original = {"metadata": {"finalizers": []}}
    with pytest.raises(StatusError) as caught:
        apply_patch(STRATEGIC_MERGE_PATCH, original, b'{"metadata":{"finalizers":[["x"]]}}', POD_SCHEMA,
                    group="", kind="Pod", name="web")
    assert (caught.value.code, caught.value.reason, caught.value.message) == (422, "Invalid", GENERIC_422)
    assert str(caught.value.__cause__) == "lists of lists are not supported"


@pytest.mark.parametrize(("patch", "code", "message"), [
    ({"spec": {"containers": [{"image": "x"}]}}, 500,
     "map: map[image:x] does not contain declared merge key: name"),
    ({"spec": {"containers": [{"name": "app", "$patch": "merge"}]}}, 500,
     "merging lists cannot yet be specified in the patch"),
    ({"metadata": {"$patch": "merge"}}, 500, "unknown patch type: merge in map: map[$patch:merge]"),
    ({"spec": {"containers": [["x"]]}}, 500, "list element types are not identical: "
     "[[map[env:[map[name:A value:1]] image:nginx:1 name:app] map[image:busybox name:side]] [[x]]]"),
    ({"metadata": {"finalizers": [1]}}, 500, "list element types are not identical: [[a b] [1]]"),
])
def test_strategic_merge_errors(patch: dict[str, Any], code: int, message: str) -> None:
    err = failure(STRATEGIC_MERGE_PATCH, patch)
    assert (err.code, err.message) == (code, message)
    if code == 500:  # a plain Go error: no reason, no details
        assert err.to_dict() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                 "message": message, "code": 500}


@pytest.mark.parametrize("patch_type", [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH])
def test_original_is_not_modified(patch_type: str) -> None:
    before = copy.deepcopy(POD)
    patch = ([{"op": "remove", "path": "/metadata/labels"}] if patch_type == JSON_PATCH
             else {"metadata": {"labels": None, "finalizers": ["z"]}, "spec": {"containers": [{"name": "app", "image": "x"}]}})
    patched(patch_type, patch)
    assert before == POD


JSON_PATCH_OPERATIONS = [
    {"op": "add", "path": "/metadata/labels/tier", "value": "front"},
    {"op": "add", "path": "/spec/containers/0/env/-", "value": {"name": "B", "value": "2"}},
    {"op": "replace", "path": "/spec/containers/0/env/0/value", "value": "changed"},
    {"op": "move", "from": "/spec/containers/1", "path": "/spec/containers/0"},
    {"op": "replace", "path": "/spec/containers/0/image", "value": "moved-then-changed"},
    {"op": "copy", "from": "/metadata/labels", "path": "/metadata/copied"},
    {"op": "add", "path": "/metadata/copied/only-in-copy", "value": "x"},
    {"op": "remove", "path": "/metadata/finalizers/0"},
    {"op": "test", "path": "/metadata/name", "value": "web"},
]


@pytest.mark.parametrize("count", range(1, len(JSON_PATCH_OPERATIONS) + 1))
def test_a_json_patch_sharing_the_original_gives_the_same_object(count: int) -> None:
    """``shares_original``: only the objects and arrays on the patch's paths are copied; the result
    is the one a patch of a full copy gives, and neither the original nor what the result shares
    with it changes (a value moved or copied and then changed at its new place included)."""
    body = json.dumps(JSON_PATCH_OPERATIONS[:count]).encode()
    original = copy.deepcopy(POD)
    shared = apply_patch(JSON_PATCH, original, body, POD_SCHEMA, group="", kind="Pod", name="web",
                         shares_original=True)
    assert shared == patched(JSON_PATCH, body)
    assert original == POD
    assert shared["metadata"]["annotations"] is original["metadata"]["annotations"]  # untouched: shared


MERGE_PATCHES: list[Any] = [
    {"metadata": {"labels": {"app": None, "tier": "db"}}},  # a member removed and one added
    {"metadata": {"annotations": {"h": {"x": None, "y": 1}}}},  # a string replaced by an object, nulls pruned
    {"spec": {"containers": [{"name": "only"}]}, "status": {"phase": "Running"}},  # a list replaced, a new object
    {"metadata": None},  # an object removed
]


@pytest.mark.parametrize("patch", MERGE_PATCHES)
def test_a_merge_patch_sharing_the_original_gives_the_same_object(patch: Any) -> None:
    """``shares_original`` for a merge patch: the objects on the patch's paths are copies, the rest
    the original's; the result is the one a patch of a full copy gives, and the original does not
    change. Without it, the result shares nothing with the original."""
    body = json.dumps(patch).encode()
    original = copy.deepcopy(POD)
    shared = apply_patch(MERGE_PATCH, original, body, POD_SCHEMA, group="", kind="Pod", name="web",
                         shares_original=True)
    assert shared == patched(MERGE_PATCH, patch)
    assert original == POD
    if "spec" not in patch:
        assert shared["spec"] is original["spec"]  # untouched: shared
    copied = patched(MERGE_PATCH, patch, original)
    assert copied == shared
    assert all(copied[key] is not original[key] for key in copied.keys() & original.keys()
               if isinstance(copied[key], (dict, list)))


@pytest.mark.parametrize(("value", "printed"), [
    ({"b": [1, 2.5, None, True], "a": "x"}, "map[a:x b:[1 2.5 <nil> true]]"),
    (1e6, "1e+06"), (123456.0, "123456"), (1e-5, "1e-05"), (0.0001, "0.0001"),
])
def test_go_sprint(value: Any, printed: str) -> None:
    assert go_sprint(value) == printed


def test_go_sprint_s_verb() -> None:
    assert go_sprint({"a": 1, "b": "x"}, "s") == "map[a:%!s(int64=1) b:x]"


@pytest.mark.parametrize(("number", "text"), [(1e21, "1e+21"), (1e20, "100000000000000000000"), (1e-7, "1e-7"),
                                              (1.5, "1.5"), (-2.0, "-2")])
def test_floats_encode_as_go_json(number: float, text: str) -> None:
    assert _go_scalar_json(number) == text
