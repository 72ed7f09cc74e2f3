"""Typed values: a JSON value read through its type (structured-merge-diff v4.4.2 ``typed``).

An associative list item's key (``helpers.go``), validation (``validate.go``) and the field set
of a value (``tofieldset.go``). Comparison is ``typed_compare``'s; merge and removal are
``merge``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from .golang import go_quote, go_sharp_value, go_type
from .jsonvalue import Repeated, json_key
from .fieldpath import FieldSet, Path, PathElement
from .schemaconv import BOOLEAN, NUMERIC, STRING, UNTYPED, ListType, MapType, TypeRef, deduce, resolve
from .value import Value, go_json

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
"""An absent value (Go's nil ``value.Value``), as opposed to an explicit JSON null (None)."""
T = TypeVar("T")


# --- item keys and errors (typed/helpers.go) ---------------------------------------------------


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


def item_key(type_: ListType, item: Value) -> PathElement:
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
    key: list[tuple[str, Value]] = []
    for name in type_.keys:  # a schema names each key field once
        if name in item:
            key.append((name, item[name]))
            continue
        element_map = type_.element.atom().map
        if element_map is None:
            raise ValueError(f"couldn't find default value for {name}: associative list may not have non-map types")
        if (default := element_map.field_default(name)) is None:
            raise ValueError(f"associative list with keys has an element that omits key field {go_quote(name)} "
                             "(and doesn't have default value)")
        key.append((name, default))
    return PathElement.key_of(tuple(key))


def try_item_key(type_: ListType, item: Value) -> PathElement | None:
    try:
        return item_key(type_, item)
    except ValueError:
        return None


def zip_keys(lhs: Mapping[str, Value], rhs: Mapping[str, Value]) -> list[str]:
    """The keys of both maps, the left's first (upstream's unordered zip; order only shapes
    the merged output)."""
    return [*lhs, *(key for key in rhs if key not in lhs)]


# --- validation (typed/validate.go) ------------------------------------------------------------


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
    ``deduce``'s choice made without making an atom)."""
    atom = resolve(type_ref)
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
        atom = resolve(list_type.element)
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
                element = item_key(list_type, item)
            except ValueError:
                return False
            if element in seen and not allow_duplicates:
                return False
            seen.add(element)
        if not _valid(item, list_type.element, allow_duplicates):
            return False
    return True


def _validate(value: Value, type_ref: TypeRef | None, allow_duplicates: bool) -> Iterator[tuple[str, str]]:
    atom = deduce(resolve(type_ref), value)
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
                element = item_key(type_, item)
            except ValueError as err:
                yield "", f"element {index}: {err}"
                return
            if element in seen and not allow_duplicates:
                yield "", f"duplicate entries for key {element}"
            seen.add(element)
        yield from _prefixed(str(element), _validate(item, type_.element, allow_duplicates))


# --- field sets of values (typed/tofieldset.go) ------------------------------------------------


#: The parts ``to_field_set`` walked, by identity (the part itself kept with what it came to, so
#: that its id names no other value while kept).
WalkedParts = dict[int, tuple[Value, tuple[bool, "FieldSet | None"]]]


def to_field_set(value: Value, type_ref: TypeRef | None, walked: WalkedParts | None = None) -> FieldSet:
    """``TypedValue.ToFieldSet``: every leaf, list item and (undeclared, null or empty) map key.
    The parts of an object (its top-level fields' values) come from ``_part_fields``; with
    ``walked``, a part met before (the same value: copies of an object that share its spec,
    walked by one caller) from what it came to then, as sets are never changed once built."""
    out = FieldSet()
    atom = deduce(resolve(type_ref), value)
    if atom.map is None or atom.map.atomic or not isinstance(value, dict):
        _collect(value, type_ref, (), out)
        return out
    for key, item in value.items():
        element = PathElement.field(key)
        if walked is None:
            member, below = _part_fields(item, atom.map.field_type(key))
        elif (seen := walked.get(id(item))) is not None and seen[0] is item:
            member, below = seen[1]
        else:
            member, below = _part_fields(item, atom.map.field_type(key))
            walked[id(item)] = (item, (member, below))
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
    return kept_walk(_PART_FIELDS, _walk_part_fields, value, type_ref)


def _walk_part_fields(value: Value, type_ref: TypeRef | None) -> tuple[bool, FieldSet | None]:
    walked = FieldSet()
    _collect(value, type_ref, (_PART,), walked)
    return _PART in walked.members, walked.children.get(_PART)


def kept_walk(kept: Repeated[tuple[TypeRef | None, bytes], T], walk: Callable[[Value, TypeRef | None], T],
          value: Value, type_ref: TypeRef | None) -> T:
    """``walk(value, type_ref)``, answered from ``kept`` by the type and the value's JSON (for
    values of at most ``PART_MAX_BYTES``): the answer must be a function of them and never
    changed by its callers."""
    encoded = json_key(value)
    if encoded is None:
        return walk(value, type_ref)
    return kept.answer((type_ref, encoded), lambda: walk(value, type_ref))


def _collect(value: Value, type_ref: TypeRef | None, path: Path, out: FieldSet) -> None:
    atom = deduce(resolve(type_ref), value)
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
    keys = [try_item_key(type_, item) for item in items]
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
