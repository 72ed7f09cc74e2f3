"""Server-side apply's types: an OpenAPI ``Schema`` as structured-merge-diff atoms.

kube-openapi's ``pkg/schemaconv`` (``openapi.go``, ``smd.go``), as vendored by kube-apiserver
v1.32, into the types of structured-merge-diff v4.4.2's ``schema`` package (``elements.go``).
Lists are associative by ``x-kubernetes-list-type: map|set`` (falling back to
``x-kubernetes-patch-strategy: merge`` + ``patch-merge-key``), atomic otherwise; maps are atomic
by ``x-kubernetes-map-type: atomic``; objects without properties, and subtrees with
``x-kubernetes-preserve-unknown-fields``, hold "deduced" values (granular maps, atomic lists).
``schema=None`` is ``NewDeducedTypeConverter`` (a CRD without a structural schema).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from .schema import Schema, definitions
from .value import Value

NUMERIC, STRING, BOOLEAN, UNTYPED = "numeric", "string", "boolean", "untyped"


@dataclass(frozen=True, eq=False, slots=True)
class ListType:
    """``schema.List``. ``keys`` are an associative list's map keys (none for a set)."""

    atomic: bool
    associative: bool
    keys: tuple[str, ...]
    element: TypeRef


@dataclass(frozen=True, eq=False, slots=True)
class MapType:
    """``schema.Map``: declared fields, and the type of any other key (``None`` where the
    schema allows no other key, upstream's empty ``TypeRef``)."""

    atomic: bool
    fields: Callable[[str], TypeRef | None]
    element: TypeRef | None
    field_default: Callable[[str], Value]

    def field_type(self, name: str) -> TypeRef | None:
        declared = self.fields(name)
        return declared if declared is not None else self.element


@dataclass(frozen=True, slots=True)
class Atom:
    """``schema.Atom``: what a value of a type may be. Equality compares the list and map
    parts by identity, which is upstream's ``Atom.Equals`` for parts of one resolved atom."""

    scalar: str | None = None
    list: ListType | None = None
    map: MapType | None = None


class TypeRef:
    """``schema.TypeRef``: resolves (lazily, types are recursive) to an ``Atom``."""

    def atom(self) -> Atom:
        raise NotImplementedError


class _FixedType(TypeRef):
    def __init__(self, build: Callable[[TypeRef], Atom]) -> None:
        self._build = build

    @cached_property
    def _atom(self) -> Atom:
        return self._build(self)

    def atom(self) -> Atom:
        return self._atom


def _no_field(_name: str) -> TypeRef | None:
    return None


def _no_default(_name: str) -> Value:
    return None


# ``__untyped_atomic_`` and ``__untyped_deduced_`` (schemaconv/smd.go, typed/parser.go).
UNTYPED_ATOMIC: TypeRef = _FixedType(lambda self: Atom(
    UNTYPED, ListType(True, False, (), self), MapType(True, _no_field, self, _no_default)))
DEDUCED: TypeRef = _FixedType(lambda self: Atom(
    UNTYPED, ListType(True, False, (), UNTYPED_ATOMIC), MapType(False, _no_field, self, _no_default)))

_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

#: Defaults kube's OpenAPI declares (``+default=`` markers) for associative list keys, which the
#: JSON Schema copy in kubernetes-validate lacks: SMD keys a port without ``protocol`` as TCP.
_KEY_DEFAULTS: Mapping[tuple[str, str], Value] = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP",
}


def _definition_name(node: Mapping[str, Any]) -> str | None:
    """The name of the built-in definition ``node`` is, among those schemaconv (or
    ``_KEY_DEFAULTS``) treats by name. Compared by value: schemas of other releases are other
    objects."""
    defs = definitions()
    for name in (_QUANTITY, _RAW_EXTENSION, *(owner for owner, _field in _KEY_DEFAULTS)):
        candidate = defs.get(name)
        if candidate is node or (candidate is not None and candidate.get("description") == node.get("description")
                                 and candidate == node):
            return name
    return None


class _SchemaType(TypeRef):
    """A type from an OpenAPI schema node (``convert.parseSchema``). ``preserve`` is whether an
    enclosing inlined schema set ``x-kubernetes-preserve-unknown-fields``; ``relationship``
    is the ``x-kubernetes-map-type`` a referencing property put next to its ``$ref``."""

    def __init__(self, schema: Schema, preserve: bool, relationship: str | None = None) -> None:
        self.schema = schema
        self.preserve = preserve or schema.preserves_unknown_fields
        self.relationship = relationship

    @cached_property
    def _atom(self) -> Atom:
        name = _definition_name(self.schema.node)
        if name == _QUANTITY:
            return Atom(UNTYPED)
        if name == _RAW_EXTENSION:
            return UNTYPED_ATOMIC.atom()
        atom = self._parse()
        if self.relationship is not None and atom.map is not None:  # Schema.Resolve's override
            return Atom(atom.scalar, atom.list, MapType(self.relationship == "atomic", atom.map.fields,
                                                        atom.map.element, atom.map.field_default))
        return atom

    def atom(self) -> Atom:
        return self._atom

    def _parse(self) -> Atom:
        kind = self.schema.type
        if kind is None:
            return Atom(UNTYPED, self._list(), self._map())
        if kind == "object":
            return Atom(map=self._map())
        if kind == "array":
            return Atom(list=self._list())
        if kind in ("integer", "number"):
            return Atom(NUMERIC)
        if kind == "boolean":
            return Atom(BOOLEAN)
        if kind == "string" and self.schema.node.get("format", "") in ("", "byte"):
            return Atom(STRING)
        return Atom(UNTYPED)  # other string formats (date-time, int-or-string, ...), unknown types

    def _ref(self, member: Mapping[str, Any], resolved: Schema) -> TypeRef:
        """``makeOpenAPIRef`` for the raw ``member`` schema, ``resolved`` being it with its
        ``$ref`` followed: a reference names a top-level type (converted afresh, so without this
        subtree's preserve-unknown-fields, and with the ``x-kubernetes-map-type`` next to the
        reference); anything else is inlined (an embedded resource as a whole object)."""
        if "$ref" in member:
            return _SchemaType(resolved, False, member.get("x-kubernetes-map-type"))
        if resolved.node.get("x-kubernetes-embedded-resource") is True:
            return _ObjectType(resolved, self.preserve)
        return _SchemaType(resolved, self.preserve)

    def _map(self) -> MapType:
        properties = self.schema.properties
        extra = self.schema.node.get("additionalProperties")
        if extra is None:
            element = DEDUCED if self.preserve or not properties else None
        elif isinstance(extra, Mapping):
            element = self._ref(extra, self.schema.additional_properties)
        else:
            element = DEDUCED if extra else None
        owner = _definition_name(self.schema.node)

        @cache
        def field_type(name: str) -> TypeRef | None:
            return self._ref(properties[name], self.schema.field(name)) if name in properties else None

        def field_default(name: str) -> Value:
            declared = properties.get(name, {}).get("default")
            return declared if declared is not None else _KEY_DEFAULTS.get((owner or "", name))

        return MapType(self.schema.map_type == "atomic", field_type, element, field_default)

    def _list(self) -> ListType:
        items = self.schema.node.get("items")
        element = self._ref(items, self.schema.items) if isinstance(items, Mapping) else UNTYPED_ATOMIC
        list_type = self.schema.list_type
        if list_type is not None:
            associative = list_type in ("set", "map")
            keys = self.schema.list_map_keys if list_type == "map" else ()
        elif self.schema.node.get("x-kubernetes-patch-strategy") in ("merge", "merge,retainKeys"):
            associative = True
            keys = (self.schema.patch_merge_key,) if self.schema.patch_merge_key else ()
        else:
            associative, keys = False, ()
        return ListType(not associative, associative, keys, element)


class _ObjectType(_SchemaType):
    """A whole object: ``metadata`` is always ``ObjectMeta`` and ``apiVersion``/``kind`` strings,
    as in the OpenAPI apiextensions-apiserver builds around a CRD's schema
    (``controller/openapi/builder``), which gives an ``x-kubernetes-embedded-resource`` the same
    three (``addEmbeddedProperties``): their undeclared fields, an embedded object's metadata's
    too, are no field of the type."""

    def _map(self) -> MapType:
        base = super()._map()
        meta = _SchemaType(Schema(definitions()[_OBJECT_META], definitions()), False)
        string = _FixedType(lambda _self: Atom(STRING))
        overrides: dict[str, TypeRef] = {"metadata": meta, "apiVersion": string, "kind": string}

        def field_type(name: str) -> TypeRef | None:
            return overrides.get(name) or base.fields(name)

        return MapType(base.atomic, field_type, base.element, base.field_default)


def object_type(schema: Schema | None) -> TypeRef:
    """The type of a whole object: ``schema``'s, or deduced for ``None``."""
    return DEDUCED if schema is None else _ObjectType(schema, False)


def resolve(type_ref: TypeRef | None) -> Atom:
    return Atom() if type_ref is None else type_ref.atom()


def deduce(atom: Atom, value: Value) -> Atom:
    """``deduceAtom``: the part of the atom the value's JSON kind selects, if it has one (the
    atom itself when that is its only part, as it is for most types: equal, and not made)."""
    if isinstance(value, (bool, int, float, str)) and atom.scalar:
        return atom if atom.list is None and atom.map is None else Atom(scalar=atom.scalar)
    if isinstance(value, list) and atom.list:
        return atom if atom.scalar is None and atom.map is None else Atom(list=atom.list)
    if isinstance(value, dict) and atom.map:
        return atom if atom.scalar is None and atom.list is None else Atom(map=atom.map)
    return atom
