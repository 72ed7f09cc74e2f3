"""The CRD finalizer over a registry, as apiextensions-apiserver's ``finalizer`` controller
behaves for its clients: a CRD marked for deletion has every object of its resource deleted,
in every namespace; objects held by finalizers keep it until they go; then its
``customresourcecleanup.apiextensions.k8s.io`` finalizer is removed (finalizers of others stay),
which deletes it, and the resource is no longer served. CRDs marked before the controller
started are cleaned up when it starts."""

from __future__ import annotations

import functools

from controller_harness import Json, create, read, run, settle, until, without_finalizers

from fakeapi.controllers.crd_cleanup import CustomResourceCleanup
from fakeapi.registry.registry import Registry

CRD_GROUP = "apiextensions.k8s.io"
NAME = "widgets.example.com"
controller = functools.partial(CustomResourceCleanup, gc_finalizers=True)


def define(registry: Registry, *finalizers: str) -> None:
    create(registry, "customresourcedefinitions", {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": NAME, **({"finalizers": list(finalizers)} if finalizers else {})},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                     "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}},
        namespace=None, group=CRD_GROUP)


def widget(registry: Registry, name: str, namespace: str = "default", *finalizers: str) -> None:
    meta: Json = {"name": name, **({"finalizers": list(finalizers)} if finalizers else {})}
    create(registry, "widgets", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta},
           namespace=namespace, group="example.com")


def widgets(registry: Registry) -> int:
    served = registry.resource_for_kind("example.com", "Widget")
    return -1 if served is None else served.count()


def definition(registry: Registry) -> Json | None:
    return read(registry, "customresourcedefinitions", NAME, namespace=None, group=CRD_GROUP)


def delete_definition(registry: Registry) -> None:
    registry.definitions.delete(None, NAME)


def test_a_deleted_crd_takes_its_objects_with_it_and_is_no_longer_served() -> None:
    async def scenario(registry: Registry) -> None:
        define(registry)
        for name in ("a", "b"):
            widget(registry, name)
        widget(registry, "c", "kube-system")
        delete_definition(registry)
        await until(lambda: definition(registry) is None, "the CRD deleted")
        assert registry.resource_for_kind("example.com", "Widget") is None
        assert ("example.com", "v1", "widgets") not in registry.resources

    run(scenario, controller)


def test_objects_held_by_finalizers_keep_the_crd_until_they_go() -> None:
    async def scenario(registry: Registry) -> None:
        define(registry)
        widget(registry, "plain")
        widget(registry, "held", "default", "example.com/hold")
        delete_definition(registry)
        await until(lambda: widgets(registry) == 1, "the plain object deleted")
        await settle()
        crd = definition(registry)
        assert crd is not None and crd["metadata"]["finalizers"] == ["customresourcecleanup.apiextensions.k8s.io"]
        without_finalizers(registry, "widgets", "held", group="example.com")
        await until(lambda: definition(registry) is None, "the CRD, its last object gone")

    run(scenario, controller)


def test_only_the_cleanup_finalizer_is_the_controllers() -> None:
    async def scenario(registry: Registry) -> None:
        define(registry, "example.com/keep")
        widget(registry, "a")
        delete_definition(registry)
        await until(lambda: (definition(registry) or {}).get("metadata", {}).get("finalizers") == ["example.com/keep"],
                    "the cleanup finalizer removed")
        assert widgets(registry) == 0

    run(scenario, controller)


def test_a_crd_marked_before_the_start_is_cleaned_up_at_start() -> None:
    async def scenario(registry: Registry) -> None:
        define(registry)
        widget(registry, "a")
        delete_definition(registry)
        await settle()
        assert widgets(registry) == 1 and definition(registry) is not None  # no controller yet
        started = controller(registry)
        started.start()
        try:
            await until(lambda: definition(registry) is None, "the CRD deleted")
        finally:
            await started.stop()

    run(scenario)
