"""The controllers alone, over an in-process registry (no HTTP): ``run`` builds a registry on a
fresh store and the controllers under test, starts them as ``fakeapi.server.Server`` does (the
controllers subscribe before the registry starts; the registry, then each controller, starts),
runs the scenario on that event loop and stops everything. ``until`` waits for what a
controller brings about while the loop runs its tasks."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import orjson

from fakeapi.machinery.status import StatusError
from fakeapi.registry.registry import Registry, ServedStore
from fakeapi.store import Store

Json = dict[str, Any]
T = TypeVar("T")
#: A scenario of one test gets no more than this.
SCENARIO_TIMEOUT = 30.0


class Controller(Protocol):
    def start(self) -> None: ...

    async def stop(self) -> None: ...


def run(scenario: Callable[[Registry], Awaitable[None]], *controllers: Callable[[Registry], Controller]) -> None:
    """``scenario(registry)`` with ``controllers`` (each made from the registry) running."""
    async def main() -> None:
        registry = Registry(Store())
        running = [make(registry) for make in controllers]
        registry.start()
        for controller in running:
            controller.start()
        try:
            await asyncio.wait_for(scenario(registry), SCENARIO_TIMEOUT)
        finally:
            for controller in running:
                await controller.stop()
            await registry.stop()

    asyncio.run(main())


async def until(check: Callable[[], T], what: str, timeout: float = 10.0) -> T:
    """``check()``'s first truthy result, polled while the loop runs the controllers."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (result := check()):
        if loop.time() >= deadline:
            raise AssertionError(f"not within {timeout}s: {what}")
        await asyncio.sleep(0.005)
    return result


async def settle() -> None:
    """Let the caches and controllers work off what is pending (to see that nothing happens)."""
    await asyncio.sleep(0.2)


def resource(registry: Registry, plural: str, group: str = "", version: str = "v1") -> ServedStore:
    return registry.resources[(group, version, plural)]


def create(registry: Registry, plural: str, obj: Json, namespace: str | None = "default", group: str = "",
           version: str = "v1") -> Json:
    return orjson.loads(resource(registry, plural, group, version).create(namespace, obj))


def read(registry: Registry, plural: str, name: str, namespace: str | None = "default", group: str = "",
         version: str = "v1") -> Json | None:
    """The stored object, None once it is gone."""
    try:
        return orjson.loads(resource(registry, plural, group, version).get(namespace, name))
    except StatusError as err:
        if err.code == 404:
            return None
        raise


def configmap(name: str, *owners: Json, finalizers: tuple[str, ...] = ()) -> Json:
    """A ConfigMap owned by ``owners`` (stored objects) and held by ``finalizers``."""
    meta: Json = {"name": name}
    if owners:
        meta["ownerReferences"] = [{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
                                    "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"]}
                                   for owner in owners]
    if finalizers:
        meta["finalizers"] = list(finalizers)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}


def without_finalizers(registry: Registry, plural: str, name: str, namespace: str | None = "default",
                       group: str = "", version: str = "v1") -> None:
    """What the holder of an object's finalizers does when it is done."""
    def drop(obj: Json) -> Json:
        obj["metadata"].pop("finalizers", None)
        return obj

    resource(registry, plural, group, version).rewrite(namespace, name, drop)
