"""Schemas of objects: the built-in kinds of a Kubernetes release, and custom resources.

Built-in schemas come from kubernetes-validate's copy of a release's OpenAPI (one JSON Schema
document of ``$defs`` named like OpenAPI's ``io.k8s.api.core.v1.Pod``, with kube's extensions kept:
``x-kubernetes-patch-strategy``, ``x-kubernetes-patch-merge-key``, ``x-kubernetes-list-type``,
``x-kubernetes-list-map-keys``, ``x-kubernetes-map-type``, ``x-kubernetes-group-version-kind``).
Types there are JSON Schema's nullable form, ``["string", "null"]``. A CRD's ``openAPIV3Schema``
is the same kind of tree without ``$ref``s. ``Schema`` walks either one, resolving references as
it goes, so patching, apply and validation code reads every schema the same way.

The file is located without importing kubernetes_validate, which would load jsonschema for
nothing; it is read once per process.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from .release import TARGET_RELEASE

_REF_PREFIX = "#/$defs/"
_EMPTY: Mapping[str, Any] = {}
#: The keys of a schema's items and map values among its cached children (no field name is a tuple).
_ITEMS, _VALUES = ("items",), ("additionalProperties",)


class Schema:
    """One node of a schema tree. Navigation returns ``None`` where the schema says nothing
    (an unknown field, ``x-kubernetes-preserve-unknown-fields`` subtrees, free-form objects)."""

    __slots__ = ("node", "_defs", "_children")

    def __init__(self, node: Mapping[str, Any], defs: Mapping[str, Any] = _EMPTY) -> None:
        while "$ref" in node:
            # A $ref's siblings are a description and the field's own extensions (a patch
            # strategy or map type of this use of the definition): those are kept.
            extensions = {k: v for k, v in node.items() if k.startswith("x-kubernetes-")}
            node = defs[node["$ref"].removeprefix(_REF_PREFIX)]
            if extensions:
                node = {**node, **extensions}
        self.node = node
        self._defs = defs
        #: The child schemas navigated to so far, by declared field name (``_ITEMS``, ``_VALUES``:
        #: the items' and the map values'). Schema trees are never changed, so a node resolves its
        #: children once: every walk of an object (decoding, field validation, patches, field
        #: tracking) navigates the same nodes again on every write.
        self._children: dict[object, Schema | None] = {}

    def _resolve(self, key: object, node: Mapping[str, Any] | None) -> Schema | None:
        """The child at ``node``, kept under ``key``."""
        child = self._children[key] = None if node is None else Schema(node, self._defs)
        return child

    @property
    def type(self) -> str | None:
        """The JSON type (``object``, ``array``, ``string``, ...), ``null`` aside; ``None`` when any."""
        declared = self.node.get("type")
        if isinstance(declared, list):
            return next((t for t in declared if t != "null"), None)
        return declared

    def field(self, name: str) -> Schema | None:
        """The schema of an object field."""
        try:
            return self._children[name]
        except KeyError:  # unknown names (a body's own) are not kept: only declared fields are
            node = self.node.get("properties", _EMPTY).get(name)
            return None if node is None else self._resolve(name, node)

    @property
    def properties(self) -> Mapping[str, Any]:
        return self.node.get("properties", _EMPTY)

    @property
    def items(self) -> Schema | None:
        """The schema of an array's items."""
        try:
            return self._children[_ITEMS]
        except KeyError:
            return self._resolve(_ITEMS, self.node.get("items"))

    @property
    def additional_properties(self) -> Schema | None:
        """The schema of a map's values (``additionalProperties`` as a schema, not ``true``)."""
        try:
            return self._children[_VALUES]
        except KeyError:
            extra = self.node.get("additionalProperties")
            return self._resolve(_VALUES, extra if isinstance(extra, Mapping) else None)

    @property
    def patch_strategies(self) -> tuple[str, ...]:
        """``x-kubernetes-patch-strategy`` split on commas: ``("merge",)``, ``("merge", "retainKeys")``."""
        strategy = self.node.get("x-kubernetes-patch-strategy")
        return tuple(strategy.split(",")) if strategy else ()

    @property
    def patch_merge_key(self) -> str | None:
        return self.node.get("x-kubernetes-patch-merge-key")

    @property
    def list_type(self) -> str | None:
        """``atomic``, ``set`` or ``map`` (``x-kubernetes-list-type``); ``None`` when undeclared."""
        return self.node.get("x-kubernetes-list-type")

    @property
    def list_map_keys(self) -> tuple[str, ...]:
        return tuple(self.node.get("x-kubernetes-list-map-keys", ()))

    @property
    def map_type(self) -> str | None:
        """``atomic`` or ``granular`` (``x-kubernetes-map-type``); ``None`` when undeclared."""
        return self.node.get("x-kubernetes-map-type")

    @property
    def preserves_unknown_fields(self) -> bool:
        return bool(self.node.get("x-kubernetes-preserve-unknown-fields"))

    def __repr__(self) -> str:
        return f"Schema({self.type or 'any'}, {sorted(self.properties)[:5]})"


def definitions(release: str = TARGET_RELEASE) -> Mapping[str, Any]:
    """Every definition of ``release``'s OpenAPI, by OpenAPI name (alpha and beta APIs included:
    the published document is built with everything enabled)."""
    return _definitions(release)


@cache
def _definitions(release: str) -> Mapping[str, Any]:
    """``definitions``, read once per release: cached by the release alone, as ``cache`` on
    ``definitions`` would keep ``definitions()`` and ``definitions(release)`` apart (a start
    read the 1.5 MB document twice and kept both)."""
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("fakeapi needs the kubernetes-validate package (its OpenAPI schemas)")
    path = (Path(next(iter(spec.submodule_search_locations))) / "kubernetes-json-schema"
            / f"v{release}.0-local" / "_definitions.json")
    return orjson.loads(path.read_bytes())["$defs"]


@cache
def _by_kind(release: str) -> Mapping[tuple[str, str, str], str]:
    return {
        (gvk["group"], gvk["version"], gvk["kind"]): name
        for name, definition in definitions(release).items()
        for gvk in definition.get("x-kubernetes-group-version-kind", ())
    }


def release_kinds(release: str = TARGET_RELEASE) -> frozenset[tuple[str, str, str]]:
    """Every (group, version, kind) ``release``'s OpenAPI defines."""
    return frozenset(_by_kind(release))


def definition_name(group: str, version: str, kind: str, release: str = TARGET_RELEASE) -> str | None:
    """The OpenAPI name of a kind's definition: ``io.k8s.api.apps.v1.Deployment``."""
    return _by_kind(release).get((group, version, kind))


@cache
def kind_schema(group: str, version: str, kind: str, release: str = TARGET_RELEASE) -> Schema | None:
    """The schema of a built-in kind, or ``None`` for a kind the release does not define: one
    tree per kind, whose nodes keep the children navigated to."""
    name = definition_name(group, version, kind, release)
    defs = definitions(release)
    return None if name is None else Schema(defs[name], defs)
