"""Server-side apply and managedFields tracking: kube's fieldmanager as pure functions.

Three layers, each mirroring its upstream source (structured-merge-diff v4.4.2, apimachinery and
kube-openapi as vendored by kube-apiserver v1.32):

1. Types (``kube-openapi pkg/schemaconv/openapi.go``, ``smd.go``): a ``Schema`` becomes SMD
   atoms. Lists are associative by ``x-kubernetes-list-type: map|set`` (falling back to
   ``x-kubernetes-patch-strategy: merge`` + ``patch-merge-key``), atomic otherwise; maps are
   atomic by ``x-kubernetes-map-type: atomic``; objects without properties, and subtrees with
   ``x-kubernetes-preserve-unknown-fields``, hold "deduced" values (granular maps, atomic
   lists). ``schema=None`` is ``NewDeducedTypeConverter`` (a CRD without a structural schema).
2. Typed values (``typed/validate.go``, ``tofieldset.go``, ``compare.go``, ``merge.go``,
   ``remove.go``) and the updater (``merge/update.go``): ``Update`` gives the changed fields to
   the writer and takes them from everyone else; ``Apply`` merges the configuration, drops what
   the applier stopped applying unless someone else owns it, and reports conflicts.
3. The field manager (``managedfields/internal``: ``fieldmanager.go``, ``versioncheck.go``,
   ``lastappliedupdater.go``, ``lastappliedmanager.go``, ``skipnonapplied.go``,
   ``capmanagers.go``, ``buildmanagerinfo.go``, ``managedfieldsupdater.go``, ``stripmeta.go``,
   ``structuredmerge.go``, ``conflict.go``), the same chain ``NewDefaultFieldManager`` builds.

Objects are one API version here: the version converter kube plugs into the updater is the
identity, so managers recorded at another apiVersion are compared against the object as it is.
Callers pass objects as kube's decoder would hand them over: unknown fields already pruned and
defaults applied (kube records defaulted fields as owned by the writer).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any, TypeVar

import orjson

from . import status
from .golang import go_quote, go_sharp_value, go_type
from .jsonvalue import Repeated, json_copy, json_key
from .managed_fields import (
    UPDATE,
    FieldSet,
    Managed,
    ManagedFieldsError,
    Path,
    PathElement,
    Value,
    VersionedSet,
    canonical_time,
    decode_managed_fields,
    encode_managed_fields,
    go_json,
    is_reset,
    manager_identifier,
    parse_manager_identifier,
    parse_time,
    path_string,
    values_equal,
)
from .schema import Schema, definitions
from .status import Cause, StatusError

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
"""An absent value (Go's nil ``value.Value``), as opposed to an explicit JSON null (None)."""
T = TypeVar("T")

# --- 1. types (kube-openapi schemaconv) --------------------------------------------------------

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
        reference); anything else is inlined."""
        if "$ref" in member:
            return _SchemaType(resolved, False, member.get("x-kubernetes-map-type"))
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
    (``controller/openapi/builder``)."""

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


def _resolve(type_ref: TypeRef | None) -> Atom:
    return Atom() if type_ref is None else type_ref.atom()


def _deduce(atom: Atom, value: Value) -> Atom:
    """``deduceAtom``: the part of the atom the value's JSON kind selects, if it has one (the
    atom itself when that is its only part, as it is for most types: equal, and not made)."""
    if isinstance(value, (bool, int, float, str)) and atom.scalar:
        return atom if atom.list is None and atom.map is None else Atom(scalar=atom.scalar)
    if isinstance(value, list) and atom.list:
        return atom if atom.scalar is None and atom.map is None else Atom(list=atom.list)
    if isinstance(value, dict) and atom.map:
        return atom if atom.scalar is None and atom.list is None else Atom(map=atom.map)
    return atom


# --- 2a. item keys and errors (typed/helpers.go) -----------------------------------------------


class ValidationError(Exception):
    """``typed.ValidationErrors``: each error is (path, message)."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__()
        self.errors = errors

    def __str__(self) -> str:
        texts = [f"{path}: {message}" if path else message for path, message in self.errors]
        return texts[0] if len(texts) == 1 else "\n".join(["errors:", *("  " + text for text in texts)])


def _go_v(value: Value) -> str:
    """Go's ``%v`` of an unstructured value."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{key}:{_go_v(value[key])}" for key in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go_v(item) for item in value) + "]"
    if value is None:
        return "<nil>"
    return go_json(value) if isinstance(value, (bool, int, float)) else value


def _item_key(type_: ListType, item: Value) -> PathElement:
    """``listItemToPathElement``: an associative list item's key, or a set item's value.
    Raises ``ValueError`` with upstream's message."""
    if not type_.associative:
        raise ValueError("invalid indexing of non-associative list")
    if not type_.keys:
        if isinstance(item, dict):
            raise ValueError("associative list without keys has an element that's a map type")
        if isinstance(item, list):
            raise ValueError("not supported: associative list with lists as elements")
        if item is None:
            raise ValueError("associative list without keys has an element that's an explicit null")
        return PathElement.value(item)
    if item is None:
        raise ValueError("associative list with keys may not have a null element")
    if not isinstance(item, dict):
        raise ValueError("associative list with keys may not have non-map elements")
    key: dict[str, Value] = {}
    for name in type_.keys:
        if name in item:
            key[name] = item[name]
            continue
        element_map = type_.element.atom().map
        if element_map is None:
            raise ValueError(f"couldn't find default value for {name}: associative list may not have non-map types")
        if (default := element_map.field_default(name)) is None:
            raise ValueError(f"associative list with keys has an element that omits key field {go_quote(name)} "
                             "(and doesn't have default value)")
        key[name] = default
    return PathElement.key(key)


def _try_item_key(type_: ListType, item: Value) -> PathElement | None:
    try:
        return _item_key(type_, item)
    except ValueError:
        return None


# --- 2b. validation (typed/validate.go) --------------------------------------------------------


def _validate_scalar(scalar: str, value: Value, prefix: str = "") -> str | None:
    if value is MISSING or value is None:
        return None
    if scalar == NUMERIC and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return f"{prefix}expected numeric (int or float), got {go_type(value)}"
    if scalar == STRING and not isinstance(value, str):
        return f"{prefix}expected string, got &value.valueUnstructured{{Value:{go_sharp_value(value)}}}"
    if scalar == BOOLEAN and not isinstance(value, bool):
        return f"{prefix}expected boolean, got &{{{_go_v(value)}}}"
    if scalar == UNTYPED and isinstance(value, (dict, list)):
        return f"{prefix}expected any scalar, got &{{{_go_v(value)}}}"
    return None


def validate(value: Value, type_ref: TypeRef | None, *, allow_duplicates: bool) -> None:
    """``TypedValue.Validate``; raises ``ValidationError``. Valid values, nearly all, are told
    by ``_valid``, a plain walk; only an invalid one is walked again for its errors' paths."""
    if _valid(value, type_ref, allow_duplicates):
        return
    raise ValidationError(list(_validate(value, type_ref, allow_duplicates)))


def _valid(value: Value, type_ref: TypeRef | None, allow_duplicates: bool) -> bool:
    """Whether ``_validate`` would find no error (the same checks, without building paths;
    ``_deduce``'s choice made without making an atom)."""
    atom = _resolve(type_ref)
    if isinstance(value, dict) and atom.map is not None:
        return _valid_map(value, atom.map, allow_duplicates)
    if isinstance(value, list) and atom.list:
        return _valid_list(value, atom.list, allow_duplicates)
    if isinstance(value, (bool, int, float, str)) and atom.scalar:
        return _validate_scalar(atom.scalar, value) is None
    if atom.map is not None:  # a value of another kind: only null is a map's
        return value is None
    if atom.scalar is not None:
        return _validate_scalar(atom.scalar, value) is None
    if atom.list is not None:
        return value is None
    return False


def _valid_map(value: dict[str, Value], map_type: MapType, allow_duplicates: bool) -> bool:
    for key, item in value.items():
        declared = map_type.fields(key)
        if declared is None and map_type.element is None:
            return False
        if not _valid(item, declared or map_type.element, allow_duplicates):
            return False
    return True


def _valid_list(value: list[Value], list_type: ListType, allow_duplicates: bool) -> bool:
    if not list_type.associative:
        atom = _resolve(list_type.element)
        if atom.scalar is not None and atom.map is None and atom.list is None:
            # A list of one scalar type (an RBAC rule's verbs, a container's args): ``_valid``
            # of each item is ``_validate_scalar`` alone, strings the commonest by far.
            if atom.scalar == STRING and all(type(item) is str for item in value):
                return True
            return all(_validate_scalar(atom.scalar, item) is None for item in value)
    seen: set[PathElement] = set()
    for item in value:
        if list_type.associative:
            try:
                element = _item_key(list_type, item)
            except ValueError:
                return False
            if element in seen and not allow_duplicates:
                return False
            seen.add(element)
        if not _valid(item, list_type.element, allow_duplicates):
            return False
    return True


def _validate(value: Value, type_ref: TypeRef | None, allow_duplicates: bool) -> Iterator[tuple[str, str]]:
    atom = _deduce(_resolve(type_ref), value)
    if atom.map is not None:
        yield from _validate_map(value, atom.map, allow_duplicates)
    elif atom.scalar is not None:
        if (error := _validate_scalar(atom.scalar, value)) is not None:
            yield "", error
    elif atom.list is not None:
        yield from _validate_list(value, atom.list, allow_duplicates)
    else:
        yield "", "schema error: invalid atom: inlined"


def _prefixed(prefix: str, errors: Iterator[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    return ((prefix + path, message) for path, message in errors)


def _validate_map(value: Value, type_: MapType, allow_duplicates: bool) -> Iterator[tuple[str, str]]:
    if value is None:
        return
    if not isinstance(value, dict):
        yield "", f"expected map, got &{{{_go_v(value)}}}"
        return
    for key, item in value.items():
        declared = type_.fields(key)
        if declared is None and type_.element is None:
            yield "." + key, "field not declared in schema"
            return
        yield from _prefixed("." + key, _validate(item, declared or type_.element, allow_duplicates))


def _validate_list(value: Value, type_: ListType, allow_duplicates: bool) -> Iterator[tuple[str, str]]:
    if value is None:
        return
    if not isinstance(value, list):
        yield "", f"expected list, got &{{{_go_v(value)}}}"
        return
    seen: set[PathElement] = set()
    for index, item in enumerate(value):
        if not type_.associative:
            element = PathElement.index(index)
        else:
            try:
                element = _item_key(type_, item)
            except ValueError as err:
                yield "", f"element {index}: {err}"
                return
            if element in seen and not allow_duplicates:
                yield "", f"duplicate entries for key {element}"
            seen.add(element)
        yield from _prefixed(str(element), _validate(item, type_.element, allow_duplicates))


# --- 2c. field sets of values (typed/tofieldset.go) --------------------------------------------


def to_field_set(value: Value, type_ref: TypeRef | None) -> FieldSet:
    """``TypedValue.ToFieldSet``: every leaf, list item and (undeclared, null or empty) map key.
    The parts of an object (its top-level fields' values) come from ``_part_fields``."""
    out = FieldSet()
    atom = _deduce(_resolve(type_ref), value)
    if atom.map is None or atom.map.atomic or not isinstance(value, dict):
        _collect(value, type_ref, (), out)
        return out
    for key, item in value.items():
        element = PathElement.field(key)
        member, below = _part_fields(item, atom.map.field_type(key))
        if below is not None:
            out.children[element] = below
        if member or _key_is_member(atom.map, key, item):
            out.members.add(element)
    return out


def _key_is_member(map_type: MapType, key: str, item: Value) -> bool:
    """Whether a map's key is a member of its field set whatever its value's type says: a
    null or empty value, or a key the map does not declare."""
    return item is None or item == {} or map_type.fields(key) is None


#: The place of a part in ``_part_fields``' own walk.
_PART = PathElement.field("")
#: ``_part_fields``' answers for maps and lists, by type and JSON: an apply walks the object
#: three times, and the objects written over and over repeat their parts (a spec applied again
#: and again). Their sets are never changed once built (set operations make new ones). The key
#: holds the type itself, which lives while kept; parts of at most ``PART_MAX_BYTES`` of JSON.
_PART_FIELDS: Repeated[tuple[TypeRef | None, bytes], tuple[bool, FieldSet | None]] = Repeated(1024)


def _part_fields(value: Value, type_ref: TypeRef | None) -> tuple[bool, FieldSet | None]:
    """What ``_collect`` records for ``value`` at a field: whether the field is a member, and
    the set below it (None: nothing)."""
    if not (isinstance(value, dict) or isinstance(value, list)) or not value:
        return _walk_part_fields(value, type_ref)
    return _kept(_PART_FIELDS, _walk_part_fields, value, type_ref)


def _walk_part_fields(value: Value, type_ref: TypeRef | None) -> tuple[bool, FieldSet | None]:
    walked = FieldSet()
    _collect(value, type_ref, (_PART,), walked)
    return _PART in walked.members, walked.children.get(_PART)


def _collect(value: Value, type_ref: TypeRef | None, path: Path, out: FieldSet) -> None:
    atom = _deduce(_resolve(type_ref), value)
    if atom.map is not None:
        if atom.map.atomic:
            out.insert(path)
        elif isinstance(value, dict):
            for key, item in value.items():
                child = (*path, PathElement.field(key))
                _collect(item, atom.map.field_type(key), child, out)
                if _key_is_member(atom.map, key, item):
                    out.insert(child)
    elif atom.scalar is not None:
        out.insert(path)
    elif atom.list is not None:
        if atom.list.atomic:
            out.insert(path)
        elif isinstance(value, list):
            _collect_items(value, atom.list, path, out)


def _collect_items(items: list[Value], type_: ListType, path: Path, out: FieldSet) -> None:
    """Items with a duplicated key are owned as a whole (the key once, nothing under it)."""
    keys = [_try_item_key(type_, item) for item in items]
    seen: set[PathElement | None] = set()
    duplicates: set[PathElement | None] = set()
    for key in keys:
        if key in seen and key not in duplicates:
            out.insert((*path, key))
            duplicates.add(key)
        seen.add(key)
    for key, item in zip(keys, items):
        if key in duplicates or key is None:
            continue
        _collect(item, type_.element, (*path, key), out)
        out.insert((*path, key))


# --- 2d. comparison (typed/compare.go) ---------------------------------------------------------


@dataclass(slots=True)
class Comparison:
    removed: FieldSet = field(default_factory=FieldSet)
    modified: FieldSet = field(default_factory=FieldSet)
    added: FieldSet = field(default_factory=FieldSet)


def compare(lhs: Value, rhs: Value, type_ref: TypeRef | None) -> Comparison:
    """``TypedValue.Compare``: which fields ``rhs`` added, removed or changed against ``lhs``."""
    out = Comparison()
    _CompareWalker(out, (), lhs, rhs, type_ref).compare()
    return out


@dataclass(slots=True)
class _CompareWalker:
    """One node of ``compareWalker``. ``in_leaf`` is per walker, as upstream's (a copy made
    for a mismatched lhs atom does not share it)."""

    out: Comparison
    path: Path
    lhs: Value
    rhs: Value
    type_ref: TypeRef | None
    in_leaf: bool = False

    def compare(self) -> None:
        atom = _resolve(self.type_ref)
        lhs_atom, rhs_atom = _deduce(atom, self.lhs), _deduce(atom, self.rhs)
        if self.rhs is MISSING:
            self._handle(lhs_atom)
        elif self.lhs is MISSING or lhs_atom == rhs_atom:
            self._handle(rhs_atom)
        else:
            _CompareWalker(self.out, self.path, self.lhs, self.rhs, self.type_ref, self.in_leaf)._handle(lhs_atom)
            self._handle(rhs_atom)
        if not self.in_leaf:
            if self.lhs is MISSING:
                self.out.added.insert(self.path)
            elif self.rhs is MISSING:
                self.out.removed.insert(self.path)

    def _handle(self, atom: Atom) -> None:
        if atom.map is not None:
            self._map(atom.map)
        elif atom.scalar is not None:
            self._leaf()
        elif atom.list is not None:
            self._list(atom.list)

    def _leaf(self) -> None:
        if self.in_leaf:
            return
        self.in_leaf = True
        if self.lhs is MISSING:
            self.out.added.insert(self.path)
        elif self.rhs is MISSING:
            self.out.removed.insert(self.path)
        elif not values_equal(self.lhs, self.rhs):
            self.out.modified.insert(self.path)

    def _child(self, element: PathElement, lhs: Value, rhs: Value, type_ref: TypeRef | None) -> None:
        # A child on one side only (never on neither): the walk would record it and everything
        # below it as added (or removed), which is recorded directly, into the set's node here.
        if lhs is MISSING:
            _record_subtree(self.out.added.node(self.path), element, rhs, type_ref)
        elif rhs is MISSING:
            _record_subtree(self.out.removed.node(self.path), element, lhs, type_ref)
        elif not isinstance(lhs, (dict, list)) and not isinstance(rhs, (dict, list)):
            # Two scalars: whatever the type says (a scalar, or a map or list they are not),
            # the walk is one leaf.
            if not values_equal(lhs, rhs):
                self.out.modified.insert((*self.path, element))
        elif not _same_json(lhs, rhs):  # the walk would find nothing below equal values
            _CompareWalker(self.out, (*self.path, element), lhs, rhs, type_ref).compare()

    def _map(self, type_: MapType) -> None:
        lhs = self.lhs if isinstance(self.lhs, dict) else None
        rhs = self.rhs if isinstance(self.rhs, dict) else None
        if type_.atomic or (not lhs and not rhs):
            self._leaf()
            return
        for key in _zip_keys(lhs or {}, rhs or {}):
            self._child(PathElement.field(key), (lhs or {}).get(key, MISSING), (rhs or {}).get(key, MISSING),
                        type_.field_type(key))

    def _list(self, type_: ListType) -> None:
        lhs = self.lhs if isinstance(self.lhs, list) else None
        rhs = self.rhs if isinstance(self.rhs, list) else None
        if type_.atomic or (not lhs and not rhs):
            self._leaf()
            return
        lhs_items, rhs_items = _group_by_key(type_, lhs or []), _group_by_key(type_, rhs or [])
        for key in [*lhs_items, *(key for key in rhs_items if key not in lhs_items)]:
            left, right = lhs_items.get(key, []), rhs_items.get(key, [])
            if len(left) <= 1 and len(right) <= 1:
                self._child(key, left[0] if left else MISSING, right[0] if right else MISSING, type_.element)
            elif len(left) >= 2 and len(right) >= 2:
                if len(left) != len(right) or not all(map(values_equal, left, right)):
                    self.out.modified.insert((*self.path, key))
            elif len(left) >= 2:
                if right:
                    self._child(key, MISSING, right[0], type_.element)
                self.out.removed.insert((*self.path, key))
            else:
                if left:
                    self._child(key, left[0], MISSING, type_.element)
                self.out.added.insert((*self.path, key))


def _same_json(lhs: Value, rhs: Value) -> bool:
    """Whether two maps or lists are the same JSON, so that comparing them finds nothing (in a
    compare, equal values add, remove and change no field). Python's ``==`` tells fast when
    they differ; when it says equal, their encodings (keys sorted: the stored object and a
    decoded body order defaulted fields differently) confirm it, ``==`` taking ``True`` for
    ``1`` where ``values_equal`` does not."""
    if type(lhs) is not type(rhs) or not isinstance(lhs, (dict, list)) or lhs != rhs:
        return False
    try:
        return orjson.dumps(lhs, option=orjson.OPT_SORT_KEYS) == orjson.dumps(rhs, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson.JSONEncodeError: an integer past 64 bits; the walk decides
        return False


def _record_subtree(parent: FieldSet, element: PathElement, value: Value, type_ref: TypeRef | None) -> None:
    """Record what ``compare`` finds for ``value`` at ``element`` under ``parent``'s path when
    the other side has nothing there: the path, and each path the walk visits below it (map
    fields of a granular map, items of an associative list by key, an item whose key repeats
    as a whole, an item without a key not at all). Compare records a path once and never
    inserts below it: ``parent`` has no child at ``element`` yet, and the child put there is
    never changed (it may be ``_SUBTREES``')."""
    parent.members.add(element)
    if (isinstance(value, dict) or isinstance(value, list)) and value:
        node = _subtree(value, type_ref)
        if node is not None:
            parent.children[element] = node


#: The paths below a value that ``_record_subtree`` records, by the value's type and JSON.
#: Objects written over and over repeat their subtrees (the pods of one template share their
#: containers and volumes; a load test writes one pod shape), and a set is never changed once
#: built, so one set, its FieldsV1 computed once, serves them all. Only compare's own subtrees
#: (a spec's fields, a metadata's labels) are kept, not those below them: a value seen for the
#: first time costs one encoding more, not one per level. The key holds the type itself, which
#: lives while kept (its id cannot name another type); values whose JSON passes
#: ``PART_MAX_BYTES`` are not kept.
_SUBTREES: Repeated[tuple[TypeRef | None, bytes], FieldSet | None] = Repeated(1024)


def _subtree(value: Value, type_ref: TypeRef | None) -> FieldSet | None:
    """The set recorded below a map or list, shared through ``_SUBTREES`` (None: nothing)."""
    return _kept(_SUBTREES, _walk_subtree, value, type_ref)


def _kept(kept: Repeated[tuple[TypeRef | None, bytes], T], walk: Callable[[Value, TypeRef | None], T],
          value: Value, type_ref: TypeRef | None) -> T:
    """``walk(value, type_ref)``, answered from ``kept`` by the type and the value's JSON (for
    values of at most ``PART_MAX_BYTES``): the answer must be a function of them and never
    changed by its callers."""
    encoded = json_key(value)
    if encoded is None:
        return walk(value, type_ref)
    return kept.answer((type_ref, encoded), lambda: walk(value, type_ref))


def _record_walked(parent: FieldSet, element: PathElement, value: Value, type_ref: TypeRef | None) -> None:
    """``_record_subtree`` below compare's own subtrees, where nothing is shared."""
    parent.members.add(element)
    node = _walk_subtree(value, type_ref)
    if node is not None:
        parent.children[element] = node


def _walk_subtree(value: Value, type_ref: TypeRef | None) -> FieldSet | None:
    """The set recorded below ``value``: None for a scalar, an atomic or empty value, or a list
    of items without keys (no set is empty)."""
    if not value or not (isinstance(value, dict) or isinstance(value, list)):
        return None
    atom = _deduce(_resolve(type_ref), value)
    if atom.map is not None:
        if atom.map.atomic or not isinstance(value, dict):
            return None
        node = FieldSet()
        for key, item in value.items():
            _record_walked(node, PathElement.field(key), item, atom.map.field_type(key))
        return node
    if atom.scalar is None and atom.list is not None:
        if atom.list.atomic or not isinstance(value, list):
            return None
        grouped = _group_by_key(atom.list, value)
        if not grouped:
            return None
        node = FieldSet()
        for key, items in grouped.items():
            if len(items) == 1:
                _record_walked(node, key, items[0], atom.list.element)
            else:
                node.members.add(key)
        return node
    return None


def _zip_keys(lhs: Mapping[str, Value], rhs: Mapping[str, Value]) -> list[str]:
    """The keys of both maps, the left's first (upstream's unordered zip; order only shapes
    the merged output)."""
    return [*lhs, *(key for key in rhs if key not in lhs)]


def _group_by_key(type_: ListType, items: list[Value]) -> dict[PathElement, list[Value]]:
    grouped: dict[PathElement, list[Value]] = {}
    for item in items:
        if (key := _try_item_key(type_, item)) is not None:
            grouped.setdefault(key, []).append(item)
    return grouped


# --- 2e. merge (typed/merge.go, rule ruleKeepRHS) ----------------------------------------------


def merge(lhs: Value, rhs: Value, type_ref: TypeRef | None) -> Value:
    """``TypedValue.Merge``: ``rhs`` over ``lhs``, granular maps and associative lists merged
    item by item (order: ``rhs``'s, with ``lhs``-only items kept in place), anything atomic
    replaced. Returns ``MISSING`` when both are. The result shares what only ``lhs`` has."""
    if rhs is MISSING:
        # The walk would rebuild lhs as it is (an empty map or list too): a live object's fields
        # the configuration does not name are most of it. The result shares them with lhs.
        return lhs
    # Upstream also walks lhs's atom when it differs from rhs's, but discards that output.
    chosen = _deduce(_resolve(type_ref), rhs)
    if chosen.map is not None:
        return _merge_map(lhs, rhs, chosen.map)
    if chosen.scalar is None and chosen.list is not None:
        return _merge_list(lhs, rhs, chosen.list)
    return rhs  # a scalar or atomic value: rhs's (ruleKeepRHS)


def _merge_map(lhs: Value, rhs: Value, type_: MapType) -> Value:
    left = lhs if isinstance(lhs, dict) else None
    right = rhs if isinstance(rhs, dict) else None
    if type_.atomic or (not left and not right):
        return rhs  # atomic, or nothing to merge: rhs wins (merge answers a missing rhs itself)
    out = {}
    for key in _zip_keys(left or {}, right or {}):
        merged = merge((left or {}).get(key, MISSING), (right or {}).get(key, MISSING), type_.field_type(key))
        if merged is not MISSING:
            out[key] = merged
    return out if out else MISSING


def _index_items(type_: ListType, items: list[Value]) -> tuple[list[PathElement], dict[PathElement, Value]]:
    """``indexListPathElements`` (duplicates allowed on the live side: a duplicated key's value
    becomes null)."""
    keys: list[PathElement] = []
    observed: dict[PathElement, Value] = {}
    for item in items:
        key = _item_key(type_, item)
        observed[key] = None if key in observed else item
        keys.append(key)
    return keys, observed


def _merge_list(lhs: Value, rhs: Value, type_: ListType) -> Value:
    left = lhs if isinstance(lhs, list) else None
    right = rhs if isinstance(rhs, list) else None
    if type_.atomic or (not left and not right):
        return rhs  # atomic, or nothing to merge: rhs wins (merge answers a missing rhs itself)
    rhs_keys, rhs_items = _index_items(type_, right or [])
    lhs_keys, lhs_items = _index_items(type_, left or [])
    shared = [key for key in rhs_keys if key in lhs_items]
    next_shared = shared.pop(0) if shared else None
    merged_rhs: set[PathElement] = set()
    out: list[Value] = []

    def emit(key: PathElement, left_item: Value, right_item: Value) -> None:
        merged = merge(left_item, right_item, type_.element)
        if merged is not MISSING:
            out.append(merged)

    li = ri = 0
    while li < len(lhs_keys) or ri < len(rhs_keys):
        if li < len(lhs_keys) and ri < len(rhs_keys):
            key = lhs_keys[li]
            if key == rhs_keys[ri]:
                merged_rhs.add(key)
                emit(key, lhs_items.get(key, MISSING), rhs_items.get(key, MISSING))
                li, ri = li + 1, ri + 1
                next_shared = shared.pop(0) if shared else None
                continue
            if key in rhs_items and next_shared is not None and next_shared != key:
                li += 1
                continue
        if li < len(lhs_keys):
            key = lhs_keys[li]
            if key not in rhs_items:
                emit(key, (left or [])[li], MISSING)
                li += 1
                continue
            if key in merged_rhs:
                li += 1
        if ri < len(rhs_keys):
            key = rhs_keys[ri]
            merged_rhs.add(key)
            emit(key, lhs_items.get(key, MISSING), rhs_items.get(key, MISSING))
            ri += 1
            if next_shared is not None and next_shared == key:
                next_shared = shared.pop(0) if shared else None
    return out if out else MISSING


# --- 2f. removal (typed/remove.go) and named fields (fieldpath/set.go) -------------------------


def remove_items(value: Value, items: FieldSet, type_ref: TypeRef | None) -> Value:
    """``TypedValue.RemoveItems``. As upstream, a map or list left empty (or found empty)
    becomes null, and a value that is not what its type says becomes null too."""
    atom = _deduce(_resolve(type_ref), value)
    if atom.map is not None:
        return _remove_from_map(value, items, atom.map)
    if atom.scalar is not None:
        return value
    if atom.list is not None:
        return _remove_from_list(value, items, atom.list)
    return None


def _remove_from_map(value: Value, items: FieldSet, type_: MapType) -> Value:
    if not isinstance(value, dict) or not value:
        return None
    if type_.atomic:
        return None
    out = {}
    for key, item in value.items():
        element = PathElement.field(key)
        if items.has((element,)):
            continue
        subset = items.with_prefix(element)
        out[key] = item if subset.empty else remove_items(item, subset, type_.field_type(key))
    return out or None


def _remove_from_list(value: Value, items: FieldSet, type_: ListType) -> Value:
    if not isinstance(value, list) or not value:
        return None
    if type_.atomic:
        return None
    out = []
    for item in value:
        key = _try_item_key(type_, item)
        if key is not None and items.has((key,)):
            continue
        subset = items.with_prefix(key) if key is not None else FieldSet()
        out.append(item if subset.empty else remove_items(item, subset, type_.element))
    return out or None


def ensure_named_fields_are_members(fields: FieldSet, type_ref: TypeRef | None) -> FieldSet:
    """``Set.EnsureNamedFieldsAreMembers``: a declared struct field that only has children
    becomes a member too, so removing the set removes the field itself. Answered once per set
    and type (``FieldSet.derived``): an apply asks it of five sets, all sharing the subsets of
    the object's unchanged parts."""
    derived = fields.derived
    if derived is not None and derived[0] is type_ref:
        return derived[1]
    atom = _resolve(type_ref)
    members = set(fields.members)
    children = {}
    for element, child in fields.children.items():
        child_type: TypeRef | None = None
        if element.field_name is not None and atom.map is not None:
            if atom.map.fields(element.field_name) is not None:
                members.add(element)
            child_type = atom.map.field_type(element.field_name)
        elif element.is_key and atom.list is not None:
            child_type = atom.list.element
        children[element] = ensure_named_fields_are_members(child, child_type)
    out = FieldSet(members, children)
    fields.derived = (type_ref, out)
    return out


# --- 2g. the updater (merge/update.go) ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Conflict:
    """``merge.Conflict``: a field another manager owns with a different value."""

    manager: str
    path: Path


class Conflicts(Exception):
    """``merge.Conflicts``, managers in identifier order (upstream iterates a Go map)."""

    def __init__(self, conflicts: list[Conflict]) -> None:
        super().__init__()
        self.conflicts = conflicts


def _shrink_others(live: Value, new: Value, type_ref: TypeRef, managers: dict[str, VersionedSet],
                   writer: str, *, force: bool, ignored: FieldSet | None = None) -> Comparison:
    """``Updater.update``: fields ``new`` changed are taken from every other manager (a
    conflict unless ``force``) and fields it removed are dropped from them; empty managers go.
    Changes to ``ignored`` fields (and below them) count for nobody (``IgnoreFilter``)."""
    comparison = compare(live, new, type_ref)
    if ignored is not None:
        comparison = Comparison(comparison.removed.recursive_difference(ignored),
                                comparison.modified.recursive_difference(ignored),
                                comparison.added.recursive_difference(ignored))
    changed = comparison.modified.union(comparison.added)
    conflicts: dict[str, FieldSet] = {}
    for manager, versioned in managers.items():
        if manager != writer and not (taken := versioned.set.intersection(changed)).empty:
            conflicts[manager] = taken
    if conflicts and not force:
        raise Conflicts([Conflict(manager, path) for manager in sorted(conflicts)
                         for path in conflicts[manager].iterate()])
    for manager, versioned in list(managers.items()):
        kept = versioned.set if manager == writer else (
            versioned.set.difference(conflicts.get(manager, FieldSet())).difference(comparison.removed))
        if kept.empty:  # the writer's own set too, as upstream
            del managers[manager]
        elif kept is not versioned.set:
            managers[manager] = VersionedSet(kept, versioned.api_version, versioned.applied)
    return comparison


def updater_update(live: Value, new: Value, type_ref: TypeRef, api_version: str,
                   managers: dict[str, VersionedSet], manager: str, ignored: FieldSet | None = None,
                   ) -> dict[str, VersionedSet]:
    """``Updater.Update``: ``manager`` owns what it changed on top of what it owned (less what
    it removed); everyone else loses those fields. ``ignored``: the endpoint's reset fields."""
    managers = dict(managers)
    comparison = _shrink_others(live, new, type_ref, managers, manager, force=True, ignored=ignored)
    previous = managers[manager].set if manager in managers else FieldSet()
    owned = previous.difference(comparison.removed).union(comparison.modified).union(comparison.added)
    if ignored is not None:
        owned = owned.recursive_difference(ignored)
    if owned.empty:
        managers.pop(manager, None)
    else:
        managers[manager] = VersionedSet(owned, api_version, False)
    return managers


def updater_apply(live: Value, config: Value, type_ref: TypeRef, api_version: str,
                  managers: dict[str, VersionedSet], manager: str, *, force: bool, ignored: FieldSet | None = None,
                  ) -> tuple[Value, dict[str, VersionedSet]]:
    """``Updater.Apply``: the merged object (``MISSING`` when it equals ``live``) and the new
    managers; raises ``Conflicts``. ``ignored``: the endpoint's reset fields."""
    managers = dict(managers)
    merged = merge(live, config, type_ref)
    last_applied = managers.get(manager)
    applied = to_field_set(config, type_ref)
    if ignored is not None:
        applied = applied.recursive_difference(ignored)
    managers[manager] = VersionedSet(applied, api_version, True)
    merged = _prune(merged, type_ref, managers, last_applied)
    _shrink_others(live, merged, type_ref, managers, manager, force=force, ignored=ignored)
    return (MISSING if values_equal(live, merged) else merged), managers


def _prune(merged: Value, type_ref: TypeRef, managers: Mapping[str, VersionedSet],
           last_applied: VersionedSet | None) -> Value:
    """``Updater.prune``: removes what the applier applied last time and no longer does,
    except fields another manager owns (``addBackOwnedItems``) and fields that were in the
    object without being in the last applied set (``addBackDanglingItems``)."""
    if last_applied is None or last_applied.set.empty:
        return merged

    def named(fields: FieldSet) -> FieldSet:
        return ensure_named_fields_are_members(fields, type_ref)

    pruned = remove_items(merged, named(last_applied.set), type_ref)
    owned = FieldSet()
    for versioned in managers.values():
        owned = owned.union(versioned.set)
    merged_fields = named(to_field_set(merged, type_ref))
    pruned = remove_items(merged, merged_fields.difference(
        named(to_field_set(pruned, type_ref)).union(named(owned))), type_ref)
    dangling = merged_fields.difference(named(to_field_set(pruned, type_ref))).intersection(named(last_applied.set))
    return remove_items(merged, dangling, type_ref)


# --- 3. the field manager (managedfields/internal) ---------------------------------------------

LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
MAX_UPDATE_MANAGERS = 10  # DefaultMaxUpdateManagers
_ANNOTATIONS_MAX_BYTES = 256 * 1024  # apimachinery validation.TotalAnnotationSizeLimitB
_CURRENT_OPERATION = "current-operation"
_BEFORE_FIRST_APPLY = "before-first-apply"
_ANCIENT_CHANGES = "ancient-changes"
_KUBECTL = "kubectl"

#: ``stripMetaManager``'s set: nobody owns these, whatever they send.
_STRIPPED = FieldSet.of(*(tuple(PathElement.field(part) for part in path) for path in (
    ("apiVersion",), ("kind",), ("metadata",), ("metadata", "name"), ("metadata", "namespace"),
    ("metadata", "creationTimestamp"), ("metadata", "selfLink"), ("metadata", "uid"),
    ("metadata", "clusterName"), ("metadata", "generation"), ("metadata", "managedFields"),
    ("metadata", "resourceVersion"))))


def _group_version_kind(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    """``Unstructured.GroupVersionKind``: an apiVersion with more than one slash parses to
    nothing."""
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    api_version = api_version if isinstance(api_version, str) else ""
    parts = api_version.split("/") if api_version else []
    if len(parts) > 2:
        return "", "", ""
    group, version = (parts[0], parts[1]) if len(parts) == 2 else ("", api_version)
    return group, version, kind if isinstance(kind, str) else ""


def _gvk_string(group: str, version: str, kind: str) -> str:
    """``GroupVersionKind.String``: ``apps/v1, Kind=Deployment``, ``/v1, Kind=Pod``."""
    return f"{group}/{version}, Kind={kind}"


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _managed_fields_of(obj: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """``Unstructured.GetManagedFields``: ``None`` unless a list of objects."""
    entries = _metadata(obj).get("managedFields")
    if not isinstance(entries, list) or not all(isinstance(entry, Mapping) for entry in entries):
        return None
    return entries


def _set_managed_fields(obj: dict[str, Any], entries: list[dict[str, Any]] | None) -> None:
    """``SetManagedFields``: ``None`` removes the field."""
    meta = obj.get("metadata")
    if entries is None:
        if isinstance(meta, dict):
            meta.pop("managedFields", None)
        return
    if not isinstance(meta, dict):
        meta = obj["metadata"] = {}
    meta["managedFields"] = entries


def _without_managed_fields(obj: Mapping[str, Any]) -> dict[str, Any]:
    out = json_copy(dict(obj))
    _set_managed_fields(out, None)
    return out


def _object_name(obj: Mapping[str, Any]) -> str:
    meta = _metadata(obj)
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}; {_gvk_string(*_group_version_kind(obj))}"


class _UpdateFailed(Exception):
    """An error ``FieldManager.Update`` returns, which ``UpdateNoErrors`` swallows."""


def _conflict_manager(identifier: str) -> str:
    """``printManager``: ``"kubectl"``, ``"x" with subresource "status"``, and for updaters
    `` using <apiVersion>`` (the identifier carries no time, so no `` at <time>``)."""
    entry = parse_manager_identifier(identifier)
    text = go_quote(entry.get("manager", ""))
    if entry.get("subresource"):
        text += f" with subresource {go_quote(entry['subresource'])}"
    if entry.get("operation") == UPDATE:
        text += f" using {entry.get('apiVersion', '')}"
    return text


def conflict_error(conflicts: list[Conflict]) -> StatusError:
    """``NewConflictError``: 409 with one ``FieldManagerConflict`` cause per field and the
    message ``getConflictMessage`` builds (one conflict inline, several grouped by manager)."""
    causes = [Cause(reason="FieldManagerConflict", message=f"conflict with {_conflict_manager(c.manager)}",
                    field=path_string(c.path)) for c in conflicts]
    if len(conflicts) == 1:
        only = conflicts[0]
        message = f"Apply failed with 1 conflict: conflict with {_conflict_manager(only.manager)}: {path_string(only.path)}"
    else:
        lines = []
        for manager in sorted({c.manager for c in conflicts}):
            lines.append(f"conflicts with {_conflict_manager(manager)}:")
            lines.extend(f"- {path_string(c.path)}" for c in conflicts if c.manager == manager)
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return status.apply_conflict(causes, message)


class FieldManager:
    """kube's ``FieldManager`` for one endpoint: a kind at one apiVersion, optionally a
    subresource (``NewDefaultFieldManager``/``NewDefaultCRDFieldManager``).

    ``schema`` is the kind's (``kind_schema`` for built-ins, the CRD version's schema for custom
    resources) or ``None`` for a custom resource without a structural schema, whose fields kube
    tracks with ``NewDeducedTypeConverter``. ``now`` arguments are RFC 3339 timestamps."""

    def __init__(self, api_version: str, kind: str, schema: Schema | None, *, subresource: str = "",
                 reset_fields: Sequence[tuple[str, ...]] = (), new_object: Mapping[str, Any] | None = None,
                 typed_input: bool = False) -> None:
        self.api_version = api_version
        self.kind = kind
        self.subresource = subresource
        self.type_ref = object_type(schema)
        #: Objects arrive decoded into the kind's Go type (built-in kinds: ``gostruct``), so they
        #: conform to its schema: kube's typed conversion cannot fail on them, and an update
        #: skips checking it again.
        self._typed_input = typed_input
        #: The strategy's reset fields: owned by nobody through this endpoint (``IgnoreFilter``).
        self._ignored = FieldSet.of(*(tuple(map(PathElement.field, path)) for path in reset_fields)) \
            if reset_fields else None
        #: ``objectCreater.New(kind)`` as the field manager sees it: for a built-in kind the zero
        #: value of its Go type (``new_object``: non-pointer structs present); an unstructured
        #: object with only its type for a custom resource.
        self._empty = new_object if new_object is not None else {"apiVersion": api_version, "kind": kind}
        #: What a create's fields come to (``_first_fields``), by the new object's ``_shape``.
        self._created: Repeated[tuple[Any, ...], dict[str, VersionedSet]] = Repeated(256)

    # public operations ---------------------------------------------------------------------

    def update(self, live: Mapping[str, Any] | None, new: Mapping[str, Any], manager: str, *, now: str) -> dict[str, Any]:
        """A create (``live`` None), PUT or non-apply PATCH by ``manager``: ``new`` with
        managedFields recomputed (``FieldManager.UpdateNoErrors``: should tracking fail, e.g.
        on a value its schema rejects, the result has no managedFields, as upstream)."""
        live_obj = self._live_or_empty(live)
        # Only metadata.managedFields changes: a copy of the top and of metadata is enough.
        result = dict(new)
        if isinstance(result.get("metadata"), dict):
            result["metadata"] = dict(result["metadata"])
        managed = self._decode_live_or_new(live_obj, result)
        _set_managed_fields(result, None)
        try:
            managed = self._skip_non_applied_update(live_obj, result, managed, manager, now)
        except _UpdateFailed:
            return result
        _set_managed_fields(result, encode_managed_fields(managed))
        return result

    def apply(self, live: Mapping[str, Any] | None, applied: Mapping[str, Any], manager: str, *,
              force: bool, now: str) -> dict[str, Any]:
        """An ``application/apply-patch+yaml`` PATCH by ``manager`` (``live`` None creates):
        the merged object with managedFields. Raises ``StatusError``: 409 for conflicts (unless
        ``force``), 400 for a wrong apiVersion/kind or a body with managedFields, 500 for values
        the schema rejects (upstream's error text)."""
        live_obj = self._live_or_empty(live)
        try:
            managed = decode_managed_fields(_managed_fields_of(live_obj))
        except ManagedFieldsError as err:
            raise status.unclassified_error(f"failed to decode managed fields: {err}") from err
        gvk = _group_version_kind(applied)
        if gvk != (*self._group_version(), self.kind):
            raise status.bad_request(f"invalid object type: {_gvk_string(*gvk)}")
        try:
            obj, managed = self._apply_last_applied(live_obj, applied, managed, manager, force, now)
        except Conflicts as conflicts:
            raise conflict_error(conflicts.conflicts) from None
        _set_managed_fields(obj, encode_managed_fields(managed))
        return obj

    # chain pieces, outermost first -----------------------------------------------------------

    def _group_version(self) -> tuple[str, str]:
        group, _, version = self.api_version.rpartition("/")
        return group, version

    def _live_or_empty(self, live: Mapping[str, Any] | None) -> Mapping[str, Any]:
        """The live object, or for a create what ``objectCreater.New(kind)`` gives."""
        return live if live is not None else self._empty

    def _decode_live_or_new(self, live: Mapping[str, Any], new: Mapping[str, Any]) -> Managed:
        """``decodeLiveOrNew``: managedFields the client sent win (``[]`` resets them), unless
        absent, empty or undecodable; a subresource write always starts from the live ones."""
        sent = _managed_fields_of(new)
        if not self.subresource:
            if is_reset(sent):
                return Managed()
            try:
                managed = decode_managed_fields(sent)
                if managed.fields:
                    return managed
            except ManagedFieldsError:
                pass
        try:
            return decode_managed_fields(_managed_fields_of(live))
        except ManagedFieldsError:
            return Managed()

    def _apply_last_applied(self, live: Mapping[str, Any], applied: Mapping[str, Any], managed: Managed,
                            manager: str, force: bool, now: str) -> tuple[dict[str, Any], Managed]:
        """``lastAppliedManager`` + ``lastAppliedUpdater``: for manager ``kubectl``, conflicts
        with fields still as the client-side last-applied annotation says are forced, and an
        existing annotation is rewritten to the applied configuration."""
        try:
            obj, managed = self._skip_non_applied_apply(live, applied, managed, manager, force, now)
        except Conflicts as conflicts:
            if manager != _KUBECTL:
                raise
            allowed = self._allowed_conflicts(live)
            if allowed is None:
                raise
            remaining = [c for c in conflicts.conflicts if not allowed.has(c.path)]
            if remaining:
                raise Conflicts(remaining) from None
            obj, managed = self._skip_non_applied_apply(live, applied, managed, manager, True, now)
        if manager == _KUBECTL and _metadata(obj).get("annotations", {}).get(LAST_APPLIED_ANNOTATION):
            _set_last_applied(obj, _build_last_applied(applied))
        return obj, managed

    def _allowed_conflicts(self, live: Mapping[str, Any]) -> FieldSet | None:
        """``allowedConflictsFromLastApplied``: fields of the last-applied annotation whose live
        value still matches it; ``None`` when there is no usable annotation."""
        annotations = _metadata(live).get("annotations")
        last_applied = annotations.get(LAST_APPLIED_ANNOTATION) if isinstance(annotations, Mapping) else None
        if not last_applied:
            return None
        try:
            last = json.loads(last_applied)
            # Unstructured's JSON decoding wants a kind; the version must be the live object's.
            if not isinstance(last, dict) or not last.get("kind") or last.get("apiVersion") != self.api_version:
                return None
            validate(live, self.type_ref, allow_duplicates=False)
            validate(last, self.type_ref, allow_duplicates=False)
        except (ValueError, ValidationError):
            return None
        comparison = compare(last, live, self.type_ref)
        return (to_field_set(last, self.type_ref).difference(comparison.modified)
                .difference(comparison.added).difference(comparison.removed))

    def _skip_non_applied_update(self, live: Mapping[str, Any], new: Mapping[str, Any], managed: Managed,
                                 manager: str, now: str) -> Managed:
        """``skipNonAppliedManager.Update``: an existing object nobody tracks yet stays untracked
        (only creates start tracking)."""
        if not managed.fields and _metadata(live).get("uid"):
            return managed
        return self._capped_update(live, new, managed, manager, now)

    def _skip_non_applied_apply(self, live: Mapping[str, Any], applied: Mapping[str, Any], managed: Managed,
                                manager: str, force: bool, now: str) -> tuple[dict[str, Any], Managed]:
        """``skipNonAppliedManager.Apply``: before the first apply to an untracked object, its
        fields are given to an Update manager ``before-first-apply``."""
        if not managed.fields:
            try:
                managed = self._capped_update(self._live_or_empty(None), live, managed, _BEFORE_FIRST_APPLY, now)
            except _UpdateFailed as err:
                raise status.unclassified_error(f"failed to create manager for existing fields: {err}") from err
        return self._structured_apply(live, applied, managed, manager, force, now)

    def _capped_update(self, live: Mapping[str, Any], new: Mapping[str, Any], managed: Managed,
                       manager: str, now: str) -> Managed:
        """``capManagersManager.Update`` around ``buildManagerInfo`` and
        ``managedFieldsUpdater``: the update is recorded under a temporary identity, folded into
        the manager's entry stamped ``now``, then Update entries are capped."""
        identifier = manager_identifier(manager or "unknown", UPDATE, self.api_version, self.subresource)
        managed = Managed(dict(managed.fields), dict(managed.times))
        if managed.fields or live is not self._empty:
            fields = _strip_meta(self._structured_update(live, new, managed.fields), _CURRENT_OPERATION)
        else:
            fields = dict(self._first_fields(new))
        if (current := fields.pop(_CURRENT_OPERATION, None)) is not None:
            previous = fields.get(identifier)
            owned = current.set.union(previous.set) if previous else current.set
            fields[identifier] = VersionedSet(owned, current.api_version, current.applied)
            managed.times[identifier] = canonical_time(now)
        managed.fields = fields
        return _cap_update_managers(managed)

    def _first_fields(self, new: Mapping[str, Any]) -> dict[str, VersionedSet]:
        """``_structured_update`` and ``_strip_meta`` of a create with no managers yet (or the
        first apply's ``before-first-apply``): the fields of ``new`` against the empty object,
        kept by ``new``'s shape (the pods of one template, and a load test's, share theirs).
        Never changed by the caller."""
        def first() -> dict[str, VersionedSet]:
            return _strip_meta(self._structured_update(self._empty, new, {}), _CURRENT_OPERATION)
        shape = _shape(new) if self._typed_input and not _metadata(self._empty) else None
        return first() if shape is None else self._created.answer(shape, first)

    def _structured_update(self, live: Mapping[str, Any], new: Mapping[str, Any],
                           fields: dict[str, VersionedSet]) -> dict[str, VersionedSet]:
        """``structuredMergeManager.Update``."""
        for obj, role in () if self._typed_input else ((new, "new"), (live, "live")):
            try:
                validate(obj, self.type_ref, allow_duplicates=True)
            except ValidationError as err:
                raise _UpdateFailed(f"failed to convert {role} object ({_object_name(obj)}) to smd typed: {err}") from err
        return updater_update(live, new, self.type_ref, self.api_version, fields, _CURRENT_OPERATION,
                              self._ignored)

    def _structured_apply(self, live: Mapping[str, Any], applied: Mapping[str, Any], managed: Managed,
                          manager: str, force: bool, now: str) -> tuple[dict[str, Any], Managed]:
        """``structuredMergeManager.Apply`` inside ``stripMetaManager`` and
        ``managedFieldsUpdater``: the applier's entry is stamped ``now`` unless nothing changed."""
        identifier = manager_identifier(manager, "Apply", self.api_version, self.subresource)
        if _managed_fields_of(applied) is not None:
            raise status.bad_request("metadata.managedFields must be nil")
        # The live object of a typed kind was decoded into its Go type: it conforms (as in update).
        checked = ((applied, "patch", False),) if self._typed_input else ((applied, "patch", False), (live, "live", True))
        for obj, role, duplicates in checked:
            try:
                validate(obj, self.type_ref, allow_duplicates=duplicates)
            except ValidationError as err:
                raise status.unclassified_error(
                    f"failed to create typed {role} object ({_object_name(obj)}): {err}") from err
        merged, fields = updater_apply(live, applied, self.type_ref, self.api_version, managed.fields,
                                       identifier, force=force, ignored=self._ignored)
        managed = Managed(_strip_meta(fields, identifier), dict(managed.times))
        if merged is MISSING:
            return _without_managed_fields(live), managed
        managed.times[identifier] = canonical_time(now)
        return merged, managed


#: Metadata maps whose values are strings, each a leaf the field set names by its key alone.
_STRING_MAPS = ("labels", "annotations")


def _shape(obj: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """What the fields of a typed object against its kind's empty one depend on (None: too
    large to key): its JSON, but for its metadata only which fields it has, with the keys of
    its labels and annotations and the JSON of its other maps and lists. Compare finds each
    metadata field added, its value unseen (the empty object's metadata is empty, as
    ``_first_fields`` checks): an object's own name, uid and label values leave the set as
    it is. Scalars keep their type (``1``, ``1.0`` and ``True`` hash alike)."""
    out: list[Any] = []
    for key, value in obj.items():
        if key == "metadata" and type(value) is dict:
            meta: list[Any] = []
            for field_name, item in value.items():
                if isinstance(item, (dict, list)):
                    if field_name in _STRING_MAPS and type(item) is dict:
                        meta.append((field_name, tuple(item)))
                    elif (encoded := json_key(item)) is not None:
                        meta.append((field_name, encoded))
                    else:
                        return None
                else:
                    meta.append(field_name)
            out.append((key, tuple(meta)))
        elif isinstance(value, (dict, list)):
            if (encoded := json_key(value)) is None:
                return None
            out.append((key, encoded))
        else:
            out.append((key, type(value), value))
    return tuple(out)


def _strip_meta(fields: dict[str, VersionedSet], manager: str) -> dict[str, VersionedSet]:
    """``stripMetaManager.stripFields``: the manager's set without object identity fields."""
    if manager not in fields:
        return fields
    versioned = fields[manager]
    rest = versioned.set.difference(_STRIPPED)
    out = dict(fields)
    if rest.empty:
        del out[manager]
    else:
        out[manager] = VersionedSet(rest, versioned.api_version, versioned.applied)
    return out


def _cap_update_managers(managed: Managed) -> Managed:
    """``capManagersManager.capUpdateManagers``: beyond 10 Update entries, the oldest are
    merged, per apiVersion, into an ``ancient-changes`` entry (which takes the first folded
    manager's place and the latest folded time)."""
    updaters = [m for m, versioned in managed.fields.items() if not versioned.applied]
    if len(updaters) <= MAX_UPDATE_MANAGERS:
        return managed

    def age(manager: str) -> tuple[int, str]:
        time = managed.times.get(manager)
        return (int(parse_time(time).timestamp()) if time else 0, manager)

    updaters.sort(key=age)
    first_by_version: dict[str, str] = {}
    remaining = len(updaters)
    for manager in updaters:
        if remaining <= MAX_UPDATE_MANAGERS:
            break
        versioned = managed.fields[manager]
        bucket = manager_identifier(_ANCIENT_CHANGES, UPDATE, versioned.api_version, "")
        if versioned.api_version not in first_by_version:
            first_by_version[versioned.api_version] = manager
            continue
        if bucket not in managed.fields:
            managed.fields[bucket] = managed.fields.pop(first_by_version[versioned.api_version])
        managed.fields[bucket] = VersionedSet(versioned.set.union(managed.fields[bucket].set),
                                              versioned.api_version, versioned.applied)
        del managed.fields[manager]
        remaining -= 1
        managed.times[bucket] = managed.times.get(manager)
    return managed


def _build_last_applied(applied: Mapping[str, Any]) -> str:
    """``buildLastApplied``: the applied object without the annotation, as
    ``unstructured.UnstructuredJSONScheme`` encodes it (a ``json.Encoder``: trailing newline)."""
    obj = json_copy(dict(applied))
    meta = obj.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        meta["annotations"].pop(LAST_APPLIED_ANNOTATION, None)
    return go_json(obj) + "\n"


def _set_last_applied(obj: dict[str, Any], value: str) -> None:
    """``SetLastApplied``: dropped instead when annotations would exceed their size limit."""
    annotations = obj["metadata"]["annotations"]
    annotations[LAST_APPLIED_ANNOTATION] = value
    if sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items()) > _ANNOTATIONS_MAX_BYTES:
        del annotations[LAST_APPLIED_ANNOTATION]


# --- request checks the handlers make before the field manager ---------------------------------


def check_name(obj: Mapping[str, Any], name: str, namespace: str) -> None:
    """``checkName`` (handlers/rest.go), run on the object a create, update or patch produced:
    its name must be the URL's, and a namespace, if set, the request's. Raises a 400."""
    meta = _metadata(obj)
    object_name = meta.get("name") or ""
    if not object_name:
        raise status.bad_request(f"the name of the object ({name} based on URL) was undeterminable: name must be provided")
    if object_name != name:
        raise status.bad_request(f"the name of the object ({object_name}) does not match the name on the URL ({name})")
    object_namespace = meta.get("namespace") or ""
    if namespace and object_namespace and object_namespace != namespace:
        # EnsureObjectNamespaceMatchesRequestNamespace runs first in every handler: its words.
        raise status.bad_request("the namespace of the provided object does not match the namespace sent on the request")
