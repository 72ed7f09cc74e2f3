"""The namespace controller over a registry, as kube-controller-manager's ``namespace``
controller behaves for its clients: a namespace marked for deletion (Terminating) has every
namespaced object in it deleted, of every resource; objects held by finalizers keep it until
they go; once it is empty its ``kubernetes`` finalizer is removed through ``/finalize`` (other
spec finalizers stay and keep it), which deletes it. Namespaces marked before the controller
started are emptied when it starts; other namespaces are not touched."""

from __future__ import annotations

import functools

from controller_harness import Json, configmap, create, read, resource, run, settle, until, without_finalizers

from fakeapi.controllers.namespace_controller import NamespaceController
from fakeapi.registry.registry import Registry

controller = functools.partial(NamespaceController, gc_finalizers=True)


def namespace(registry: Registry, name: str, *finalizers: str) -> None:
    spec = {"finalizers": ["kubernetes", *finalizers]} if finalizers else {}
    create(registry, "namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}, "spec": spec},
           namespace=None)


def delete_namespace(registry: Registry, name: str) -> None:
    registry.namespaces.delete(None, name)


def stored_namespace(registry: Registry, name: str) -> Json | None:
    return read(registry, "namespaces", name, namespace=None)


def fill(registry: Registry, name: str) -> None:
    """A namespace's contents of several resources."""
    create(registry, "configmaps", configmap("settings"), namespace=name)
    create(registry, "secrets", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "token"}}, namespace=name)
    create(registry, "roles", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                               "metadata": {"name": "reader"}}, namespace=name, group="rbac.authorization.k8s.io")


def contents(registry: Registry, name: str) -> int:
    return sum(store.count(name) for store in registry.stores() if store.resource_type.namespaced)


def test_a_terminating_namespace_is_emptied_then_deleted() -> None:
    async def scenario(registry: Registry) -> None:
        namespace(registry, "doomed")
        namespace(registry, "bystander")
        fill(registry, "doomed")
        fill(registry, "bystander")
        before = contents(registry, "bystander")
        delete_namespace(registry, "doomed")
        assert registry.namespace_phase("doomed") == "Terminating"
        await until(lambda: stored_namespace(registry, "doomed") is None, "the namespace deleted")
        assert contents(registry, "doomed") == 0
        assert contents(registry, "bystander") == before

    run(scenario, controller)


def test_objects_held_by_finalizers_keep_the_namespace_until_they_go() -> None:
    async def scenario(registry: Registry) -> None:
        namespace(registry, "doomed")
        fill(registry, "doomed")
        create(registry, "configmaps", configmap("held", finalizers=("example.com/hold",)), namespace="doomed")
        delete_namespace(registry, "doomed")
        await until(lambda: contents(registry, "doomed") == 1, "everything but the held object deleted")
        held = read(registry, "configmaps", "held", namespace="doomed")
        assert held is not None and held["metadata"].get("deletionTimestamp")
        await settle()
        assert registry.namespace_phase("doomed") == "Terminating"
        without_finalizers(registry, "configmaps", "held", namespace="doomed")
        await until(lambda: stored_namespace(registry, "doomed") is None, "the namespace, its last object gone")

    run(scenario, controller)


def test_only_the_kubernetes_finalizer_is_the_controllers() -> None:
    async def scenario(registry: Registry) -> None:
        namespace(registry, "doomed", "example.com/archive")
        fill(registry, "doomed")
        delete_namespace(registry, "doomed")
        await until(lambda: (stored_namespace(registry, "doomed") or {}).get("spec") == {
            "finalizers": ["example.com/archive"]}, "the kubernetes finalizer removed")
        assert contents(registry, "doomed") == 0
        assert registry.namespace_phase("doomed") == "Terminating"
        registry.namespaces.finalize("doomed", {"spec": {"finalizers": []}})  # the other finalizer's owner
        assert stored_namespace(registry, "doomed") is None

    run(scenario, controller)


def test_a_namespace_terminating_before_the_start_is_emptied_at_start() -> None:
    async def scenario(registry: Registry) -> None:
        namespace(registry, "doomed")
        fill(registry, "doomed")
        delete_namespace(registry, "doomed")
        await settle()
        assert contents(registry, "doomed") == 3  # no controller yet
        started = controller(registry)
        started.start()
        try:
            await until(lambda: stored_namespace(registry, "doomed") is None, "the namespace deleted")
        finally:
            await started.stop()

    run(scenario)


def test_an_active_namespace_is_left_alone() -> None:
    async def scenario(registry: Registry) -> None:
        namespace(registry, "active")
        fill(registry, "active")
        resource(registry, "configmaps").delete("active", "settings")  # a DELETE event in it
        await settle()
        assert contents(registry, "active") == 2 and registry.namespace_phase("active") == "Active"

    run(scenario, controller)
