"""Server-side apply and managedFields tracking (``fakeapi.machinery.field_manager``), case by case.

The behaviours are also run through kube's own field manager in ``test_apply_vs_go.py``; the
expectations here follow apimachinery's ``managedfields/internal/*_test.go``
(``fieldmanager_test.go``, ``conflict_test.go``, ``capmanagers_test.go``) and
structured-merge-diff's ``merge/*_test.go`` (``multiple_appliers_test.go``, ``set_test.go``,
``key_test.go``, ``deduced_test.go``).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from starlette.datastructures import QueryParams

from fakeapi.machinery import field_manager, typed_compare
from fakeapi.machinery import typed as typed_module
from fakeapi.machinery.field_manager import FieldManager, check_name
from fakeapi.machinery.write_options import validate_write_options
from fakeapi.machinery.schema import Schema, kind_schema
from fakeapi.machinery.status import StatusError

NOW = "2025-01-01T00:00:00Z"
LATER = "2025-01-01T00:01:00Z"


def deployments() -> FieldManager:
    return FieldManager("apps/v1", "Deployment", kind_schema("apps", "v1", "Deployment"))


def configmaps() -> FieldManager:
    return FieldManager("v1", "ConfigMap", kind_schema("", "v1", "ConfigMap"))


def deployment(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}}


def owners(obj: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    return {e["manager"]: (e["operation"], e["fieldsV1"]) for e in obj["metadata"].get("managedFields", [])}


def test_create_records_an_update_entry() -> None:
    created = configmaps().update(None, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                                         "data": {"a": "1"}}, "kubectl-create", now=NOW)
    assert created["metadata"]["managedFields"] == [{
        "manager": "kubectl-create", "operation": "Update", "apiVersion": "v1", "time": NOW,
        "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {".": {}, "f:a": {}}}}]


def test_update_without_manager_is_unknown_and_untracked_objects_stay_untracked() -> None:
    new = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}}
    assert owners(configmaps().update(None, new, "", now=NOW)) == {"unknown": ("Update", {"f:data": {".": {}, "f:a": {}}})}
    live = {**new, "metadata": {"name": "c", "uid": "u"}}
    assert "managedFields" not in configmaps().update(live, new, "x", now=NOW)["metadata"]


def test_apply_owns_what_it_applies_and_update_takes_what_it_changes() -> None:
    fm = deployments()
    applied = fm.apply(None, deployment(replicas=2), "kubectl", force=False, now=NOW)
    assert owners(applied) == {"kubectl": ("Apply", {"f:spec": {"f:replicas": {}, "f:selector": {}}})}
    live = {**applied, "metadata": {**applied["metadata"], "uid": "u"}}
    scaled = copy.deepcopy(live)
    scaled["spec"]["replicas"] = 5
    updated = fm.update(live, scaled, "hpa", now=LATER)
    assert owners(updated) == {"kubectl": ("Apply", {"f:spec": {"f:selector": {}}}),
                               "hpa": ("Update", {"f:spec": {"f:replicas": {}}})}


def test_conflict_message_and_force() -> None:
    fm = deployments()
    live = fm.apply(None, deployment(replicas=2), "kubectl", force=False, now=NOW)
    live["metadata"]["uid"] = "u"
    live = fm.update(live, {**live, "spec": {**live["spec"], "replicas": 5}}, "hpa", now=NOW)
    with pytest.raises(StatusError) as raised:
        fm.apply(live, deployment(replicas=3), "kubectl", force=False, now=LATER)
    assert raised.value.to_dict() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Apply failed with 1 conflict: conflict with "hpa" using apps/v1: .spec.replicas',
        "reason": "Conflict",
        "details": {"causes": [{"reason": "FieldManagerConflict", "message": 'conflict with "hpa" using apps/v1',
                                "field": ".spec.replicas"}]},
        "code": 409}
    forced = fm.apply(live, deployment(replicas=3), "kubectl", force=True, now=LATER)
    assert forced["spec"]["replicas"] == 3 and "hpa" not in owners(forced)


def test_conflicts_with_several_managers_are_grouped() -> None:
    fm = configmaps()
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1", "b": "1"}}
    live = fm.apply(None, cm, "one", force=False, now=NOW)
    live = fm.apply(live, cm, "two", force=False, now=NOW)
    with pytest.raises(StatusError) as raised:
        fm.apply(live, {**cm, "data": {"a": "2", "b": "2"}}, "three", force=False, now=NOW)
    assert raised.value.message == ('Apply failed with 4 conflicts: conflicts with "one":\n- .data.a\n- .data.b\n'
                                    'conflicts with "two":\n- .data.a\n- .data.b')


def test_fields_no_longer_applied_are_removed_unless_shared() -> None:
    fm = configmaps()
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}}
    live = fm.apply(None, cm, "one", force=False, now=NOW)
    live = fm.apply(live, {**cm, "data": {"b": "2"}}, "two", force=False, now=NOW)
    live = fm.apply(live, {**cm, "data": {}}, "one", force=False, now=NOW)
    assert live["data"] == {"b": "2"}  # a: only "one" owned it; b: "two" still does


def test_associative_lists_merge_by_key() -> None:
    fm = deployments()
    pod = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
        {"name": "app", "image": "a", "ports": [{"containerPort": 80}]}]}}
    live = fm.apply(None, deployment(template=pod), "one", force=False, now=NOW)
    side = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
        {"name": "side", "image": "s", "ports": [{"containerPort": 80, "protocol": "UDP"}]}]}}
    live = fm.apply(live, deployment(template=side), "two", force=False, now=NOW)
    containers = live["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["app", "side"]
    owned = owners(live)["two"][1]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert list(owned['k:{"name":"side"}']["f:ports"]) == ['k:{"containerPort":80,"protocol":"UDP"}']


def test_finalizers_are_a_set() -> None:
    fm = configmaps()
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["a"]}}
    live = fm.apply(None, cm, "one", force=False, now=NOW)
    live = fm.apply(live, {**cm, "metadata": {"name": "c", "finalizers": ["b"]}}, "two", force=False, now=NOW)
    assert live["metadata"]["finalizers"] == ["a", "b"]
    assert owners(live)["two"][1] == {"f:metadata": {"f:finalizers": {'v:"b"': {}}}}


def test_atomic_lists_and_maps_are_replaced_and_conflict_whole() -> None:
    schema = Schema({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "args": {"type": "array", "items": {"type": "string"}},
        "sel": {"type": "object", "x-kubernetes-map-type": "atomic", "additionalProperties": {"type": "string"}}}}}})
    fm = FieldManager("example.com/v1", "Widget", schema)
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
           "spec": {"args": ["a", "b"], "sel": {"k": "v"}}}
    live = fm.apply(None, obj, "one", force=False, now=NOW)
    assert owners(live)["one"][1] == {"f:spec": {"f:args": {}, "f:sel": {}}}
    with pytest.raises(StatusError) as raised:
        fm.apply(live, {**obj, "spec": {"args": ["c"], "sel": {"x": "y"}}}, "two", force=False, now=NOW)
    assert [c.field for c in raised.value.details.causes] == [".spec.args", ".spec.sel"]


def test_without_schema_maps_are_granular_and_lists_atomic() -> None:
    fm = FieldManager("example.com/v1", "Widget", None)
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "finalizers": ["f"]},
           "spec": {"a": {"b": 1}, "l": [1]}}
    live = fm.apply(None, obj, "one", force=False, now=NOW)
    # every key is undeclared, so a member itself; the list is one atomic field
    assert owners(live)["one"][1] == {"f:metadata": {"f:finalizers": {}},
                                      "f:spec": {".": {}, "f:a": {".": {}, "f:b": {}}, "f:l": {}}}


def test_recorded_subtrees_are_shared_by_value_and_type() -> None:
    """A create records the same subtree as the last object with that value and type did
    (``typed_compare._SUBTREES``): what a fresh walk records, and never what another type
    records."""
    containers = [{"name": "app", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": containers}}

    def created(fm: FieldManager, name: str) -> dict[str, Any]:
        obj = {**deployment(template=copy.deepcopy(template)), "metadata": {"name": name}}
        return owners(fm.update(None, obj, "m", now=NOW))["m"][1]

    fm = deployments()  # one endpoint's manager: its types are the keys'
    typed_compare._SUBTREES.clear()
    first = created(fm, "one")
    assert not typed_compare._SUBTREES  # a spec seen once is not kept
    second = created(fm, "two")
    assert typed_compare._SUBTREES  # the second time it is
    third = created(fm, "three")
    typed_compare._SUBTREES.clear()
    assert third == second == first == created(fm, "two")
    ports = first["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"app"}']["f:ports"]
    assert ports == {".": {}, 'k:{"containerPort":80,"protocol":"TCP"}': {
        ".": {}, "f:containerPort": {}, "f:protocol": {}}}
    # the same value without a schema: its lists are atomic, whatever the schema's type recorded
    created(deployments(), "three")
    deduced = created(FieldManager("apps/v1", "Deployment", None), "four")
    assert deduced["f:spec"]["f:template"]["f:spec"] == {".": {}, "f:containers": {}}


def test_field_sets_of_parts_are_kept_by_value_and_type() -> None:
    """``to_field_set`` takes an object's parts from ``typed._PART_FIELDS``: what a fresh walk
    gives, and never what another type gives for the same value."""
    from fakeapi.machinery.schemaconv import object_type
    from fakeapi.machinery.typed import to_field_set

    typed = object_type(kind_schema("apps", "v1", "Deployment"))
    deduced = object_type(None)
    obj = deployment(template={"spec": {"containers": [{"name": "app", "image": "nginx"}]}})
    typed_module._PART_FIELDS.clear()
    first = to_field_set(obj, typed)
    assert to_field_set(obj, typed).to_fields() == first.to_fields()
    assert typed_module._PART_FIELDS  # kept the second time
    assert to_field_set(obj, typed).to_fields() == first.to_fields()
    typed_module._PART_FIELDS.clear()
    assert to_field_set(obj, typed).to_fields() == first.to_fields()
    containers = first.to_fields()["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert containers == {'k:{"name":"app"}': {".": {}, "f:image": {}, "f:name": {}}}
    assert to_field_set(obj, deduced).to_fields()["f:spec"]["f:template"]["f:spec"] == {".": {}, "f:containers": {}}


def test_field_sets_of_parts_one_caller_met_before_are_walked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``to_field_set`` with ``walked``: a part that is the same value as one met before (a copy
    sharing the object's spec) is not walked again, and the sets are what walking gives; a
    different value of the same JSON is walked."""
    from fakeapi.machinery.schemaconv import object_type
    from fakeapi.machinery.typed import WalkedParts, to_field_set

    typed = object_type(kind_schema("apps", "v1", "Deployment"))
    obj = deployment(template={"spec": {"containers": [{"name": "app", "image": "nginx"}]}})
    walks: list[object] = []
    part_fields = typed_module._part_fields
    monkeypatch.setattr(typed_module, "_part_fields", lambda value, type_ref: walks.append(value) or part_fields(
        value, type_ref))
    walked: WalkedParts = {}
    first = to_field_set(obj, typed, walked)
    assert any(value is obj["spec"] for value in walks)
    sharing = {**obj, "metadata": {"name": "other"}}  # the spec is the same value
    expected = to_field_set(sharing, typed).to_fields()
    walks.clear()
    assert to_field_set(sharing, typed, walked).to_fields() == expected
    assert walks and not any(value is obj["spec"] for value in walks)
    walks.clear()
    equal = copy.deepcopy(obj)
    assert to_field_set(equal, typed, walked).to_fields() == first.to_fields()
    assert any(value is equal["spec"] for value in walks)


def test_managed_fields_reset_and_kept() -> None:
    fm = configmaps()
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}}
    live = fm.update(None, cm, "creator", now=NOW)
    live["metadata"]["uid"] = "u"
    kept = fm.update(live, {**cm, "data": {"a": "2"}}, "writer", now=LATER)  # managedFields omitted: live's kept
    assert owners(kept) == {"creator": ("Update", {"f:data": {}}), "writer": ("Update", {"f:data": {"f:a": {}}})}
    reset = fm.update(live, {**cm, "metadata": {"name": "c", "managedFields": []}}, "writer", now=LATER)
    assert "managedFields" not in reset["metadata"]


def test_apply_body_errors() -> None:
    fm = deployments()
    with pytest.raises(StatusError, match=r"^invalid object type: /, Kind=Deployment$") as raised:
        fm.apply(None, {**deployment(), "apiVersion": ""}, "m", force=False, now=NOW)
    assert raised.value.code == 400
    body = deployment()
    body["metadata"]["managedFields"] = []
    with pytest.raises(StatusError, match="^metadata.managedFields must be nil$"):
        fm.apply(None, body, "m", force=False, now=NOW)


@pytest.mark.parametrize(("manager", "apply", "force", "message"), [
    ("", True, False, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'),
    ("m", False, True, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'),
    ("m" * 129, True, False,
     'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes'),
    ("a\x07", True, False, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\a": '
                           'invalid character U+0007 (at position 1)'),
])
def test_patch_options(manager: str, apply: bool, force: bool, message: str) -> None:
    patch_type = "application/apply-patch+yaml" if apply else "application/merge-patch+json"
    query = QueryParams({"fieldManager": manager, **({"force": "true"} if force else {})})
    with pytest.raises(StatusError) as raised:
        validate_write_options("PatchOptions", query, patch_type=patch_type)
    assert (raised.value.code, raised.value.reason, raised.value.message) == (422, "Invalid", message)
    validate_write_options("PatchOptions", QueryParams({"fieldManager": "m" * 128, "force": "true"}),
                           patch_type="application/apply-patch+yaml")


@pytest.mark.parametrize(("meta", "message"), [
    ({}, "the name of the object (web based on URL) was undeterminable: name must be provided"),
    ({"name": "other"}, "the name of the object (other) does not match the name on the URL (web)"),
    ({"name": "web", "namespace": "b"}, "the namespace of the provided object does not match the namespace sent on the request"),
])
def test_check_name(meta: dict[str, str], message: str) -> None:
    with pytest.raises(StatusError, match=f"^{message.replace('(', '[(]').replace(')', '[)]')}$"):
        check_name({"metadata": meta}, "web", "a")
    check_name({"metadata": {"name": "web"}}, "web", "a")


def _typed_pods() -> FieldManager:
    from fakeapi.machinery import gostruct
    return FieldManager("v1", "Pod", kind_schema("", "v1", "Pod"), reset_fields=(("status",),),
                        new_object=gostruct.zero_object("v1", "Pod"), typed_input=True)


def _pod(index: int, **metadata: Any) -> dict[str, Any]:
    container = {"name": "web", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}]}
    return {"kind": "Pod", "apiVersion": "v1",
            "metadata": {"name": f"p-{index}", "namespace": "n", "uid": f"u-{index}", "creationTimestamp": NOW,
                         **metadata},
            "spec": {"containers": [container], "restartPolicy": "Always"}, "status": {"phase": "Pending"}}


@pytest.mark.parametrize("variants", [
    [{}, {"labels": {"app": "a"}}, {"labels": {"app": "b"}}, {"labels": {"app": "a", "tier": "x"}},
     {"labels": {}}, {"annotations": {"k": "1"}}, {"annotations": {"k": "2", "j": ""}}],
    [{"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "r", "uid": uid,
                           "controller": True}]} for uid in ("x", "y", "x")],
    [{"finalizers": ["a"]}, {"finalizers": ["b"]}, {"finalizers": ["a", "b"]}, {"generateName": "p-"},
     {"deletionGracePeriodSeconds": 30}, {"deletionGracePeriodSeconds": 0}],
])
def test_a_creates_fields_kept_by_shape_are_those_compare_finds(variants: list[dict[str, Any]],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A create's field set is kept by the object's shape (``_shape``): objects that differ in
    name, uid and label or annotation values share it, all others do not. Each answer, taken
    the first, second and third time a shape comes (kept from the second), is the one compare
    gives without keeping anything."""
    kept = _typed_pods()
    answers = []
    for round_ in range(3):
        for index, metadata in enumerate(variants):
            pod = _pod(100 * round_ + index, **metadata)
            if index % 2:
                pod["spec"]["containers"][0]["image"] = "other"  # a value: the same fields
                pod["spec"]["hostNetwork"] = True  # another field
            answers.append((copy.deepcopy(pod), kept.update(None, pod, "m", now=NOW)))
    assert len(kept._created) > 0
    monkeypatch.setattr(field_manager, "_shape", lambda obj: None)
    fresh = _typed_pods()
    for pod, answer in answers:
        assert answer == fresh.update(None, pod, "m", now=NOW)
