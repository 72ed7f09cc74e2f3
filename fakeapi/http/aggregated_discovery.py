"""kube-aggregator's discovery manager (``kube-aggregator/pkg/apiserver/handler_discovery.go``):
the aggregated discovery document's entry of each service-backed APIService's group version,
fetched from its server through the proxy (so an APIService that is not Available gets none).

An APIService is fetched again whenever it changes (its status too: the availability controller
marking it Available has its discovery fetched at once) and every minute. A fetch asks the
server for ``/apis`` as an ``APIGroupDiscoveryList``, as ``system:kube-aggregator`` in
``system:masters``, within 5 s:

* 200: the version's entry from the server's document (a version the server does not list is
  an entry without resources), ``Current``;
* 406: the server has no aggregated discovery: its legacy ``/apis/<group>/<version>``
  ``APIResourceList`` converted (``ConvertGroupVersionIntoToDiscovery``), ``Current``; a failure
  of that is as below;
* anything else, or no answer: an entry without resources, ``Stale``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from ..runtime import cancel_and_wait
from .proxy import DISCOVERY_TIMEOUT, APIServiceProxy, Backend, BackendUnavailable

log = logging.getLogger("fakeapi")

Json = dict[str, Any]

#: What the manager asks a server's /apis for.
AGGREGATED_ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
#: How often every APIService is fetched again.
REFRESH_PERIOD = 60.0
_AGGREGATOR = [("X-Remote-User", "system:kube-aggregator"), ("X-Remote-Group", "system:masters")]


@dataclass(frozen=True, slots=True)
class AggregatedVersion:
    """One service-backed group version in discovery: its APIService's priorities, and its
    aggregated entry (``APIVersionDiscovery``)."""

    group: str
    version: str
    group_priority: int
    version_priority: int
    entry: Json


class AggregatedDiscoveryManager:
    """``versions`` by APIService name; ``on_change`` is called when one came, changed or went."""

    def __init__(self, proxy: APIServiceProxy, on_change: Callable[[], None]) -> None:
        self.proxy = proxy
        self.on_change = on_change
        self.versions: dict[str, AggregatedVersion] = {}
        #: By APIService name: its fetch under way; whether it changed since that fetch began.
        self._fetches: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._refresh: asyncio.Task[None] | None = None
        proxy.backends.listeners.append(self.mark_dirty)

    def start(self) -> None:
        self._refresh = asyncio.create_task(self._refresh_periodically(), name="aggregated-discovery-refresh")

    async def stop(self) -> None:
        await cancel_and_wait([self._refresh, *self._fetches.values()])

    async def _refresh_periodically(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_PERIOD)
            for backend in list(self.proxy.backends.by_group_version.values()):
                self.mark_dirty(backend.name)

    def mark_dirty(self, name: str) -> None:
        if name in self._fetches:
            self._again.add(name)
            return
        backend = self.proxy.backends.named(name)
        if backend is None:
            if self.versions.pop(name, None) is not None:
                self.on_change()
            return
        self._fetches[name] = asyncio.create_task(self._sync(backend), name=f"discovery {name}")

    async def _sync(self, backend: Backend) -> None:
        try:
            entry = await self._fetch(backend)
        finally:
            del self._fetches[backend.name]
        if backend.name in self._again:
            self._again.discard(backend.name)
            self.mark_dirty(backend.name)
        if self.proxy.backends.named(backend.name) != backend:
            return  # changed or gone meanwhile: marked dirty again
        version = AggregatedVersion(backend.group, backend.version, backend.group_priority, backend.version_priority,
                                    entry)
        if self.versions.get(backend.name) != version:
            self.versions[backend.name] = version
            self.on_change()

    async def _fetch(self, backend: Backend) -> Json:
        """``fetchFreshDiscoveryForService`` and the entry ``syncAPIService`` makes of it."""
        stale = {"version": backend.version, "freshness": "Stale"}
        try:
            status, body = await self._get(backend, "/apis", [*_AGGREGATOR, ("Accept", AGGREGATED_ACCEPT)])
            if status == 406:
                path = f"/apis/{backend.group}/{backend.version}"
                status, body = await self._get(backend, path, [_AGGREGATOR[0], ("Accept", "application/json")])
                if status != 200:
                    return stale
                resources = convert_group_version(orjson.loads(body).get("resources") or [])
                return {"version": backend.version, **({"resources": resources} if resources else {}),
                        "freshness": "Current"}
            if status != 200:
                return stale
            for group in orjson.loads(body).get("items") or ():
                if (group.get("metadata") or {}).get("name", "") != backend.group:
                    continue
                for version in group.get("versions") or ():
                    if version.get("version") == backend.version:
                        return {**version, "freshness": "Current"}
        except (BackendUnavailable, ValueError, AttributeError, TypeError) as err:  # JSONDecodeError too
            log.debug("discovery of %s failed: %s", backend.name, err)
            return stale
        return {"version": backend.version, "freshness": "Current"}  # the server does not list it

    async def _get(self, backend: Backend, path: str, headers: list[tuple[str, str]]) -> tuple[int, bytes]:
        import aiohttp  # the proxy's call imported it

        answer = await self.proxy.call(backend, "GET", path, "", headers, None, DISCOVERY_TIMEOUT)
        try:
            return answer.status, await answer.read()
        except (asyncio.TimeoutError, aiohttp.ClientError) as err:
            raise BackendUnavailable(str(err)) from None


def convert_group_version(resources: list[Json]) -> list[Json]:
    """``endpoints.ConvertGroupVersionIntoToDiscovery``: a legacy ``APIResourceList``'s resources
    as aggregated entries (Go's field order; absent verbs are null), each subresource
    (``<resource>/<sub>``) inside its parent, one made for it (no kind, no verbs) when the list
    has none. A subresource of another scope than its parent's is kube's error
    (``ValueError``): the fetch fails."""
    entries: list[Json] = []
    parents: dict[str, Json] = {}
    for resource in resources:
        if "/" in resource.get("name", ""):
            continue
        entry: Json = {"resource": resource["name"], "responseKind": _kind(resource), "scope": _scope(resource),
                       "singularResource": resource.get("singularName", ""), "verbs": resource.get("verbs")}
        for key in ("shortNames", "categories"):
            if resource.get(key):
                entry[key] = resource[key]
        entries.append(entry)
        parents[resource["name"]] = entry
    for resource in resources:
        parent_name, slash, subresource = resource.get("name", "").partition("/")
        if not slash:
            continue
        parent = parents.get(parent_name)
        if parent is None:
            parent = parents[parent_name] = {"resource": parent_name, "responseKind": _NO_KIND,
                                             "scope": _scope(resource), "singularResource": "", "verbs": None}
            entries.append(parent)
        if parent["scope"] != _scope(resource):
            raise ValueError(f"Error: Parent {parent_name} (scope: {parent['scope']}) and subresource {subresource} "
                             f"(scope: {_scope(resource)}) scope do not match")
        parent.setdefault("subresources", []).append({
            "subresource": subresource, "responseKind": _kind(resource) if resource.get("kind") else _NO_KIND,
            "verbs": resource.get("verbs")})
    return entries


#: An empty ``GroupVersionKind``: kube's stand-in where a legacy entry names no kind.
_NO_KIND = {"group": "", "version": "", "kind": ""}


def _kind(resource: Json) -> Json:
    return {key: resource.get(key, "") for key in ("group", "version", "kind")}


def _scope(resource: Json) -> str:
    return "Namespaced" if resource.get("namespaced") else "Cluster"
