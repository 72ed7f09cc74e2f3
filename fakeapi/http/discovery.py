"""Legacy (unaggregated) discovery: ``/api``, ``/apis``, ``/api/v1``, ``/apis/<g>/<v>``, and
``/version``. Bodies are built once per registry and served as bytes."""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property, cmp_to_key
from typing import Any

import orjson

from .. import __version__
from ..apis.catalogue import ResourceType, compare_kube_aware_versions
from ..machinery.release import TARGET_RELEASE
from ..registry.registry import Registry

#: /version answers as the release whose API surface the catalogue serves.
KUBERNETES_VERSION = (*TARGET_RELEASE.split("."), f"v{TARGET_RELEASE}.0")


class Discovery:
    def __init__(self, registry: Registry, server_address: str) -> None:
        self.registry = registry
        self.server_address = server_address

    @cached_property
    def _by_group_version(self) -> dict[tuple[str, str], list[Any]]:
        """The served resources of each group version by name: stored and create-only ones."""
        types = {key: rs.rt for key, rs in self.registry.resources.items()}
        for key in self.registry.create_only:
            rt = self.registry.catalogue.lookup(*key)
            if rt is not None:
                types[key] = rt
        gvs: dict[tuple[str, str], list[Any]] = defaultdict(list)
        for (group, version, _plural), rt in sorted(types.items()):
            gvs[(group, version)].append(rt)
        return gvs

    @cached_property
    def api_versions(self) -> bytes:
        return orjson.dumps({
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": self.server_address}],
        })

    def invalidate(self) -> None:
        """The served resources changed (a CRD came or went): rebuild on next use."""
        for cached in ("_by_group_version", "api_groups"):
            self.__dict__.pop(cached, None)

    @cached_property
    def api_groups(self) -> bytes:
        """Built-in groups in the catalogue's order, then custom resource groups by name (kube
        lists CRD groups after its own); versions most preferred first."""
        versions: dict[str, list[str]] = defaultdict(list)
        for group, version in self._by_group_version:
            if group:
                versions[group].append(version)
        builtin = [g.name for g in self.registry.catalogue.group_versions() if g.name in versions]
        ordered = builtin + sorted(set(versions) - set(builtin))
        by_preference = cmp_to_key(compare_kube_aware_versions)
        groups = []
        for group in ordered:
            gvs = [{"groupVersion": f"{group}/{v}", "version": v}
                   for v in sorted(versions[group], key=by_preference, reverse=True)]
            groups.append({"name": group, "versions": gvs, "preferredVersion": gvs[0]})
        return orjson.dumps({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})

    def resource_list(self, group: str, version: str) -> bytes | None:
        rts = self._by_group_version.get((group, version))
        if rts is None:
            return None
        resources = []
        for rt in rts:
            entry: dict[str, Any] = {
                "name": rt.plural,
                "singularName": rt.singular,
                "namespaced": rt.namespaced,
                "kind": rt.kind,
                "verbs": list(rt.verbs),
            }
            if rt.short_names:
                entry["shortNames"] = list(rt.short_names)
            if rt.categories:
                entry["categories"] = list(rt.categories)
            resources.append(entry)
            resources.extend(_subresource_entries(rt))
        gv = f"{group}/{version}" if group else version
        return orjson.dumps({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources})

    @cached_property
    def version(self) -> bytes:
        major, minor, git_version = KUBERNETES_VERSION
        return orjson.dumps({
            "major": major,
            "minor": minor,
            "gitVersion": git_version,
            "gitCommit": f"fakeapi-{__version__}",
            "gitTreeState": "clean",
            "buildDate": "2026-01-01T00:00:00Z",
            "goVersion": "go1.23.0",
            "compiler": "gc",
            "platform": "linux/amd64",
        })


#: The subresources fakeapi serves (others of the catalogue, such as pods/log, are not listed).
SERVED_SUBRESOURCES = ("binding", "ephemeralcontainers", "eviction", "finalize", "resize", "scale", "status", "token")


def _subresource_entries(rt: ResourceType) -> list[dict[str, Any]]:
    """Discovery entries of ``<plural>/<subresource>``; one of another kind (``Scale``) names its
    group and version, which client-go's scale client looks for."""
    entries = []
    for name, sub in rt.subresources.items():
        if name not in SERVED_SUBRESOURCES:
            continue
        entry: dict[str, Any] = {"name": f"{rt.plural}/{name}", "singularName": "", "namespaced": rt.namespaced}
        if (sub.group, sub.version) != (rt.group, rt.version):
            entry["group"], entry["version"] = sub.group, sub.version
        entry["kind"] = sub.kind
        entry["verbs"] = list(sub.verbs)
        entries.append(entry)
    return entries
