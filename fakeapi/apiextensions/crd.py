"""A CRD's versions as the registry serves them: one ``CustomResourceType`` per version, named
by the CRD's accepted names.

A CRD itself is defaulted (``crd_defaults``), prepared (``crd_strategy``), validated
(``crd_validation``) and given its status (``crd_names``) as apiextensions-apiserver does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..apis.catalogue import ETCD_PREFIX, ResourceType, SubresourceType
from ..machinery.schema import Schema
from .structural import StructuralSchema
from .validation_rules import NoRules, rule_validator

if TYPE_CHECKING:
    from .cel_validation import RuleValidator

# --- what the registry serves ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ScaleSubresource:
    """``subresources.scale``: where the replicas live (``.spec.replicas``)."""

    spec_replicas_path: str
    status_replicas_path: str
    label_selector_path: str | None = None


@dataclass(frozen=True, slots=True)
class CustomResourceType:
    """One served version of a CRD: what the registry needs to serve it, and its schema
    (``StructuralSchema`` for writes, ``Schema`` for the patch and apply code)."""

    group: str
    version: str
    kind: str
    list_kind: str
    plural: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...]
    categories: tuple[str, ...]
    served: bool
    storage: bool
    status_subresource: bool
    scale: ScaleSubresource | None
    openapi_schema: Mapping[str, Any] = field(hash=False, compare=False, repr=False)
    structural: StructuralSchema = field(hash=False, compare=False, repr=False)
    #: The schema's ``x-kubernetes-validations``, compiled once per CRD write.
    rules: RuleValidator | NoRules = field(hash=False, compare=False, repr=False)
    printer_columns: tuple[Mapping[str, Any], ...] = field(hash=False, compare=False, repr=False)
    #: ``selectableFields``' paths without the leading dot, as field selectors name them.
    selectable_fields: tuple[str, ...] = ()

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}"

    @property
    def schema(self) -> Schema:
        return Schema(self.openapi_schema)

    @property
    def subresource_names(self) -> tuple[str, ...]:
        """``status`` and ``scale`` as enabled, in discovery's order."""
        return tuple(name for name, on in (("status", self.status_subresource), ("scale", self.scale is not None)) if on)

    def resource_type(self) -> ResourceType:
        """The catalogue's view of this version: the verbs, subresources and etcd prefix kube
        serves custom resources with (``customresource_handler.go``; keys under
        ``/registry/<group>/<plural>/``)."""
        subresources = {}
        if self.status_subresource:
            subresources["status"] = SubresourceType(self.kind, self.group, self.version, _SUBRESOURCE_VERBS)
        if self.scale is not None:
            subresources["scale"] = SubresourceType("Scale", "autoscaling", "v1", _SUBRESOURCE_VERBS)
        return ResourceType(
            group=self.group, version=self.version, kind=self.kind, plural=self.plural, singular=self.singular,
            namespaced=self.namespaced, verbs=_CUSTOM_RESOURCE_VERBS, short_names=self.short_names,
            categories=self.categories, subresources=MappingProxyType(subresources),
            storage_prefix=f"{ETCD_PREFIX}/{self.group}/{self.plural}/", custom=True,
            selectable_fields=self.selectable_fields,
        )


#: In kube's order, not sorted: the apiextensions DiscoveryController lists them so.
_CUSTOM_RESOURCE_VERBS = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")
_SUBRESOURCE_VERBS = ("get", "patch", "update")


def custom_resource_types(crd: Mapping[str, Any]) -> tuple[CustomResourceType, ...]:
    """A (valid) CRD's versions, served or not, named by its accepted names once it has some
    (kube serves a CRD under ``status.acceptedNames``), else its requested names."""
    spec = crd.get("spec") or {}
    names = (crd.get("status") or {}).get("acceptedNames") or {}
    if not names.get("plural"):
        names = spec.get("names") or {}
    out = []
    for version in spec.get("versions") or ():
        subresources = version.get("subresources") or {}
        scale = subresources.get("scale")
        openapi_schema = (version.get("schema") or {}).get("openAPIV3Schema") or {"type": "object"}
        out.append(CustomResourceType(
            group=spec.get("group") or "", version=version.get("name") or "", kind=names.get("kind") or "",
            list_kind=names.get("listKind") or f"{names.get('kind') or ''}List", plural=names.get("plural") or "",
            singular=names.get("singular") or (names.get("kind") or "").lower(),
            namespaced=spec.get("scope") == "Namespaced",
            short_names=tuple(names.get("shortNames") or ()), categories=tuple(names.get("categories") or ()),
            served=bool(version.get("served")), storage=bool(version.get("storage")),
            status_subresource=subresources.get("status") is not None,
            scale=None if scale is None else ScaleSubresource(
                scale.get("specReplicasPath") or "", scale.get("statusReplicasPath") or "", scale.get("labelSelectorPath")),
            openapi_schema=openapi_schema,
            structural=StructuralSchema(openapi_schema),
            rules=rule_validator(openapi_schema),
            printer_columns=tuple(version.get("additionalPrinterColumns") or ()),
            selectable_fields=tuple((selectable.get("jsonPath") or "").removeprefix(".")
                                    for selectable in version.get("selectableFields") or ()),
        ))
    return tuple(out)
