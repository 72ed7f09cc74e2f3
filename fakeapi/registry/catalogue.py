"""The built-in resource catalogue, read from lightkube-models' generated resource modules.

Each ``lightkube/resources/<group>_<version>.py`` declares, per resource, an ``ApiInfo`` with its
group, version, kind, plural and verbs, and a base class telling namespaced from cluster scope.
We read those declarations with ``ast`` (importing them would need lightkube's client package) once
per process.

Rules applied to that data, each mirroring what a default kube-apiserver serves:
- only GA versions (``v1``, ``v2``, ...): alpha and beta APIs are off by default;
- where a resource is GA in several versions (autoscaling v1 and v2), only the newest is served,
  since fakeapi stores one shape per resource and does not convert between versions;
- resources without ``list`` (token reviews, subject access reviews, ...) are virtual: not stored;
- the etcd key prefix is ``/registry/<plural>/``, group-qualified when two groups share a plural
  (core ``events`` and ``events.k8s.io`` events).
Short names and categories are not in that data; ``_SHORT_NAMES`` and ``_CATEGORIES`` below copy
them from each registry's ``ShortNames()``/``Categories()`` in kubernetes/kubernetes.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from importlib import resources as importlib_resources

_VERB_NAMES = {"post": "create", "put": "update"}
_VERB_ORDER = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
_GA = re.compile(r"^v(\d+)$")

_SHORT_NAMES: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "pods"): ("po",), ("", "services"): ("svc",), ("", "namespaces"): ("ns",),
    ("", "nodes"): ("no",), ("", "configmaps"): ("cm",), ("", "endpoints"): ("ep",),
    ("", "events"): ("ev",), ("", "limitranges"): ("limits",),
    ("", "persistentvolumeclaims"): ("pvc",), ("", "persistentvolumes"): ("pv",),
    ("", "replicationcontrollers"): ("rc",), ("", "resourcequotas"): ("quota",),
    ("", "serviceaccounts"): ("sa",), ("", "componentstatuses"): ("cs",),
    ("apps", "deployments"): ("deploy",), ("apps", "replicasets"): ("rs",),
    ("apps", "statefulsets"): ("sts",), ("apps", "daemonsets"): ("ds",),
    ("batch", "cronjobs"): ("cj",), ("autoscaling", "horizontalpodautoscalers"): ("hpa",),
    ("policy", "poddisruptionbudgets"): ("pdb",), ("networking.k8s.io", "ingresses"): ("ing",),
    ("networking.k8s.io", "networkpolicies"): ("netpol",), ("events.k8s.io", "events"): ("ev",),
    ("apiextensions.k8s.io", "customresourcedefinitions"): ("crd", "crds"),
    ("storage.k8s.io", "storageclasses"): ("sc",), ("scheduling.k8s.io", "priorityclasses"): ("pc",),
    ("certificates.k8s.io", "certificatesigningrequests"): ("csr",),
}
_CATEGORIES: dict[tuple[str, str], tuple[str, ...]] = {
    key: ("all",) for key in (
        ("", "pods"), ("", "services"), ("", "replicationcontrollers"), ("apps", "deployments"),
        ("apps", "replicasets"), ("apps", "statefulsets"), ("apps", "daemonsets"),
        ("batch", "jobs"), ("batch", "cronjobs"), ("autoscaling", "horizontalpodautoscalers"),
    )
}
_CATEGORIES[("apiextensions.k8s.io", "customresourcedefinitions")] = ("api-extensions",)
#: Resources whose DELETE answers with the deleted object rather than a Status.
_RETURNS_DELETED = {("", "pods")}


@dataclass(frozen=True, slots=True)
class ResourceType:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: tuple[str, ...]
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    storage_prefix: str = ""

    @property
    def singular(self) -> str:
        return self.kind.lower()

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def stored(self) -> bool:
        return "list" in self.verbs

    @property
    def returns_deleted_object(self) -> bool:
        return (self.group, self.plural) in _RETURNS_DELETED


class Catalogue:
    def __init__(self, types: list[ResourceType]) -> None:
        self._types = types

    def served(self) -> list[ResourceType]:
        return list(self._types)

    def group_versions(self) -> list[tuple[str, list[str]]]:
        """Every group with its served versions, preferred (newest) first, core group first."""
        versions: dict[str, set[str]] = defaultdict(set)
        for rt in self._types:
            versions[rt.group].add(rt.version)
        return [
            (g, sorted(versions[g], key=lambda v: -int(v[1:])))
            for g in sorted(versions, key=lambda g: (g != "", g))
        ]


def _literal(node: ast.AST) -> object:
    return ast.literal_eval(node)


def _read_api_infos() -> list[tuple[str, str, str, str, bool, list[str]]]:
    """(group, version, kind, plural, namespaced, verbs) of every top-level resource."""
    out = []
    package = importlib_resources.files("lightkube") / "resources"
    for entry in sorted(package.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".py") or entry.name.startswith("_"):
            continue
        tree = ast.parse(entry.read_text())
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef):
                continue
            bases = {b.attr for b in cls.bases if isinstance(b, ast.Attribute)}
            if bases & {"NamespacedSubResource", "GlobalSubResource"}:
                continue
            namespaced = bool(bases & {"NamespacedResourceG", "NamespacedResource"})
            if not namespaced and not bases & {"GlobalResource"}:
                continue
            for stmt in cls.body:
                if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "_api_info" for t in stmt.targets
                ):
                    call = stmt.value
                    assert isinstance(call, ast.Call)
                    kw = {k.arg: k.value for k in call.keywords}
                    res = kw["resource"]
                    assert isinstance(res, ast.Call)
                    group, version, kind = (_literal(a) for a in res.args)
                    out.append((group, version, kind, _literal(kw["plural"]), namespaced, _literal(kw["verbs"])))
    return out  # type: ignore[return-value]


@cache
def default_catalogue() -> Catalogue:
    newest: dict[tuple[str, str], tuple] = {}
    for group, version, kind, plural, namespaced, verbs in _read_api_infos():
        m = _GA.match(version)
        if not m:
            continue
        key = (group, plural)
        if key not in newest or int(m.group(1)) > int(newest[key][1][1:]):
            newest[key] = (group, version, kind, plural, namespaced, verbs)
    plural_groups: dict[str, int] = defaultdict(int)
    for _group, plural in newest:
        plural_groups[plural] += 1
    types = []
    for (group, plural), (_, version, kind, _, namespaced, verbs) in sorted(newest.items()):
        kube_verbs = {_VERB_NAMES.get(v, v) for v in verbs} & set(_VERB_ORDER)
        prefix = f"/registry/{group}/{plural}/" if plural_groups[plural] > 1 and group else f"/registry/{plural}/"
        types.append(ResourceType(
            group=group, version=version, kind=kind, plural=plural, namespaced=namespaced,
            verbs=tuple(v for v in _VERB_ORDER if v in kube_verbs),
            short_names=_SHORT_NAMES.get((group, plural), ()),
            categories=_CATEGORIES.get((group, plural), ()),
            storage_prefix=prefix,
        ))
    return Catalogue(types)
