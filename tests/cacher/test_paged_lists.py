"""Paged LISTs through the registry in process while the resource is written: every page shows
the state at the first page's revision (served from the watch cache's state at that revision),
with an exact remainingItemCount, selectors applied; once the cache no longer has the revision
the store answers at it, and once the store is compacted past it the 410 offers an inconsistent
continue token that goes on at the latest revision."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import pytest

from fakeapi.machinery.list_options import ListOptions
from fakeapi.machinery.status import StatusError
from fakeapi.registry.registry import Registry
from fakeapi.registry.rest import ResourceStore
from fakeapi.store import Store

NAMESPACE = "default"
COUNT = 20  # configmaps cm-00 ... cm-19 before the list
Json = dict[str, Any]


def run(test: Callable[[Registry, ResourceStore], Awaitable[None]]) -> None:
    """``test`` with a started registry and its configmaps, on an event loop of its own."""
    async def main() -> None:
        registry = Registry(Store())
        registry.start()
        try:
            await test(registry, registry.resources[("", "v1", "configmaps")])
        finally:
            await registry.stop()

    asyncio.run(main())


def configmap(name: str, value: str = "", team: str = "a") -> Json:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"team": team}},
            "data": {"value": value}}


async def settle() -> None:
    """Let the cache take in the store's events."""
    await asyncio.sleep(0.05)


async def page(configmaps: ResourceStore, **options: Any) -> Json:
    listed: Json = orjson.loads(await configmaps.list(NAMESPACE, ListOptions(**options)))
    return listed


def names_and_values(items: list[Json]) -> list[tuple[str, str]]:
    return [(i["metadata"]["name"], i["data"]["value"]) for i in items]


async def churn(configmaps: ResourceStore, round_: int) -> None:
    """Writes that a list at an earlier revision must not show: creates before, among and after
    the keys still to be listed, an update and a delete of keys not listed yet."""
    for name in (f"a-{round_}", f"cm-{round_:02d}x", f"z-{round_}"):
        configmaps.create(NAMESPACE, configmap(name, "new"))
    updated, deleted = changed_in(round_)
    stored = orjson.loads(configmaps.get(NAMESPACE, updated))
    configmaps.update(NAMESPACE, updated, {**stored, "data": {"value": "changed"}})
    configmaps.delete(NAMESPACE, deleted)
    await settle()


def changed_in(round_: int) -> tuple[str, str]:
    """The configmaps ``churn`` updates and deletes in round ``round_``."""
    return f"cm-{COUNT - 1 - 2 * round_:02d}", f"cm-{COUNT - 2 - 2 * round_:02d}"


async def fill(configmaps: ResourceStore, team: Callable[[int], str] = lambda n: "a") -> None:
    for n in range(COUNT):
        configmaps.create(NAMESPACE, configmap(f"cm-{n:02d}", "old", team(n)))
    await settle()


def test_pages_show_the_first_pages_revision_while_writes_go_on() -> None:
    async def test(registry: Registry, configmaps: ResourceStore) -> None:
        await fill(configmaps)
        expected = names_and_values((await page(configmaps))["items"])
        first = await page(configmaps, limit=3)
        rv = first["metadata"]["resourceVersion"]
        items, listed = first["items"], first
        for round_ in range(6):
            assert listed["metadata"]["remainingItemCount"] == len(expected) - len(items)
            await churn(configmaps, round_)
            listed = await page(configmaps, limit=3, continue_token=listed["metadata"]["continue"])
            assert listed["metadata"]["resourceVersion"] == rv
            items += listed["items"]
        while "continue" in listed["metadata"]:
            listed = await page(configmaps, limit=3, continue_token=listed["metadata"]["continue"])
            items += listed["items"]
        assert names_and_values(items) == expected
        assert "remainingItemCount" not in listed["metadata"]

    run(test)


def test_a_selector_filters_the_pages_and_leaves_the_count_unknown() -> None:
    async def test(registry: Registry, configmaps: ResourceStore) -> None:
        await fill(configmaps, lambda n: "ab"[n % 2])
        listed = await page(configmaps, limit=3, label_selector="team=b")
        items, round_ = listed["items"], 0
        while "continue" in listed["metadata"]:
            assert "remainingItemCount" not in listed["metadata"]
            await churn(configmaps, round_)
            round_ += 1
            listed = await page(configmaps, limit=3, label_selector="team=b",
                                continue_token=listed["metadata"]["continue"])
            items += listed["items"]
        assert [i["metadata"]["name"] for i in items] == [f"cm-{n:02d}" for n in range(1, COUNT, 2)]

    run(test)


async def first_page_then_churn(configmaps: ResourceStore) -> Json:
    """The first page (4 of ``COUNT``) of a list, then round 0 of ``churn``."""
    await fill(configmaps)
    first = await page(configmaps, limit=4)
    await churn(configmaps, 0)
    return first


def test_a_revision_the_cache_dropped_is_read_from_the_store() -> None:
    async def test(registry: Registry, configmaps: ResourceStore) -> None:
        first = await first_page_then_churn(configmaps)
        configmaps.cacher.relist()  # the cache's history starts over after the first page
        assert not configmaps.cacher.cache.can_list_at(int(first["metadata"]["resourceVersion"]))
        rest = await page(configmaps, continue_token=first["metadata"]["continue"])
        assert rest["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
        assert names_and_values(rest["items"]) == [(f"cm-{n:02d}", "old") for n in range(4, COUNT)]

    run(test)


def test_a_compacted_revision_is_gone_with_an_inconsistent_continue() -> None:
    async def test(registry: Registry, configmaps: ResourceStore) -> None:
        first = await first_page_then_churn(configmaps)
        registry.store.compact(registry.store.revision)
        registry.compacted(registry.store.revision)
        with pytest.raises(StatusError) as gone:
            await page(configmaps, limit=4, continue_token=first["metadata"]["continue"])
        assert gone.value.code == 410
        # The inconsistent continue goes on from the same key at the latest revision.
        rest = await page(configmaps, continue_token=gone.value.continue_token)
        assert int(rest["metadata"]["resourceVersion"]) == registry.store.revision
        updated, deleted = changed_in(0)
        assert names_and_values(rest["items"]) == [
            *((name, "changed" if name == updated else "old") for name in (f"cm-{n:02d}" for n in range(4, COUNT))
              if name != deleted),
            ("z-0", "new")]  # cm-00x, created too, sorts before the continue key

    run(test)
