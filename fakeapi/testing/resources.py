"""Which REST path a resource name or a manifest's apiVersion/kind maps to, from the server's
discovery documents (as kubectl resolves ``kubectl get deploy``), so helpers work for built-in
kinds and for custom resources alike."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import httpx


class ApiError(Exception):
    """A non-2xx answer; ``status`` is the HTTP code and ``body`` the Status object (or text)."""

    def __init__(self, status: int, body: Any) -> None:
        message = body.get("message", body) if isinstance(body, dict) else body
        super().__init__(f"{status}: {message}")
        self.status = status
        self.body = body


def checked_json(response: httpx.Response) -> Any:
    """The JSON body of a successful response; an ``ApiError`` otherwise."""
    if response.is_success:
        return response.json()
    try:
        body = response.json()
    except ValueError:
        body = response.text
    raise ApiError(response.status_code, body)


@dataclasses.dataclass(frozen=True, slots=True)
class ApiResource:
    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    #: Lower-case names kubectl also accepts: singular, kind, short names.
    aliases: frozenset[str] = frozenset()

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        """The collection path (all namespaces when ``namespace`` is None), or an object's."""
        base = f"/api/{self.version}" if not self.group else f"/apis/{self.group}/{self.version}"
        if self.namespaced and namespace is not None:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        return base if name is None else f"{base}/{name}"


class ResourceResolver:
    """Looks resources up in discovery, caching each group-version's list until a lookup misses
    (a CRD may have been created since), then reading discovery again once."""

    def __init__(self, http: httpx.Client) -> None:
        self._http = http
        self._lists: dict[str, list[ApiResource]] = {}
        #: Group-versions to search for a bare name, core first then /apis order (kubectl's).
        self._preferred: list[str] | None = None

    def for_kind(self, api_version: str, kind: str) -> ApiResource:
        """The resource serving ``kind`` in ``api_version`` (``v1``, ``apps/v1``)."""
        for fresh in (False, True):
            found = next((r for r in self._resources(api_version, fresh) if r.kind == kind), None)
            if found is not None:
                return found
        raise LookupError(f"the server has no kind {kind!r} in {api_version!r}")

    def for_name(self, name: str) -> ApiResource:
        """A resource as kubectl names it: plural, singular, kind or short name, optionally
        qualified by group (``deployments.apps``) or version and group (``deployments.v1.apps``)."""
        for fresh in (False, True):
            found = next((r for r in self._candidates(fresh) if _names(r, name)), None)
            if found is not None:
                return found
        raise LookupError(f"the server doesn't have a resource type {name!r}")

    def _candidates(self, fresh: bool) -> Iterator[ApiResource]:
        if fresh or self._preferred is None:
            groups = checked_json(self._http.get("/apis"))["groups"]
            self._preferred = ["v1", *(g["preferredVersion"]["groupVersion"] for g in groups)]
        for group_version in self._preferred:
            yield from self._resources(group_version, fresh)

    def _resources(self, group_version: str, fresh: bool) -> list[ApiResource]:
        if fresh or group_version not in self._lists:
            path = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
            response = self._http.get(path)
            if response.status_code == 404:
                return []
            body = checked_json(response)
            group, _, version = group_version.rpartition("/")
            self._lists[group_version] = [
                ApiResource(group, version, r["name"], r["kind"], r["namespaced"], frozenset(
                    alias.lower() for alias in (r.get("singularName"), r["kind"], *r.get("shortNames", ())) if alias))
                for r in body["resources"] if "/" not in r["name"]  # subresources are not addressable alone
            ]
        return self._lists[group_version]


def _names(resource: ApiResource, name: str) -> bool:
    """Whether ``name`` (kubectl's ``resource[.version][.group]``) designates ``resource``."""
    base, _, qualifier = name.partition(".")
    if qualifier and qualifier not in (resource.group, f"{resource.version}.{resource.group}"):
        return False
    base = base.lower()
    return base == resource.plural or base in resource.aliases
