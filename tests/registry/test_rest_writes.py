"""``registry.writes``, ``registry.deletes``, ``registry.patch_apply`` and ``registry.lists``
through a ``ResourceStore``'s public API in process: a create's name is free or a 409, an update
holds to the resourceVersion and uid it names (409 otherwise) and writes nothing when nothing
changed, a delete holds to its preconditions, PATCH and apply write the stored object, and LIST
bodies are assembled from stored bytes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest

from fakeapi.machinery.delete_options import DeleteOptions
from fakeapi.machinery.patch import MERGE_PATCH
from fakeapi.machinery.status import OPTIMISTIC_LOCK_MESSAGE, StatusError
from fakeapi.registry import request_cost
from fakeapi.registry.deletes import is_status
from fakeapi.registry.lists import list_bytes, list_item
from fakeapi.registry.registry import Registry
from fakeapi.registry.rest import ResourceStore
from fakeapi.registry.writes import precondition_failed

NAMESPACE = "default"
Json = dict[str, Any]


def configmap(name: str, value: str = "") -> Json:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"value": value}}


def stored(configmaps: ResourceStore, name: str) -> Json:
    found: Json = orjson.loads(configmaps.get(NAMESPACE, name))
    return found


def conflict_of(write: Callable[[], Any]) -> str:
    """The message of the 409 ``write`` fails with."""
    with pytest.raises(StatusError) as failed:
        write()
    assert (failed.value.code, failed.value.reason) == (409, "Conflict")
    return failed.value.message


def test_a_name_is_taken_once(configmaps: ResourceStore) -> None:
    configmaps.create(NAMESPACE, configmap("a"))
    with pytest.raises(StatusError) as taken:
        configmaps.create(NAMESPACE, configmap("a"))
    assert (taken.value.code, taken.value.reason) == (409, "AlreadyExists")
    generated = orjson.loads(configmaps.create(NAMESPACE, {**configmap(""), "metadata": {"generateName": "a-"}}))
    name = generated["metadata"]["name"]
    assert name.startswith("a-") and configmaps.exists(NAMESPACE, name)


def test_a_dry_run_create_stores_nothing_and_has_no_resource_version(
        registry: Registry, configmaps: ResourceStore) -> None:
    revision = registry.store.revision
    created = orjson.loads(configmaps.create(NAMESPACE, configmap("a"), dry_run=True))
    assert "resourceVersion" not in created["metadata"]
    assert not configmaps.exists(NAMESPACE, "a") and registry.store.revision == revision


def test_a_dry_run_update_stores_nothing_and_keeps_the_stored_resource_version(
        registry: Registry, configmaps: ResourceStore) -> None:
    """kube's ``DryRunnableStorage``: the update's object, versioned by no write."""
    created = orjson.loads(configmaps.create(NAMESPACE, configmap("a", "1")))
    revision = registry.store.revision
    put = orjson.loads(configmaps.update(NAMESPACE, "a", {**created, "data": {"value": "2"}}, dry_run=True))
    patched = orjson.loads(configmaps.patch(NAMESPACE, "a", MERGE_PATCH, b'{"data":{"value":"3"}}', dry_run=True))
    assert (put["data"], patched["data"]) == ({"value": "2"}, {"value": "3"})
    assert put["metadata"]["resourceVersion"] == patched["metadata"]["resourceVersion"] == \
        created["metadata"]["resourceVersion"]
    assert stored(configmaps, "a") == created and registry.store.revision == revision


def test_an_update_that_deletes_its_object_answers_it_at_the_stored_resource_version(
        registry: Registry, configmaps: ResourceStore) -> None:
    """kube's ``deleteWithoutFinalizers`` answers the update's object, which is not what the
    delete stored (so not an encoding the cacher may keep for a version)."""
    configmaps.create(NAMESPACE, {**configmap("a"), "metadata": {"name": "a", "finalizers": ["example.com/hold"]}})
    marked, _ = configmaps.delete(NAMESPACE, "a")
    answer = configmaps.patch(NAMESPACE, "a", MERGE_PATCH, b'{"metadata":{"finalizers":null}}')
    finished = orjson.loads(answer)
    assert not configmaps.exists(NAMESPACE, "a") and "finalizers" not in finished["metadata"]
    assert finished["metadata"]["resourceVersion"] == orjson.loads(marked)["metadata"]["resourceVersion"]
    assert int(finished["metadata"]["resourceVersion"]) < registry.store.revision
    assert configmaps.stored_object(answer) is None


def test_an_update_holds_to_the_resource_version_it_names(registry: Registry, configmaps: ResourceStore) -> None:
    first = orjson.loads(configmaps.create(NAMESPACE, configmap("a", "1")))
    second = orjson.loads(configmaps.update(NAMESPACE, "a", {**first, "data": {"value": "2"}}))
    assert int(second["metadata"]["resourceVersion"]) == registry.store.revision
    assert conflict_of(lambda: configmaps.update(NAMESPACE, "a", {**first, "data": {"value": "3"}})).endswith(
        OPTIMISTIC_LOCK_MESSAGE)
    assert stored(configmaps, "a")["data"] == {"value": "2"}


def test_an_update_without_resource_version_is_refused_where_the_strategy_says_so(
        registry: Registry, configmaps: ResourceStore) -> None:
    """``AllowUnconditionalUpdate``: a ConfigMap takes a PUT without resourceVersion, an
    APIService (its object and its status) does not."""
    configmaps.create(NAMESPACE, configmap("a", "1"))
    configmaps.update(NAMESPACE, "a", configmap("a", "2"))
    assert stored(configmaps, "a")["data"] == {"value": "2"}
    api_services = registry.resources[("apiregistration.k8s.io", "v1", "apiservices")].storage

    def api_service() -> Json:
        return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.example.com"},
                "spec": {"group": "example.com", "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}}

    api_services.create(None, api_service())
    for subresource in (None, "status"):
        with pytest.raises(StatusError) as refused:
            api_services.update(None, "v1.example.com", api_service(), subresource=subresource)
        assert (refused.value.code, refused.value.message) == (422, (
            'apiservices.apiregistration.k8s.io "v1.example.com" is invalid: metadata.resourceVersion: '
            "Invalid value: 0: must be specified for an update"))


def test_a_uid_in_the_body_is_the_updates_precondition(configmaps: ResourceStore) -> None:
    created = orjson.loads(configmaps.create(NAMESPACE, configmap("a")))
    uid = created["metadata"]["uid"]
    body = {**created, "metadata": {**created["metadata"], "uid": "other"}}
    assert conflict_of(lambda: configmaps.update(NAMESPACE, "a", body)).endswith(
        precondition_failed(f"/registry/configmaps/{NAMESPACE}/a", "UID", "other", uid))


def test_an_update_that_changes_nothing_writes_nothing(registry: Registry, configmaps: ResourceStore) -> None:
    raw = configmaps.create(NAMESPACE, configmap("a"))
    revision = registry.store.revision
    cost = request_cost.RequestCost()
    token = request_cost.current.set(cost)
    try:
        again = configmaps.update(NAMESPACE, "a", orjson.loads(raw))
    finally:
        request_cost.current.reset(token)
    assert again == raw and registry.store.revision == revision and cost.noop_write


def test_a_delete_holds_to_its_preconditions(configmaps: ResourceStore) -> None:
    created = orjson.loads(configmaps.create(NAMESPACE, configmap("a")))
    uid, rv = created["metadata"]["uid"], created["metadata"]["resourceVersion"]
    assert "does not match the UID in record" in conflict_of(
        lambda: configmaps.delete(NAMESPACE, "a", DeleteOptions(precondition_uid="other")))
    assert "does not match the ResourceVersion in record" in conflict_of(
        lambda: configmaps.delete(NAMESPACE, "a", DeleteOptions(precondition_resource_version="1")))
    body, gone = configmaps.delete(NAMESPACE, "a", DeleteOptions(precondition_uid=uid,
                                                                precondition_resource_version=rv))
    assert gone and is_status(body) and orjson.loads(body)["details"]["uid"] == uid
    assert not configmaps.exists(NAMESPACE, "a")


def test_patch_and_apply_write_the_stored_object(configmaps: ResourceStore) -> None:
    applied = orjson.dumps(configmap("a", "applied"))
    raw, created = configmaps.apply(NAMESPACE, "a", applied, manager="tester", force=False)
    assert created and orjson.loads(raw)["metadata"]["managedFields"][0]["manager"] == "tester"
    patched = configmaps.patch(NAMESPACE, "a", MERGE_PATCH, b'{"data":{"value":"patched"}}', manager="patcher")
    assert orjson.loads(patched)["data"] == {"value": "patched"}
    with pytest.raises(StatusError) as owned:  # the applier's field is the patcher's now
        configmaps.apply(NAMESPACE, "a", applied, manager="tester", force=False)
    assert owned.value.code == 409
    raw, created = configmaps.apply(NAMESPACE, "a", applied, manager="tester", force=True)
    assert not created and stored(configmaps, "a")["data"] == {"value": "applied"}


def test_list_items_and_bodies_are_the_stored_bytes() -> None:
    built_in = b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"k":"v"}}'
    custom = b'{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}'
    assert list_item(built_in) == b'{"metadata":{"name":"a"},"data":{"k":"v"}}'
    assert list_item(custom) is custom
    body = list_bytes("ConfigMapList", "v1", {"resourceVersion": "7"}, [list_item(built_in), custom])
    assert orjson.loads(body) == {
        "kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": "7"},
        "items": [{"metadata": {"name": "a"}, "data": {"k": "v"}}, orjson.loads(custom)]}
