"""Field sets and ``metadata.managedFields``, as structured-merge-diff and kube's fieldmanager
keep them.

* Values compare and print like structured-merge-diff v4.4.2's ``value`` package (``Compare``,
  ``Equals``, ``ToString``): numbers before strings before booleans before lists before maps
  before null, ints and floats compared as numbers.
* ``PathElement``/``FieldSet`` mirror ``fieldpath/element.go``, ``path.go`` and ``set.go``: a set
  is a trie of members (the paths it holds) and children (sub-sets under a path element), kept
  in Go's element order so that iteration, ``Path.String()`` and serialisation match.
* ``FieldSet.to_fields``/``from_fields`` are ``fieldpath/serialize.go``'s FieldsV1 format:
  ``f:<field>``, ``k:<json of key fields>`` (associative list item), ``v:<json>`` (set item),
  ``i:<index>``, and ``"."`` for "this node itself is a member" when it also has children.
* ``Managed``, ``decode_managed_fields``, ``encode_managed_fields`` and ``manager_identifier``
  mirror apimachinery v0.32.13 ``pkg/util/managedfields/internal/managedfields.go``: managers are
  keyed by the JSON of their entry without fieldsType, fieldsV1, time (and apiVersion for Apply),
  and entries are written back sorted by operation, time, manager, apiVersion, subresource.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import cmp_to_key, lru_cache
from operator import attrgetter
from typing import Any

import orjson

from .golang import go_quote

Value = Any
"""A JSON value as Python decodes it: dict, list, str, int, float, bool or None."""

# --- values (structured-merge-diff value/value.go, value/fields.go) ---------------------------

#: What Go's encoder escapes that Python's does not, as a ``str.translate`` table.
_HTML_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                               "\u2029": "\\u2029", "\b": "\\u0008", "\f": "\\u000c"})


def _is_number(value: Value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind_rank(value: Value) -> int:
    """``value.Compare``'s order of kinds: numbers, strings, booleans, lists, maps, null."""
    if _is_number(value):
        return 0
    if isinstance(value, str):
        return 1
    if isinstance(value, bool):
        return 2
    if isinstance(value, list):
        return 3
    if isinstance(value, dict):
        return 4
    return 5


def _sign(difference: float) -> int:
    return (difference > 0) - (difference < 0)


def compare_values(lhs: Value, rhs: Value) -> int:
    """``value.Compare``: -1, 0 or 1."""
    lrank, rrank = _kind_rank(lhs), _kind_rank(rhs)
    if lrank != rrank:
        return _sign(lrank - rrank)
    if lrank == 0:  # a float against an int compares as float64, like Go
        if isinstance(lhs, float) or isinstance(rhs, float):
            return _sign(float(lhs) - float(rhs))
        return _sign(lhs - rhs)
    if lrank in (1, 2):
        return (lhs > rhs) - (lhs < rhs)
    if lrank == 3:
        return _compare_lists(lhs, rhs)
    if lrank == 4:
        return _compare_maps(lhs, rhs)
    return 0


def _compare_lists(lhs: list[Value], rhs: list[Value]) -> int:
    for left, right in zip(lhs, rhs):
        if (c := compare_values(left, right)) != 0:
            return c
    return _sign(len(lhs) - len(rhs))


def _compare_maps(lhs: dict[str, Value], rhs: dict[str, Value]) -> int:
    """``value.MapCompare``: zips both maps in key order; the odd length tests are upstream's."""
    if not lhs and not rhs:
        return 0
    for position, key in enumerate(sorted(lhs.keys() | rhs.keys())):
        if position == len(lhs):
            return -1
        if position == len(rhs):
            return 1
        if key not in lhs:
            return 1
        if key not in rhs:
            return -1
        if (c := compare_values(lhs[key], rhs[key])) != 0:
            return c
    return 0


def values_equal(lhs: Value, rhs: Value) -> bool:
    """``value.Equals``: deep equality where an int equals the float of the same value."""
    if _is_number(lhs) or _is_number(rhs):
        return _is_number(lhs) and _is_number(rhs) and lhs == rhs
    if isinstance(lhs, list):
        return isinstance(rhs, list) and len(lhs) == len(rhs) and all(map(values_equal, lhs, rhs))
    if isinstance(lhs, dict):
        return (isinstance(rhs, dict) and lhs.keys() == rhs.keys()
                and all(values_equal(v, rhs[k]) for k, v in lhs.items()))
    return type(lhs) is type(rhs) and lhs == rhs


def _canonical(value: Value) -> Any:
    """A hashable form under which two values are equal exactly when ``values_equal`` says so
    (Python's numbers already hash 1 and 1.0 alike; booleans are tagged apart from them)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, list):
        return ("l", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("m", tuple(sorted((key, _canonical(item)) for key, item in value.items())))
    return ("s", value) if isinstance(value, str) else ("n", value)


def _go_float(number: float, *, for_json: bool) -> str:
    """A float64 as Go writes it: ``encoding/json`` (shortest digits, exponent outside
    [1e-6, 1e21), ``e-07`` cleaned to ``e-7``) or ``%v`` (exponent outside [1e-4, 1e21))."""
    if not math.isfinite(number):
        raise ValueError(f"unsupported value: {number}")
    low = 1e-6 if for_json else 1e-4
    if number == 0 or low <= abs(number) < 1e21:
        return format(Decimal(repr(number)).normalize(), "f")
    mantissa, exponent = repr(number).replace("E", "e").split("e")
    sign, digits = exponent[0], exponent[1:].lstrip("+-")
    if for_json:
        digits = digits.lstrip("0") or "0"
    else:
        digits = digits.zfill(2)
    return f"{mantissa.removesuffix('.0')}e{'-' if sign == '-' else '+'}{digits}"


def go_json(value: Value) -> str:
    """Compact JSON as Go's ``encoding/json`` (and json-iterator's standard-library-compatible
    configuration) writes it: sorted map keys, HTML characters escaped, Go's float format."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{go_json(key)}:{go_json(value[key])}" for key in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(go_json(item) for item in value) + "]"
    if isinstance(value, float):
        return _go_float(value, for_json=True)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).translate(_HTML_ESCAPES)
    return json.dumps(value)


def value_to_string(value: Value) -> str:
    """``value.ToString``, used in path strings: strings quoted with ``%q``, maps as ``k=v``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value, for_json=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, list):
        return "[" + ",".join(value_to_string(item) for item in value) + "]"
    return "".join(f"{key}={value_to_string(item)}" for key, item in value.items())


# --- path elements and paths (fieldpath/element.go, path.go, serialize-pe.go) ------------------

_FIELD, _KEY, _VALUE, _INDEX = range(4)  # Go's PathElement.Compare order of kinds


class PathElement:
    """One step of a path: a field name, an associative-list key (its key fields sorted by
    name), a set item's value, or a list index. Equality and hashing follow ``Equals``;
    ``<`` follows ``Compare``. Elements are never changed: a field's is shared by every path
    through that field name (``field``), and its hash and serialization are computed once."""

    __slots__ = ("kind", "payload", "_identity", "_hash", "_serialized", "sort_key")

    def __init__(self, kind: int, payload: Any) -> None:
        self.kind = kind
        self.payload = payload
        if kind == _KEY:
            self._identity = (kind, tuple((name, _canonical(item)) for name, item in payload))
        elif kind == _VALUE:
            self._identity = (kind, _canonical(payload))
        else:
            self._identity = (kind, payload)
        self._hash = hash(self._identity)
        self._serialized: str | None = None
        #: Sorts elements in ``compare``'s order: fields and indexes by their payload directly (a
        #: field's string order is Go's byte order, as UTF-8 keeps code point order), keys and
        #: values through ``compare``. The key holds the kind and payload, not the element: an
        #: element referring to itself would be a cycle, left for the collector on every write.
        self.sort_key = (kind, payload if kind in (_FIELD, _INDEX) else _element_order((kind, payload)))

    @classmethod
    def field(cls, name: str) -> PathElement:
        return _field_element(name)

    @classmethod
    def key(cls, fields: Mapping[str, Value]) -> PathElement:
        """``KeyByFields``: key fields sorted by name."""
        return cls(_KEY, tuple(sorted(fields.items(), key=lambda pair: pair[0])))

    @classmethod
    def value(cls, item: Value) -> PathElement:
        return cls(_VALUE, item)

    @classmethod
    def index(cls, position: int) -> PathElement:
        return cls(_INDEX, position)

    @property
    def field_name(self) -> str | None:
        return self.payload if self.kind == _FIELD else None

    @property
    def is_key(self) -> bool:
        return self.kind == _KEY

    def compare(self, other: PathElement) -> int:
        return _compare_elements((self.kind, self.payload), (other.kind, other.payload))

    def __lt__(self, other: PathElement) -> bool:
        return self.compare(other) < 0

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, PathElement) and self._identity == other._identity)

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        """``PathElement.String``: ``.name``, ``[name="x"]``, ``[="x"]``, ``[3]``."""
        if self.kind == _FIELD:
            return "." + self.payload
        if self.kind == _KEY:
            return "[" + ",".join(f"{name}={value_to_string(item)}" for name, item in self.payload) + "]"
        if self.kind == _VALUE:
            return f"[={value_to_string(self.payload)}]"
        return f"[{self.payload}]"

    __repr__ = __str__

    def serialize(self) -> str:
        """``SerializePathElement``: the FieldsV1 key."""
        if self._serialized is None:
            self._serialized = self._serialization()
        return self._serialized

    def _serialization(self) -> str:
        if self.kind == _FIELD:
            return "f:" + self.payload
        if self.kind == _KEY:
            return "k:{" + ",".join(f"{go_json(name)}:{go_json(item)}" for name, item in self.payload) + "}"
        if self.kind == _VALUE:
            return "v:" + go_json(self.payload)
        return f"i:{self.payload}"

    @classmethod
    def deserialize(cls, text: str) -> PathElement | None:
        """``DeserializePathElement``; ``None`` for an unknown kind prefix, which FieldsV1 decoding
        skips. Raises ``ValueError`` for a malformed key."""
        return _deserialized(text)


@lru_cache(maxsize=4096)
def _deserialized(text: str) -> PathElement | None:
    """``PathElement.deserialize``, kept by text (elements are never changed): every update
    decodes the stored managedFields, and a kind's objects name the same keys and values
    (``k:{"type":"Ready"}``)."""
    if len(text) < 2:
        raise ValueError("key must be 2 characters long:")
    if text[1] != ":":
        raise ValueError(f"missing colon: {text}")
    kind, body = text[0], text[2:]
    if kind == "f":
        return PathElement.field(body)
    if kind == "v":
        return PathElement.value(json.loads(body))
    if kind == "k":
        fields = json.loads(body)
        if not isinstance(fields, dict):
            raise ValueError(f"expected an object in {text}")
        return PathElement.key(fields)
    if kind == "i":
        return PathElement.index(int(body))
    return None


def _compare_keys(lhs: Sequence[tuple[str, Value]], rhs: Sequence[tuple[str, Value]]) -> int:
    """``FieldList.Compare``."""
    for (lname, lvalue), (rname, rvalue) in zip(lhs, rhs):
        if lname != rname:
            return (lname > rname) - (lname < rname)
        if (c := compare_values(lvalue, rvalue)) != 0:
            return c
    return _sign(len(lhs) - len(rhs))


Path = tuple[PathElement, ...]


@lru_cache(maxsize=16384)
def _field_element(name: str) -> PathElement:
    """The element of a field name, shared: objects of one kind name the same fields on every
    write, and a shared element's hash and serialization are already computed. Bounded, as map
    keys (labels, annotations, data) are field names too."""
    return PathElement(_FIELD, name)


def path_string(path: Path) -> str:
    """``Path.String``: ``.spec.containers[name="app"].image``."""
    return "".join(str(element) for element in path)


def _compare_elements(lhs: tuple[int, Any], rhs: tuple[int, Any]) -> int:
    """``PathElement.Compare`` of two elements given as (kind, payload)."""
    (kind, payload), (other_kind, other_payload) = lhs, rhs
    if kind != other_kind:
        return _sign(kind - other_kind)
    if kind == _KEY:
        return _compare_keys(payload, other_payload)
    if kind == _VALUE:
        return compare_values(payload, other_payload)
    return (payload > other_payload) - (payload < other_payload)


_element_order = cmp_to_key(_compare_elements)
_SORT_KEY = attrgetter("sort_key")


# --- field sets (fieldpath/set.go, serialize.go) -----------------------------------------------


@dataclass(slots=True)
class FieldSet:
    """``fieldpath.Set``. Invariants: no child set is empty (every operation drops empty
    children, as upstream's do), so ``empty`` need not recurse; and a set is not changed once
    built (only ``insert`` and decoding change the sets they are building), so operations
    share unchanged subsets, a decoded set is shared by the writes that decode the same
    FieldsV1, and a set's FieldsV1 is computed once."""

    members: set[PathElement] = field(default_factory=set)
    children: dict[PathElement, FieldSet] = field(default_factory=dict)
    #: ``to_fields``' answer once computed (shared by every object that shows this set).
    _fields: dict[str, Any] | None = field(default=None, init=False, compare=False, repr=False)
    #: A set derived from this one once, with what it was derived for (``merge``'s
    #: ``ensure_named_fields_are_members`` and its type): shared sets are derived once.
    derived: tuple[Any, FieldSet] | None = field(default=None, init=False, compare=False, repr=False)

    @classmethod
    def of(cls, *paths: Path) -> FieldSet:
        out = cls()
        for path in paths:
            out.insert(path)
        return out

    def insert(self, path: Path) -> None:
        """Adds ``path`` (the empty path is no member, as upstream)."""
        if not path:
            return
        self.node(path[:-1]).members.add(path[-1])

    def child(self, element: PathElement) -> FieldSet:
        """The sub-set under ``element``, made (empty) if there is none: for building a set,
        whose builder puts something in it."""
        node = self.children.get(element)
        if node is None:
            node = self.children[element] = FieldSet()
        return node

    def node(self, path: Path) -> FieldSet:
        """The sub-set at ``path`` (this set for the empty path), made as ``child`` makes it."""
        node = self
        for element in path:
            node = node.child(element)
        return node

    def has(self, path: Path) -> bool:
        node: FieldSet | None = self
        for element in path[:-1]:
            node = node.children.get(element)
            if node is None:
                return False
        return bool(path) and path[-1] in node.members

    @property
    def empty(self) -> bool:
        return not self.members and not self.children

    def with_prefix(self, element: PathElement) -> FieldSet:
        """The sub-set under ``element`` (empty when there is none)."""
        return self.children.get(element) or FieldSet()

    def union(self, other: FieldSet) -> FieldSet:
        children = dict(self.children)
        for element, child in other.children.items():
            children[element] = children[element].union(child) if element in children else child
        return FieldSet(self.members | other.members, children)

    def intersection(self, other: FieldSet) -> FieldSet:
        children = {}
        for element, child in self.children.items():
            if element in other.children and not (common := child.intersection(other.children[element])).empty:
                children[element] = common
        return FieldSet(self.members & other.members, children)

    def difference(self, other: FieldSet) -> FieldSet:
        """Members of ``self`` not in ``other``, child by child (a member of ``other`` does not
        remove a child of ``self``: that is ``recursive_difference``)."""
        children = {}
        for element, child in self.children.items():
            rest = child.difference(other.children[element]) if element in other.children else child
            if not rest.empty:
                children[element] = rest
        return FieldSet(self.members - other.members, children)

    def recursive_difference(self, other: FieldSet) -> FieldSet:
        """Like ``difference``, but a member of ``other`` also removes everything under it."""
        children = {}
        for element, child in self.children.items():
            if element in other.members:
                continue
            rest = child.recursive_difference(other.children[element]) if element in other.children else child
            if not rest.empty:
                children[element] = rest
        return FieldSet(self.members - other.members, children)

    def iterate(self, prefix: Path = ()) -> Iterator[Path]:
        """Every member path in upstream's ``Iterate`` order: this node's members, then each
        child's paths, both in element order."""
        for element in sorted(self.members, key=_SORT_KEY):
            yield (*prefix, element)
        for element in sorted(self.children, key=_SORT_KEY):
            yield from self.children[element].iterate((*prefix, element))

    def __str__(self) -> str:
        return "\n".join(path_string(path) for path in self.iterate())

    # FieldsV1 (serialize.go)

    def to_fields(self) -> dict[str, Any]:
        """``Set.ToJSON`` as a dict whose key order is the JSON's. Shared (see the class): never
        changed in place."""
        if self._fields is None:
            out: dict[str, Any] = {}
            for element in sorted(self.members | self.children.keys(), key=_SORT_KEY):
                child = self.children.get(element)
                out[element.serialize()] = {} if child is None else (
                    {".": {}, **child.to_fields()} if element in self.members else child.to_fields())
            self._fields = out
        return self._fields

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> FieldSet:
        """``Set.FromJSON``. Raises ``ValueError`` for a malformed key."""
        return cls._read(fields)[0] or cls()

    @classmethod
    def _read(cls, fields: Any) -> tuple[FieldSet | None, bool]:
        """``readIterV1``: the children read under a node, and whether the node is a member
        (it is when it has ``"."`` or nothing else)."""
        if not isinstance(fields, Mapping):
            raise ValueError(f"expected an object, got {fields!r}")
        out: FieldSet | None = None
        is_member = False
        for key, value in fields.items():
            if key == ".":
                is_member = True
                continue
            element = PathElement.deserialize(key)
            if element is None:
                continue
            grandchildren, child_is_member = cls._read(value)
            if child_is_member or grandchildren is not None:
                out = out or cls()
            if child_is_member:
                out.members.add(element)
            if grandchildren is not None:
                out.children[element] = out.children[element].union(grandchildren) if element in out.children else grandchildren
        return out, is_member or out is None


# --- managed fields (apimachinery managedfields/internal/managedfields.go) ---------------------

APPLY, UPDATE = "Apply", "Update"
FIELDS_V1 = "FieldsV1"


@dataclass(frozen=True, slots=True)
class VersionedSet:
    """``fieldpath.VersionedSet``: what one manager owns, at the apiVersion it used."""

    set: FieldSet
    api_version: str
    applied: bool


@dataclass(slots=True)
class Managed:
    """Decoded managedFields: each manager identifier's set and time (RFC 3339, UTC seconds)."""

    fields: dict[str, VersionedSet] = field(default_factory=dict)
    times: dict[str, str | None] = field(default_factory=dict)


class ManagedFieldsError(ValueError):
    """managedFields that ``DecodeManagedFields`` rejects; the message is upstream's."""


@lru_cache(maxsize=1024)
def manager_identifier(manager: str, operation: str, api_version: str, subresource: str) -> str:
    """``BuildManagerIdentifier``: the entry's JSON without fieldsType, fieldsV1 and time, and
    without apiVersion for an Apply (an applier owns its fields whatever version it used).
    Kept: a server's writers are few, and each writes again and again."""
    entry = {"manager": manager, "operation": operation,
             "apiVersion": "" if operation == APPLY else api_version, "subresource": subresource}
    return "{" + ",".join(f"{go_json(k)}:{go_json(v)}" for k, v in entry.items() if v) + "}"


def parse_manager_identifier(identifier: str) -> dict[str, str]:
    """The fields of a ``manager_identifier`` (a new dict, for the caller)."""
    return dict(_identifier_fields(identifier))


@lru_cache(maxsize=1024)
def _identifier_fields(identifier: str) -> tuple[tuple[str, str], ...]:
    return tuple(json.loads(identifier).items())


def format_time(moment: datetime) -> str:
    """``metav1.Time``'s JSON: RFC 3339 in UTC, whole seconds."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@lru_cache(maxsize=256)
def canonical_time(text: str) -> str:
    """A time as ``metav1.Time`` decodes and encodes it again (``format_time(parse_time(text))``);
    kept by text: an object's entries and a second's writes share a few."""
    return format_time(parse_time(text))


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _unix_seconds(time: str | None) -> int:
    return 0 if time is None else int(parse_time(time).timestamp())


def _decode_entry(index: int, entry: Mapping[str, Any]) -> tuple[str, VersionedSet, str | None]:
    operation = entry.get("operation") or ""
    if operation not in (APPLY, UPDATE):
        raise ManagedFieldsError("operation must be `Apply` or `Update`")
    api_version = entry.get("apiVersion") or ""
    if not api_version:
        raise ManagedFieldsError("apiVersion must not be empty")
    fields_type = entry.get("fieldsType") or ""
    if not fields_type:
        raise ManagedFieldsError(f"missing fieldsType in managed fields entry {index}")
    if fields_type != FIELDS_V1:
        raise ManagedFieldsError(f"invalid fieldsType {go_quote(fields_type)} in managed fields entry {index}")
    identifier = manager_identifier(entry.get("manager") or "", operation, api_version, entry.get("subresource") or "")
    try:
        fields = _decoded_fields(entry.get("fieldsV1") or {})
    except (ValueError, TypeError) as err:
        raise ManagedFieldsError(f"error decoding versioned set: error decoding set: {err}") from err
    time = entry.get("time")
    return identifier, VersionedSet(fields, api_version, operation == APPLY), (
        canonical_time(time) if time else None)


def _decoded_fields(fields: Any) -> FieldSet:
    """``FieldSet.from_fields``, each FieldsV1 decoded once: every update decodes the stored
    object's managedFields, and objects made from one template (a ReplicaSet's pods) have the
    same ones. Raises as ``from_fields``."""
    if not isinstance(fields, dict):
        return FieldSet.from_fields(fields)
    try:
        encoded = orjson.dumps(fields)
    except TypeError:  # orjson.JSONEncodeError: what JSON cannot hold (an integer past 64 bits)
        return FieldSet.from_fields(fields)
    return _fields_of_json(encoded)


@lru_cache(maxsize=256)
def _fields_of_json(encoded: bytes) -> FieldSet:
    """The set of a FieldsV1 document (``_decoded_fields``); bounded, the sets being large."""
    return FieldSet.from_fields(orjson.loads(encoded))


def decode_managed_fields(entries: Sequence[Mapping[str, Any]] | None) -> Managed:
    """``DecodeManagedFields``; a later entry with the same identifier replaces an earlier one."""
    managed = Managed()
    for index, entry in enumerate(entries or ()):
        if not isinstance(entry, Mapping):
            raise ManagedFieldsError(f"managed fields entry {index} is not an object")
        identifier, versioned, time = _decode_entry(index, entry)
        managed.fields[identifier] = versioned
        managed.times[identifier] = time
    return managed


def is_reset(entries: Sequence[Mapping[str, Any]] | None) -> bool:
    """``isResetManagedFields``: a client asks to drop all managedFields by sending ``[]`` or
    ``[{}]`` (one zero entry: empty strings and nulls; ``fieldsV1: {}`` is a value)."""
    if entries is None:
        return False
    return len(entries) == 0 or (len(entries) == 1 and all(value in (None, "") for value in entries[0].values()))


def _sort_key(entry: Mapping[str, Any]) -> tuple[str, int, str, str, str]:
    """``sortEncodedManagedFields``: operation, time in Unix seconds (none is 0), manager,
    apiVersion, subresource."""
    return (entry.get("operation", ""), _unix_seconds(entry.get("time")), entry.get("manager", ""),
            entry.get("apiVersion", ""), entry.get("subresource", ""))


def _encode_entry(identifier: str, versioned: VersionedSet, time: str | None) -> dict[str, Any]:
    """``encodeManagerVersionedSet``: a ``ManagedFieldsEntry`` in Go's field order, empty
    strings and a missing time omitted (``omitempty``)."""
    ident = parse_manager_identifier(identifier)
    entry = {"manager": ident.get("manager", ""),
             "operation": APPLY if versioned.applied else ident.get("operation", ""),
             "apiVersion": versioned.api_version, "time": time or "", "fieldsType": FIELDS_V1,
             "fieldsV1": versioned.set.to_fields(), "subresource": ident.get("subresource", "")}
    return {key: value for key, value in entry.items() if value != ""}


def encode_managed_fields(managed: Managed) -> list[dict[str, Any]] | None:
    """``encodeManagedFields``: ``None`` (no ``managedFields``) when nobody manages anything."""
    if not managed.fields:
        return None
    entries = [_encode_entry(identifier, versioned, managed.times.get(identifier))
               for identifier, versioned in managed.fields.items()]
    return sorted(entries, key=_sort_key)


def equal_but_managed_fields_times(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """Whether ``new`` is ``old`` with nothing changed but some managedFields timestamps
    (apiserver ``fieldmanager.IgnoreManagedFieldsTimestampsTransformer``: kube then puts the
    old timestamps back, so the write changes nothing and is skipped). Entries are compared
    pairwise, in order, as kube does; a differing entry count or no changed time is False."""
    new_meta, old_meta = new.get("metadata"), old.get("metadata")
    if not isinstance(new_meta, Mapping) or not isinstance(old_meta, Mapping):
        return False
    new_entries, old_entries = new_meta.get("managedFields"), old_meta.get("managedFields")
    if not new_entries or not isinstance(new_entries, list) or not isinstance(old_entries, list) \
            or len(new_entries) != len(old_entries):
        return False
    times_changed = False
    for new_entry, old_entry in zip(new_entries, old_entries):
        if not isinstance(new_entry, Mapping) or not isinstance(old_entry, Mapping):
            return False
        if new_entry.get("time") != old_entry.get("time"):
            times_changed = True
            if {**new_entry, "time": None} != {**old_entry, "time": None}:
                return False
        elif new_entry != old_entry:
            return False
    if not times_changed:
        return False
    return ({**new, "metadata": {**new_meta, "managedFields": None}}
            == {**old, "metadata": {**old_meta, "managedFields": None}})
