"""``registry.delegator``: which reads of a ``ResourceStore`` the watch cache serves and which go
to the store (kube's ``cacher/delegator.go``), through the store's public API in process: RV "0"
is the cache as it is, RV "" waits for the cache to reach the store, an exact RV is the cache's
snapshot while it has one, else the store at that revision, else 410; GET reads the store. Where
a read was served is what ``request_cost`` records for the client report."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import orjson
import pytest

from fakeapi.machinery.list_options import EXACT, NOT_OLDER_THAN, ListOptions
from fakeapi.machinery.status import StatusError
from fakeapi.registry import request_cost
from fakeapi.registry.registry import Registry
from fakeapi.registry.rest import ResourceStore

NAMESPACE = "default"
Json = dict[str, Any]
T = TypeVar("T")


def served(runner: asyncio.Runner, read: Awaitable[T]) -> tuple[T, request_cost.RequestCost]:
    """``read`` run as one API request: its answer, and what it recorded of itself."""
    async def request() -> tuple[T, request_cost.RequestCost]:
        cost = request_cost.RequestCost()
        token = request_cost.current.set(cost)
        try:
            return await read, cost
        finally:
            request_cost.current.reset(token)

    return runner.run(request())


def settle(runner: asyncio.Runner) -> None:
    """Let the cache take in the store's events."""
    runner.run(asyncio.sleep(0.05))


def configmap(name: str, value: str = "") -> Json:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"value": value}}


async def listed(configmaps: ResourceStore, **options: Any) -> tuple[int, dict[str, str]]:
    """A LIST's resourceVersion and its configmaps' values by name."""
    body = orjson.loads(await configmaps.list(NAMESPACE, ListOptions(**options)))
    return int(body["metadata"]["resourceVersion"]), {i["metadata"]["name"]: i["data"]["value"] for i in body["items"]}


async def created_then_listed(configmaps: ResourceStore, name: str, **options: Any) -> tuple[int, dict[str, str]]:
    """``listed`` right after a create, before the cache can have seen it (nothing awaited between)."""
    configmaps.create(NAMESPACE, configmap(name))
    assert configmaps.cacher.cache.rv < configmaps.store.revision
    return await listed(configmaps, **options)


def test_rv_0_is_the_caches_state_as_it_is(runner: asyncio.Runner, registry: Registry,
                                           configmaps: ResourceStore) -> None:
    configmaps.create(NAMESPACE, configmap("before"))
    settle(runner)
    (rv, items), cost = served(runner, created_then_listed(configmaps, "after", resource_version="0"))
    assert items == {"before": ""} and rv == registry.store.revision - 1 and not cost.from_store


def test_rv_empty_is_consistent_and_served_by_the_cache_once_it_caught_up(
        runner: asyncio.Runner, registry: Registry, configmaps: ResourceStore) -> None:
    answer, cost = served(runner, created_then_listed(configmaps, "a"))
    assert answer == (registry.store.revision, {"a": ""}) and not cost.from_store


def test_an_exact_rv_is_the_caches_snapshot_then_the_stores_revision_then_gone(
        runner: asyncio.Runner, registry: Registry, configmaps: ResourceStore) -> None:
    created = orjson.loads(configmaps.create(NAMESPACE, configmap("a", "old")))
    at = int(created["metadata"]["resourceVersion"])
    configmaps.update(NAMESPACE, "a", {**created, "data": {"value": "new"}})
    settle(runner)
    answer, cost = served(runner, listed(configmaps, resource_version=str(at), resource_version_match=EXACT))
    assert answer == (at, {"a": "old"}) and not cost.from_store

    configmaps.cacher.relist()  # the cache's snapshots start over: the store answers at ``at``
    answer, cost = served(runner, listed(configmaps, resource_version=str(at), resource_version_match=EXACT))
    assert answer == (at, {"a": "old"}) and cost.from_store

    registry.store.compact(registry.store.revision)
    registry.compacted(registry.store.revision)
    with pytest.raises(StatusError) as gone:
        runner.run(listed(configmaps, resource_version=str(at), resource_version_match=EXACT))
    assert (gone.value.code, gone.value.message) == (410, "The resourceVersion for the provided list is too old.")


@pytest.mark.parametrize("match", [NOT_OLDER_THAN, EXACT])
def test_a_revision_the_cache_does_not_reach_in_time_is_too_large(
        runner: asyncio.Runner, registry: Registry, configmaps: ResourceStore, match: str) -> None:
    future = registry.store.revision + 10
    with pytest.raises(StatusError) as waited:
        runner.run(listed(configmaps, resource_version=str(future), resource_version_match=match))
    assert waited.value.code == 504
    assert waited.value.message.startswith(f"Timeout: Too large resource version: {future}, current: ")


def test_get_reads_the_store(runner: asyncio.Runner, configmaps: ResourceStore) -> None:
    configmaps.create(NAMESPACE, configmap("a", "x"))

    async def get() -> bytes:
        return configmaps.get(NAMESPACE, "a")

    raw, cost = served(runner, get())
    assert orjson.loads(raw)["data"] == {"value": "x"}
    assert cost.from_store and cost.returned == cost.examined == 1
    with pytest.raises(StatusError) as missing:
        configmaps.get(NAMESPACE, "b")
    assert missing.value.code == 404


def test_a_watch_from_a_revision_the_cache_dropped_starts_with_its_410(
        runner: asyncio.Runner, registry: Registry, configmaps: ResourceStore) -> None:
    old = int(orjson.loads(configmaps.create(NAMESPACE, configmap("a")))["metadata"]["resourceVersion"])
    configmaps.create(NAMESPACE, configmap("b"))
    settle(runner)
    configmaps.cacher.relist()  # the event history starts over
    start, cost = served(runner, configmaps.watch(NAMESPACE, ListOptions(watch=True, resource_version=str(old))))
    assert start.watcher is None and start.error is not None and start.error.code == 410
    assert cost.expired
