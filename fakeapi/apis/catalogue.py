"""The built-in resource catalogue: what a default kube-apiserver of ``TARGET_RELEASE`` serves.

Built once per process from two data sets already in the environment, by three rules:

* **What exists, and its shape.** lightkube-models' generated ``lightkube/resources/*.py`` declare
  every resource and subresource of its Kubernetes release: group, version, kind, plural, verbs,
  scope (the base class), parent and subresource name. They are read with ``ast``: importing them
  needs lightkube's client package (``lightkube.core``), a separate distribution fakeapi has no
  use for, and the declarations are plain literals, so parsing is exact and fails loudly if the
  generator's format changes.
* **What is served.** kube-apiserver 1.32 and later enable exactly the GA group versions by default
  (``DefaultAPIResourceConfigSource``: every beta and alpha version is disabled; the last beta
  still on by default, flowcontrol v1beta3, was removed in 1.32). So a resource is served when its
  version is GA (``v<N>``) and its group/version/kind exists in ``TARGET_RELEASE``'s OpenAPI
  (kubernetes-validate's copy of it): lightkube-models may be newer than the release emulated
  and know GA APIs it lacks (1.37's certificates.k8s.io/v1 ClusterTrustBundle,
  storagemigration.k8s.io/v1). Every GA version of a group is served (autoscaling v1 and v2);
  the group's preferred version is the first in kube-aware version order (GA over beta over
  alpha, then higher numbers first). Verbs and subresources are lightkube's, of its own release:
  the OpenAPI definitions checked carry kinds, not paths.
* **Where it is stored.** Keys are ``/registry/<prefix>/[<namespace>/]<name>``. kube-apiserver's
  own resources use the resource name alone (``/registry/deployments/``), except its
  ``SpecialDefaultResourcePrefixes`` (``/registry/minions/`` for nodes, ...); the resources of the
  apiextensions and aggregator servers are prefixed by their group
  (``/registry/apiextensions.k8s.io/customresourcedefinitions/``), as custom resources are. So
  resources of one name in several versions or groups share a prefix, as in etcd: autoscaling v1
  and v2 ``horizontalpodautoscalers``, core and events.k8s.io ``events``.

Resources whose only verb is ``create`` (token reviews, access reviews, bindings) are ``virtual``:
served but never stored, as in kube. Short names and categories are not in lightkube's data;
``_SHORT_NAMES`` and ``_CATEGORIES`` copy them from kube-apiserver's discovery documents
(``api/discovery/*.json`` in kubernetes/kubernetes, generated from each registry's
``ShortNames()`` and ``Categories()``).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, cmp_to_key
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from ..machinery.release import TARGET_RELEASE
from ..machinery.schema import release_kinds

_KUBE_VERBS = {"post": "create", "put": "update"}
#: lightkube's all-namespaces list and watch are kube's list and watch on another path.
_CLIENT_ONLY_VERBS = frozenset(("global_list", "global_watch"))
_NAMESPACED_BASES = frozenset(("NamespacedResource", "NamespacedResourceG", "NamespacedSubResource"))
_CLUSTER_BASES = frozenset(("GlobalResource", "GlobalSubResource"))

#: Where lightkube's data (from the OpenAPI documents, which list operations per path) says more
#: than kube-apiserver serves, checked against its aggregated discovery: ComponentStatus's REST
#: is a Getter and Lister only (``pkg/registry/core/componentstatus/rest.go``), and CSINode's
#: storage has no status subresource (``pkg/registry/storage/csinode/storage``).
_NOT_SERVED_VERBS = {("", "componentstatuses"): frozenset(("watch",))}
_NOT_SERVED_SUBRESOURCES = frozenset((("storage.k8s.io", "csinodes", "status"),))

#: kube-apiserver's ``--etcd-prefix`` (its default): every storage key starts with it.
ETCD_PREFIX = "/registry"
#: ``SpecialDefaultResourcePrefixes`` (kubernetes ``pkg/kubeapiserver/default_storage_factory_builder.go``).
_SPECIAL_STORAGE_PREFIXES = {
    ("", "replicationcontrollers"): "controllers",
    ("", "endpoints"): "services/endpoints",
    ("", "nodes"): "minions",
    ("", "services"): "services/specs",
    ("networking.k8s.io", "ingresses"): "ingress",
}
#: Groups kube-apiserver delegates to apiextensions-apiserver and kube-aggregator, whose
#: ``SimpleRestOptionsFactory`` prefixes keys with ``<group>/<resource>``.
_GROUP_PREFIXED_STORAGE = frozenset(("apiextensions.k8s.io", "apiregistration.k8s.io"))

#: Short names and categories as kube-apiserver's discovery lists them (see the module doc).
_SHORT_NAMES: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "componentstatuses"): ("cs",),
    ("", "configmaps"): ("cm",),
    ("", "endpoints"): ("ep",),
    ("", "events"): ("ev",),
    ("", "limitranges"): ("limits",),
    ("", "namespaces"): ("ns",),
    ("", "nodes"): ("no",),
    ("", "persistentvolumeclaims"): ("pvc",),
    ("", "persistentvolumes"): ("pv",),
    ("", "pods"): ("po",),
    ("", "replicationcontrollers"): ("rc",),
    ("", "resourcequotas"): ("quota",),
    ("", "serviceaccounts"): ("sa",),
    ("", "services"): ("svc",),
    ("apiextensions.k8s.io", "customresourcedefinitions"): ("crd", "crds"),
    ("apps", "daemonsets"): ("ds",),
    ("apps", "deployments"): ("deploy",),
    ("apps", "replicasets"): ("rs",),
    ("apps", "statefulsets"): ("sts",),
    ("autoscaling", "horizontalpodautoscalers"): ("hpa",),
    ("batch", "cronjobs"): ("cj",),
    ("certificates.k8s.io", "certificatesigningrequests"): ("csr",),
    ("events.k8s.io", "events"): ("ev",),
    ("networking.k8s.io", "ingresses"): ("ing",),
    ("networking.k8s.io", "ipaddresses"): ("ip",),
    ("networking.k8s.io", "networkpolicies"): ("netpol",),
    ("policy", "poddisruptionbudgets"): ("pdb",),
    ("scheduling.k8s.io", "priorityclasses"): ("pc",),
    ("storage.k8s.io", "storageclasses"): ("sc",),
    ("storage.k8s.io", "volumeattributesclasses"): ("vac",),
}
_CATEGORIES: dict[tuple[str, str], tuple[str, ...]] = {
    **{key: ("all",) for key in (
        ("", "pods"), ("", "replicationcontrollers"), ("", "services"), ("apps", "daemonsets"),
        ("apps", "deployments"), ("apps", "replicasets"), ("apps", "statefulsets"),
        ("autoscaling", "horizontalpodautoscalers"), ("batch", "cronjobs"), ("batch", "jobs"),
    )},
    **{key: ("api-extensions",) for key in (
        ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"),
        ("admissionregistration.k8s.io", "validatingadmissionpolicies"),
        ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"),
        ("admissionregistration.k8s.io", "validatingwebhookconfigurations"),
        ("apiextensions.k8s.io", "customresourcedefinitions"),
        ("apiregistration.k8s.io", "apiservices"),
    )},
}
#: Resources whose DELETE answers with the deleted object rather than a Status (their storage's
#: ``ReturnDeletedObject``, grep'd from kube's ``pkg/registry``).
_RETURNS_DELETED_OBJECT = frozenset((
    ("", "pods"), ("", "services"), ("", "namespaces"), ("", "persistentvolumes"),
    ("", "persistentvolumeclaims"), ("", "podtemplates"), ("", "resourcequotas"), ("", "serviceaccounts"),
    ("storage.k8s.io", "storageclasses"), ("storage.k8s.io", "csidrivers"), ("storage.k8s.io", "csinodes"),
    ("storage.k8s.io", "volumeattachments"), ("storage.k8s.io", "volumeattributesclasses"),
    ("resource.k8s.io", "deviceclasses"), ("resource.k8s.io", "resourceclaims"),
    ("resource.k8s.io", "resourceclaimtemplates"), ("resource.k8s.io", "resourceslices"),
))

_KUBE_VERSION = re.compile(r"v([0-9]+)(?:(alpha|beta)([0-9]+))?")
_STABILITY = {"alpha": 0, "beta": 1, None: 2}


def compare_kube_aware_versions(a: str, b: str) -> int:
    """apimachinery's ``version.CompareKubeAwareVersionStrings``: positive when ``a`` is preferred
    (GA over beta over alpha, then the higher major, then the higher minor: v2, v1, v1beta2,
    v1beta1, v1alpha1); kube-like versions over others; others in reverse lexical order."""
    if a == b:
        return 0
    match_a, match_b = _KUBE_VERSION.fullmatch(a), _KUBE_VERSION.fullmatch(b)
    if not match_a or not match_b:
        if match_a or match_b:
            return 1 if match_a else -1
        return (a < b) - (a > b)
    key_a, key_b = ((_STABILITY[m[2]], int(m[1]), int(m[3] or 0)) for m in (match_a, match_b))
    return (key_a > key_b) - (key_a < key_b)


@dataclass(frozen=True, slots=True)
class SubresourceType:
    """A subresource (``pods/status``, ``deployments/scale``): the kind it reads and writes, which
    may be of another group (``Scale`` in autoscaling/v1), and its verbs."""

    kind: str
    group: str
    version: str
    verbs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ResourceType:
    """A served resource of one group version. ``verbs`` are kube's verb names, sorted as kube's
    discovery lists them. ``storage_prefix`` is the etcd key prefix with its trailing ``/``, empty
    for a virtual resource."""

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    verbs: tuple[str, ...]
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: Mapping[str, SubresourceType] = field(default_factory=dict, hash=False)
    virtual: bool = False
    storage_prefix: str = ""
    #: Served for a CustomResourceDefinition (unstructured: no Go struct defaults).
    custom: bool = False
    #: A custom resource version's ``selectableFields``: the field selector labels it offers
    #: beside the metadata's, each its ``jsonPath`` without the leading dot (``spec.color``).
    selectable_fields: tuple[str, ...] = ()

    @property
    def group_version(self) -> str:
        """The ``apiVersion`` of its objects: ``v1``, ``apps/v1``."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def stored(self) -> bool:
        return not self.virtual

    @property
    def returns_deleted_object(self) -> bool:
        return (self.group, self.plural) in _RETURNS_DELETED_OBJECT


class APIGroup(NamedTuple):
    """A served API group and its served versions, preferred first (``""`` is the core group)."""

    name: str
    versions: tuple[str, ...]

    @property
    def preferred_version(self) -> str:
        return self.versions[0]


class Catalogue:
    """The served resources, with the lookups the registry and discovery make."""

    def __init__(self, types: Iterable[ResourceType]) -> None:
        self._types = tuple(types)
        self._by_resource = {(t.group, t.version, t.plural): t for t in self._types}
        versions: dict[str, set[str]] = {}
        for t in self._types:
            versions.setdefault(t.group, set()).add(t.version)
        by_preference = cmp_to_key(compare_kube_aware_versions)
        self._groups = tuple(
            APIGroup(group, tuple(sorted(versions[group], key=by_preference, reverse=True)))
            for group in sorted(versions, key=lambda g: (g != "", g))
        )
        rank = {(g.name, v): i for g in self._groups for i, v in enumerate(g.versions)}
        self._by_kind: dict[tuple[str, str], ResourceType] = {}
        for t in sorted(self._types, key=lambda t: rank[(t.group, t.version)], reverse=True):
            self._by_kind[(t.group, t.kind)] = t  # the most preferred version is written last

    def served(self) -> tuple[ResourceType, ...]:
        return self._types

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._by_resource.get((group, version, plural))

    def lookup_kind(self, group: str, kind: str) -> ResourceType | None:
        """The resource of a kind in its group's most preferred version that serves it."""
        return self._by_kind.get((group, kind))

    def group_versions(self) -> tuple[APIGroup, ...]:
        """Every served group, the core group first, then by name."""
        return self._groups


@dataclass(frozen=True, slots=True)
class _ApiInfo:
    """One lightkube ``_api_info``: a resource, or a subresource (``action``) of ``parent``."""

    group: str
    version: str
    kind: str
    plural: str
    verbs: tuple[str, ...]
    namespaced: bool
    parent: tuple[str, str, str] | None
    action: str | None


def _kube_verbs(verbs: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({_KUBE_VERBS.get(v, v) for v in verbs} - _CLIENT_ONLY_VERBS))


def _resource_def(node: ast.expr) -> tuple[str, str, str]:
    """The literal arguments of ``res.ResourceDef(group, version, kind)``."""
    assert isinstance(node, ast.Call) and len(node.args) == 3, ast.dump(node)
    group, version, kind = (ast.literal_eval(arg) for arg in node.args)
    return group, version, kind


def _read_api_infos() -> Iterator[_ApiInfo]:
    """Every ``_api_info`` declared in lightkube-models' resource modules."""
    # Found, not imported: importing ``lightkube.resources`` imports lightkube's client (40 ms of
    # every start); only the modules' text is read.
    spec = importlib.util.find_spec("lightkube")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("fakeapi needs the lightkube-models package (its resource modules)")
    package = Path(next(iter(spec.submodule_search_locations))) / "resources"
    for module in sorted(package.iterdir(), key=lambda entry: entry.name):
        if not module.name.endswith(".py") or module.name.startswith("_"):
            continue
        for cls in ast.parse(module.read_text()).body:
            if not isinstance(cls, ast.ClassDef):
                continue
            bases = {base.attr for base in cls.bases if isinstance(base, ast.Attribute)}
            for stmt in cls.body:
                if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
                        and any(isinstance(t, ast.Name) and t.id == "_api_info" for t in stmt.targets)):
                    continue
                if not bases & (_NAMESPACED_BASES | _CLUSTER_BASES):
                    raise ValueError(f"{module.name}: {cls.name} has no known scope: {sorted(bases)}")
                args = {kw.arg: kw.value for kw in stmt.value.keywords}
                group, version, kind = _resource_def(args["resource"])
                yield _ApiInfo(
                    group=group, version=version, kind=kind,
                    plural=ast.literal_eval(args["plural"]),
                    verbs=tuple(ast.literal_eval(args["verbs"])),
                    namespaced=bool(bases & _NAMESPACED_BASES),
                    parent=_resource_def(args["parent"]) if "parent" in args else None,
                    action=ast.literal_eval(args["action"]) if "action" in args else None,
                )


def _is_ga(version: str) -> bool:
    match = _KUBE_VERSION.fullmatch(version)
    return match is not None and match[2] is None


def _storage_prefix(group: str, plural: str) -> str:
    if group in _GROUP_PREFIXED_STORAGE:
        return f"{ETCD_PREFIX}/{group}/{plural}/"
    return f"{ETCD_PREFIX}/{_SPECIAL_STORAGE_PREFIXES.get((group, plural), plural)}/"


def load_catalogue(release: str = TARGET_RELEASE) -> Catalogue:
    """The catalogue of what a default kube-apiserver of ``release`` serves (see the module doc)."""
    existing = release_kinds(release)
    infos = list(_read_api_infos())
    subresources: dict[tuple[str, str, str], dict[str, SubresourceType]] = {}  # by parent group, version, plural
    for info in infos:
        if info.parent is not None and info.action is not None:
            parent_group, parent_version, _ = info.parent
            if (parent_group, info.plural, info.action) in _NOT_SERVED_SUBRESOURCES:
                continue
            subresources.setdefault((parent_group, parent_version, info.plural), {})[info.action] = SubresourceType(
                kind=info.kind, group=info.group, version=info.version, verbs=_kube_verbs(info.verbs))
    types = []
    for info in infos:
        if info.parent is not None or not _is_ga(info.version) or (info.group, info.version, info.kind) not in existing:
            continue
        key = (info.group, info.plural)
        verbs = tuple(v for v in _kube_verbs(info.verbs) if v not in _NOT_SERVED_VERBS.get(key, ()))
        virtual = verbs == ("create",)
        types.append(ResourceType(
            group=info.group, version=info.version, kind=info.kind, plural=info.plural,
            singular=info.kind.lower(), namespaced=info.namespaced, verbs=verbs,
            short_names=_SHORT_NAMES.get(key, ()), categories=_CATEGORIES.get(key, ()),
            subresources=MappingProxyType(dict(sorted(subresources.get((info.group, info.version, info.plural), {}).items()))),
            virtual=virtual,
            storage_prefix="" if virtual else _storage_prefix(info.group, info.plural),
        ))
    return Catalogue(sorted(types, key=lambda t: (t.group, t.version, t.plural)))


@cache
def default_catalogue() -> Catalogue:
    """``load_catalogue()``, once per process."""
    return load_catalogue()
