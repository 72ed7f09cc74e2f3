"""Pod termination, the kubelets' last step of a graceful deletion for kubelets fakeapi has
none of: a scheduled pod a DELETE marked (deletionTimestamp, a grace period) is deleted with
period 0 at once, so clients see kube's steps (MODIFIED with the mark; the kubelet's delete:
MODIFIED at period 0, then DELETED) without waiting out the period; a pod held by finalizers stays at period 0 until they go; pods
marked before the controller started are ended when it starts; unmarked pods are left alone."""

from __future__ import annotations

import functools

import orjson
from controller_harness import Json, create, read, resource, run, settle, until, without_finalizers

from fakeapi.cacher import CacheEvent
from fakeapi.controllers.pod_termination import PodTermination
from fakeapi.registry.registry import Registry

controller = functools.partial(PodTermination, gc_finalizers=True)


def scheduled_pod(registry: Registry, name: str, *finalizers: str) -> Json:
    meta: Json = {"name": name, **({"finalizers": list(finalizers)} if finalizers else {})}
    return create(registry, "pods", {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {
        "nodeName": "node-1", "terminationGracePeriodSeconds": 30, "containers": [{"name": "c", "image": "nginx"}]}})


def delete(registry: Registry, name: str) -> Json:
    body, gone = resource(registry, "pods").delete("default", name)
    assert not gone
    return orjson.loads(body)


def test_a_marked_pod_is_ended_at_once_in_kubes_steps() -> None:
    async def scenario(registry: Registry) -> None:
        events: list[tuple[str, int | None]] = []

        def observe(event: CacheEvent) -> None:
            if event.obj.name == "web":
                events.append((event.type, orjson.loads(event.obj.raw)["metadata"].get("deletionGracePeriodSeconds")))

        resource(registry, "pods").storage.cacher.listeners.append(observe)
        scheduled_pod(registry, "web")
        scheduled_pod(registry, "other")
        assert delete(registry, "web")["metadata"]["deletionGracePeriodSeconds"] == 30
        await until(lambda: read(registry, "pods", "web") is None, "the pod deleted")
        assert events == [("ADDED", None), ("MODIFIED", 30), ("MODIFIED", 0), ("DELETED", 0)]
        await settle()
        assert read(registry, "pods", "other") is not None

    run(scenario, controller)


def test_a_pod_held_by_finalizers_waits_at_period_zero() -> None:
    async def scenario(registry: Registry) -> None:
        scheduled_pod(registry, "held", "example.com/hold")
        delete(registry, "held")
        await until(lambda: (read(registry, "pods", "held") or {})["metadata"].get("deletionGracePeriodSeconds") == 0,
                    "the kubelet's delete")
        await settle()
        assert read(registry, "pods", "held") is not None
        without_finalizers(registry, "pods", "held")
        await until(lambda: read(registry, "pods", "held") is None, "the pod, its finalizer gone")

    run(scenario, controller)


def test_a_pod_marked_before_the_start_is_ended_at_start() -> None:
    async def scenario(registry: Registry) -> None:
        scheduled_pod(registry, "web")
        delete(registry, "web")
        await settle()
        assert read(registry, "pods", "web") is not None  # no kubelet yet
        started = controller(registry)
        started.start()
        try:
            await until(lambda: read(registry, "pods", "web") is None, "the pod deleted")
        finally:
            await started.stop()

    run(scenario)
