"""Discovery: the legacy documents (``/api``, ``/apis``, ``/api/v1``, ``/apis/<g>/<v>``), the
aggregated ones kubectl and client-go ask ``/api`` and ``/apis`` for (``apidiscovery.k8s.io/v2``
``APIGroupDiscoveryList``, kube's ``endpoints/discovery/aggregated``), and ``/version``. Both
kinds are made from the same table of served resources, built once per set of served resources
(a CRD coming or going rebuilds them) and served as bytes, in JSON or protobuf."""

from __future__ import annotations

import base64
import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property, cmp_to_key
from typing import Any

import orjson

from .. import __version__
from ..apis.catalogue import ResourceType, compare_kube_aware_versions
from ..machinery.release import TARGET_RELEASE
from ..registry.registry import Registry
from . import protobuf_encoding
from .aggregated_discovery import AggregatedVersion

#: /version answers as the release whose API surface the catalogue serves.
KUBERNETES_VERSION = (*TARGET_RELEASE.split("."), f"v{TARGET_RELEASE}.0")


class Discovery:
    """``aggregated_versions`` are the service-backed APIServices' group versions, each with its
    entry as the discovery manager last fetched it (``invalidate`` when they change)."""

    def __init__(self, registry: Registry, server_address: str,
                 aggregated_versions: Callable[[], Iterable[AggregatedVersion]] = tuple) -> None:
        self.registry = registry
        self.server_address = server_address
        self.aggregated_versions = aggregated_versions

    @cached_property
    def _by_group_version(self) -> dict[tuple[str, str], list[Any]]:
        """The served resources of each group version by name: stored and create-only ones."""
        types = {key: served.resource_type for key, served in self.registry.resources.items()}
        for key in self.registry.create_only:
            resource_type = self.registry.catalogue.lookup(*key)
            if resource_type is not None:
                types[key] = resource_type
        gvs: dict[tuple[str, str], list[Any]] = defaultdict(list)
        for (group, version, _plural), resource_type in sorted(types.items()):
            gvs[(group, version)].append(resource_type)
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
        for cached in ("_by_group_version", "_aggregated_by_group", "_named_groups", "api_groups",
                       "_api_group_documents", "aggregated_core", "aggregated_groups", "_legacy_protobuf"):
            self.__dict__.pop(cached, None)

    @cached_property
    def _aggregated_by_group(self) -> dict[str, list[AggregatedVersion]]:
        """The service-backed group versions of each group, most preferred first (kube's
        ``ByVersionPriority``: versionPriority, then the kube-aware version order)."""
        by_group: dict[str, list[AggregatedVersion]] = defaultdict(list)
        for aggregated in self.aggregated_versions():
            if (aggregated.group, aggregated.version) not in self._by_group_version:
                by_group[aggregated.group].append(aggregated)
        by_preference = cmp_to_key(compare_kube_aware_versions)
        for versions in by_group.values():
            versions.sort(key=lambda a: by_preference(a.version), reverse=True)
            versions.sort(key=lambda a: a.version_priority, reverse=True)
        return by_group

    @cached_property
    def _named_groups(self) -> dict[str, tuple[list[str], tuple[int, str]]]:
        """Each named group: its versions (most preferred first, then service-backed ones) and
        its place in kube-aggregator's sort of APIServices (``ByGroupPriorityMinimum``), its
        first APIService's: the highest group priority (``GROUP_PRIORITIES``; custom resource
        groups 1000; a service-backed group its ``groupPriorityMinimum``), then the APIService's
        name, ``<version>.<group>``."""
        versions: dict[str, list[str]] = defaultdict(list)
        for group, version in self._by_group_version:
            if group:
                versions[group].append(version)
        by_preference = cmp_to_key(compare_kube_aware_versions)
        for group in versions:
            versions[group].sort(key=by_preference, reverse=True)
        places = {group: min((-GROUP_PRIORITIES.get(group, CUSTOM_GROUP_PRIORITY), f"{v}.{group}") for v in served)
                  for group, served in versions.items()}
        for group, aggregated in self._aggregated_by_group.items():
            if group:
                versions[group] += [a.version for a in aggregated]
                places[group] = min(places.get(group, (0, "~")),
                                    *((-a.group_priority, f"{a.version}.{group}") for a in aggregated))
        return {group: (versions[group], places[group]) for group in versions}

    @cached_property
    def api_groups(self) -> bytes:
        """Groups in kube-aggregator's order (``SortedByGroupAndVersion``): by group priority,
        then by the name of the group's first APIService (not the group's name: v1.b.example.com
        comes before v2.a.example.com); versions most preferred first."""
        named = self._named_groups
        groups = []
        for group in sorted(named, key=lambda group: named[group][1]):
            gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in named[group][0]]
            groups.append({"name": group, "versions": gvs, "preferredVersion": gvs[0]})
        return orjson.dumps({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})

    def api_group(self, group: str) -> bytes | None:
        """``/apis/<group>``: the group as ``/apis`` lists it (kube-aggregator's
        ``apiGroupHandler``), None for a group nothing serves."""
        return self._api_group_documents.get(group)

    @cached_property
    def _api_group_documents(self) -> dict[str, bytes]:
        return {group["name"]: orjson.dumps({"kind": "APIGroup", "apiVersion": "v1", **group})
                for group in orjson.loads(self.api_groups)["groups"]}

    def serves_group(self, group: str) -> bool:
        """Whether a group is served (kube routes nothing under /apis/<group> for another)."""
        return any(served == group for served, _version in self._by_group_version)

    def resource_list(self, group: str, version: str) -> bytes | None:
        resource_types = self._by_group_version.get((group, version))
        if resource_types is None:
            return None
        resources = []
        for resource_type in resource_types:
            entry = {
                "name": resource_type.plural,
                "singularName": resource_type.singular,
                "namespaced": resource_type.namespaced,
                "kind": resource_type.kind,
                "verbs": list(resource_type.verbs),
                **_names_and_categories(resource_type),
            }
            served = self.registry.resources.get((group, version, resource_type.plural))
            if served is not None and (group, resource_type.plural) not in _WITHOUT_STORAGE_VERSION:
                entry["storageVersionHash"] = storage_version_hash(served.storage.resource_type)
            resources.append(entry)
            resources.extend(_subresource_entries(resource_type))
        # kube's core list carries no apiVersion; the groups' lists do.
        head = {"kind": "APIResourceList", "groupVersion": version} if not group else {
            "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{group}/{version}"}
        return orjson.dumps({**head, "resources": resources})

    def legacy_protobuf(self, body: bytes) -> bytes:
        """A legacy document (``api_versions``, ``api_groups``, a ``resource_list``) in protobuf,
        enveloped with the apiVersion its JSON carries (none for ``/api`` and ``/api/v1``)."""
        encoded = self._legacy_protobuf.get(body)
        if encoded is None:
            document = orjson.loads(body)
            kind = document["kind"]
            message = protobuf_encoding.message_name("v1", kind)
            assert message is not None, kind
            encoded = self._legacy_protobuf[body] = protobuf_encoding.envelope(
                document.get("apiVersion", ""), kind, protobuf_encoding.encoder(message)(document))
        return encoded

    @cached_property
    def _legacy_protobuf(self) -> dict[bytes, bytes]:
        return {}

    @cached_property
    def aggregated_core(self) -> AggregatedDocument:
        """``/api`` as an ``APIGroupDiscoveryList``: the core group."""
        return self._aggregated([""])

    @cached_property
    def aggregated_groups(self) -> AggregatedDocument:
        """``/apis`` as an ``APIGroupDiscoveryList``: every named group, by group priority and
        then by name (the aggregated discovery manager's order, not ``api_groups``')."""
        named = self._named_groups
        return self._aggregated(sorted(named, key=lambda group: (named[group][1][0], group)))

    def _aggregated(self, groups: list[str]) -> AggregatedDocument:
        """The served groups' entries, a service-backed version's as the discovery manager
        fetched it."""
        versions: dict[str, list[str]] = defaultdict(list)
        for group, version in self._by_group_version:
            versions[group].append(version)
        by_preference = cmp_to_key(compare_kube_aware_versions)
        items = []
        for group in groups:
            items.append({
                "metadata": {"name": group} if group else {},
                "versions": [*({"version": version, "resources": [
                    _aggregated_resource(resource_type) for resource_type in self._by_group_version[(group, version)]],
                    "freshness": "Current"}
                    for version in sorted(versions[group], key=by_preference, reverse=True)),
                    *(aggregated.entry for aggregated in self._aggregated_by_group.get(group, ()))],
            })
        return AggregatedDocument(items)

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


#: kube-apiserver's group priorities (``apiVersionPriorities`` of cmd/kube-apiserver and
#: pkg/controlplane/apiserver), which order discovery; the aggregator lists its own group first.
GROUP_PRIORITIES = {
    "apiregistration.k8s.io": 1 << 31, "apps": 17800, "events.k8s.io": 17750, "authentication.k8s.io": 17700,
    "authorization.k8s.io": 17600, "autoscaling": 17500, "batch": 17400, "certificates.k8s.io": 17300,
    "networking.k8s.io": 17200, "policy": 17100, "rbac.authorization.k8s.io": 17000, "storage.k8s.io": 16800,
    "admissionregistration.k8s.io": 16700, "apiextensions.k8s.io": 16700, "scheduling.k8s.io": 16600,
    "coordination.k8s.io": 16500, "node.k8s.io": 16300, "discovery.k8s.io": 16200, "resource.k8s.io": 16200,
    "flowcontrol.apiserver.k8s.io": 16100, "internal.apiserver.k8s.io": 16000, "storagemigration.k8s.io": 15800,
}
#: A CustomResourceDefinition's group (crdregistration: ``GroupPriorityMinimum: 1000``).
CUSTOM_GROUP_PRIORITY = 1000
#: The subresources fakeapi serves (others of the catalogue, such as pods/log, are not listed).
SERVED_SUBRESOURCES = ("approval", "binding", "ephemeralcontainers", "eviction", "finalize", "resize", "scale", "status",
                       "token")
AGGREGATED_API_VERSION = "apidiscovery.k8s.io/v2"
AGGREGATED_KIND = "APIGroupDiscoveryList"


#: Stored resources whose kube storage has no storage version (no ``StorageVersionProvider``):
#: component statuses are read from the components' health endpoints.
_WITHOUT_STORAGE_VERSION = frozenset({("", "componentstatuses")})
#: The versions kube-apiserver v1.35 writes to etcd where that is not the group's preferred one
#: (``default_storage_factory_builder.go``'s ``WithVersion``, and apiextensions-apiserver's
#: storage codec): those of kinds whose GA version is not yet the storage version.
_ETCD_VERSIONS = {("storage.k8s.io", "VolumeAttributesClass"): "v1beta1",
                  ("apiextensions.k8s.io", "CustomResourceDefinition"): "v1beta1"}


def storage_version_hash(stored_as: ResourceType) -> str:
    """``discovery.StorageVersionHash`` of the group, version and kind objects are stored as in
    kube's etcd: the first 8 bytes of the SHA-256 of ``group/version/kind``, in base64. Clients
    compare it to notice a storage version change; its derivation is kube's detail, copied."""
    group, kind = stored_as.group, stored_as.kind
    version = _ETCD_VERSIONS.get((group, kind), stored_as.version)
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def _names_and_categories(resource_type: ResourceType) -> dict[str, list[str]]:
    """A discovery entry's ``shortNames`` and ``categories``, each only when it has some."""
    return {key: list(values) for key, values in (("shortNames", resource_type.short_names),
                                                  ("categories", resource_type.categories))
            if values}


def _served_subresources(resource_type: ResourceType) -> list[tuple[str, Any]]:
    return [(name, sub) for name, sub in resource_type.subresources.items() if name in SERVED_SUBRESOURCES]


def _subresource_entries(resource_type: ResourceType) -> list[dict[str, Any]]:
    """Discovery entries of ``<plural>/<subresource>``; one of another kind (``Scale``) names its
    group and version, which client-go's scale client looks for."""
    entries = []
    for name, sub in _served_subresources(resource_type):
        entry: dict[str, Any] = {"name": f"{resource_type.plural}/{name}", "singularName": "",
                                 "namespaced": resource_type.namespaced}
        if (sub.group, sub.version) != (resource_type.group, resource_type.version):
            entry["group"], entry["version"] = sub.group, sub.version
        entry["kind"] = sub.kind
        entry["verbs"] = list(sub.verbs)
        entries.append(entry)
    return entries


def _response_kind(resource_type: ResourceType, group: str, version: str, kind: str) -> dict[str, str]:
    """An aggregated entry's ``responseKind``: group and version are empty for the resource's own,
    but for a custom resource (kube's apiextensions discovery fills them in)."""
    same = (group, version) == (resource_type.group, resource_type.version) and not resource_type.custom
    return {"group": "" if same else group, "version": "" if same else version, "kind": kind}


def _aggregated_resource(resource_type: ResourceType) -> dict[str, Any]:
    """One ``APIResourceDiscovery``: the legacy entry's facts, with its subresources inside."""
    entry: dict[str, Any] = {
        "resource": resource_type.plural,
        "responseKind": _response_kind(resource_type, resource_type.group, resource_type.version, resource_type.kind),
        "scope": "Namespaced" if resource_type.namespaced else "Cluster",
        "singularResource": resource_type.singular,
        "verbs": list(resource_type.verbs),
        **_names_and_categories(resource_type),
    }
    subresources = [{"subresource": name,
                     "responseKind": _response_kind(resource_type, sub.group, sub.version, sub.kind),
                     "verbs": list(sub.verbs)} for name, sub in _served_subresources(resource_type)]
    if subresources:
        entry["subresources"] = subresources
    return entry


@dataclass(frozen=False, slots=True, eq=False)
class AggregatedDocument:
    """An ``APIGroupDiscoveryList`` and its ETag: kube's upper-case hex SHA-512 of the list's
    JSON (without kind and apiVersion, as Go marshals the struct), quoted."""

    items: list[dict[str, Any]]
    _json: bytes = b""
    _protobuf: bytes = b""
    etag: str = ""

    def __post_init__(self) -> None:
        self._json = orjson.dumps({"kind": AGGREGATED_KIND, "apiVersion": AGGREGATED_API_VERSION, "metadata": {},
                                   "items": self.items})
        digest = hashlib.sha512(orjson.dumps({"metadata": {}, "items": self.items})).hexdigest().upper()
        self.etag = f'"{digest}"'

    def body(self, protobuf: bool) -> bytes:
        if not protobuf:
            return self._json
        if not self._protobuf:
            message = protobuf_encoding.message_name(AGGREGATED_API_VERSION, AGGREGATED_KIND)
            assert message is not None
            self._protobuf = protobuf_encoding.envelope(AGGREGATED_API_VERSION, AGGREGATED_KIND,
                                                        protobuf_encoding.encoder(message)({"items": self.items}))
        return self._protobuf
