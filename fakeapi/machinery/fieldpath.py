"""Field paths and field sets, as structured-merge-diff v4.4.2's ``fieldpath`` package keeps them.

* ``PathElement``/``FieldSet`` mirror ``fieldpath/element.go``, ``path.go`` and ``set.go``: a set
  is a trie of members (the paths it holds) and children (sub-sets under a path element), kept
  in Go's element order so that iteration, ``Path.String()`` and serialisation match.
* ``FieldSet.to_fields``/``from_fields`` are ``fieldpath/serialize.go``'s FieldsV1 format:
  ``f:<field>``, ``k:<json of key fields>`` (associative list item), ``v:<json>`` (set item),
  ``i:<index>``, and ``"."`` for "this node itself is a member" when it also has children.
  A set may be made from its FieldsV1 alone (``FieldSet.of_fields``), its paths read when asked for.
* ``VersionedSet`` is ``fieldpath/managers.go``'s: what one manager owns.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple

from .value import EXACT_FLOAT_INT, Value, canonical, compare_values, go_json, order_key, sign, value_to_string

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
        self._serialized: str | None = None
        # ``sort_key`` sorts elements in ``compare``'s order with Python's tuple comparison:
        # fields and indexes by their payload directly (a field's string order is Go's byte
        # order, as UTF-8 keeps code point order), a key's fields by name then value and a set
        # item by value (``order_key``: ``compare_values``' order), as ``_compare_keys`` zips
        # them. Python compares these natively where a comparison function would be called per
        # pair. ``_identity`` is what ``Equals`` compares (``canonical`` values).
        if kind == _KEY:
            identity, order = [], []
            for name, item in payload:
                identity.append((name, canonical(item)))
                order.append((name, order_key(item)))
            self._identity = (kind, tuple(identity))
            self.sort_key: tuple[Any, ...] = (kind, tuple(order))
        elif kind == _VALUE:
            self._identity = (kind, canonical(payload))
            self.sort_key = (kind, order_key(payload))
        else:
            self._identity = self.sort_key = (kind, payload)
        self._hash = hash(self._identity)

    @classmethod
    def field(cls, name: str) -> PathElement:
        return field_element(name)

    @classmethod
    def key(cls, fields: Mapping[str, Value]) -> PathElement:
        """``KeyByFields``: key fields sorted by name."""
        return cls.key_of(tuple(fields.items()))

    @classmethod
    def key_of(cls, pairs: tuple[tuple[str, Value], ...]) -> PathElement:
        """``KeyByFields`` of (name, value) pairs of distinct names: sorted by name."""
        return cls(_KEY, pairs if len(pairs) == 1 else tuple(sorted(pairs, key=_NAME)))

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
            return "k:{" + ",".join([go_json(name) + ":" + go_json(item) for name, item in self.payload]) + "}"
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
        return field_element(body)
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
    return sign(len(lhs) - len(rhs))


Path = tuple[PathElement, ...]


class ElementParts(NamedTuple):
    """What an element is made of: what equality compares, ``sort_key`` and ``serialize()``."""

    identity: tuple[Any, ...]
    sort_key: tuple[Any, ...]
    text: str


def element_parts(element: PathElement) -> ElementParts:
    return ElementParts(element._identity, element.sort_key, element.serialize())


def item_parts(names: tuple[str, ...], item: Value) -> ElementParts | None:
    """The parts of the element ``typed.item_key`` gives an associative list's item (``names``:
    the list's keys; none: a set, whose item is its own key), made without the element when the
    key holds strings and integers alone (names, ports: nearly every key); None otherwise, or
    when a key field is missing (its default is the schema's)."""
    if not names:
        kind = _plain_kind(item)
        if kind is None:
            return None
        value = (kind, item)
        return ElementParts((_VALUE, (_CANONICAL_TAGS[kind], item)), (_VALUE, value), "v:" + go_json(item))
    if not isinstance(item, dict):
        return None
    if len(names) > 1:
        names = tuple(sorted(names))
    identity, order, text = [], [], []
    for name in names:
        if name not in item:
            return None
        value = item[name]
        kind = _plain_kind(value)
        if kind is None:
            return None
        identity.append((name, (_CANONICAL_TAGS[kind], value)))
        order.append((name, (kind, value)))
        text.append(go_json(name) + ":" + go_json(value))
    return ElementParts((_KEY, tuple(identity)), (_KEY, tuple(order)), "k:{" + ",".join(text) + "}")


#: ``canonical``'s tag by ``_plain_kind``.
_CANONICAL_TAGS = ("n", "s")


def _plain_kind(value: Value) -> int | None:
    """``order_key``'s rank of a string or of an integer it orders as itself; None otherwise."""
    cls = value.__class__
    if cls is str:
        return 1
    if cls is int and -EXACT_FLOAT_INT <= value <= EXACT_FLOAT_INT:
        return 0
    return None


@lru_cache(maxsize=16384)
def field_element(name: str) -> PathElement:
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
        return sign(kind - other_kind)
    if kind == _KEY:
        return _compare_keys(payload, other_payload)
    if kind == _VALUE:
        return compare_values(payload, other_payload)
    return (payload > other_payload) - (payload < other_payload)


_SORT_KEY = attrgetter("sort_key")
_NAME = itemgetter(0)


# --- field sets (fieldpath/set.go, serialize.go) -----------------------------------------------


@dataclass(slots=True, eq=False)
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

    def __eq__(self, other: object) -> bool:
        """Equal paths, however either set was made (``of_fields``' is of a subclass)."""
        return isinstance(other, FieldSet) and self.members == other.members and self.children == other.children

    __hash__ = None  # type: ignore[assignment]  # (a set is built in place: not hashable)

    @classmethod
    def of_fields(cls, fields: dict[str, Any]) -> FieldSet:
        """The set whose FieldsV1 is ``fields`` (a node's, without ``"."``, not empty), its
        members and children read from them the first time they are asked for: a new object's
        subtrees are walked into FieldsV1 alone (``typed_compare``), and most are only ever
        shown as such in its managedFields."""
        out = _FieldsSet.__new__(_FieldsSet)
        out._fields = fields
        out.derived = None
        return out

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
        out = self._fields
        if out is None:
            members, children = self.members, self.children
            if not children:  # the common node: leaves only (a container's scalar fields)
                out = {element.serialize(): {} for element in sorted(members, key=_SORT_KEY)}
            else:
                out = {}
                for element in sorted(members | children.keys(), key=_SORT_KEY):
                    child = children.get(element)
                    out[element.serialize()] = {} if child is None else (
                        {".": {}, **child.to_fields()} if element in members else child.to_fields())
            self._fields = out
        return out

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


class _FieldsSet(FieldSet):
    """``FieldSet.of_fields``' set: ``members`` and ``children`` are unset slots until first
    read (``__getattr__`` runs only then), when this node's level of its FieldsV1 is read as
    ``from_fields`` reads FieldsV1 that ``to_fields`` wrote (every key of a known kind, no
    child empty), each child again a set of its own FieldsV1."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name != "members" and name != "children":
            raise AttributeError(name)
        members: set[PathElement] = set()
        children: dict[PathElement, FieldSet] = {}
        assert self._fields is not None
        for key, below in self._fields.items():
            element = PathElement.deserialize(key)
            if element is None:
                continue
            # a member has "." or nothing else; anything else is the child's own FieldsV1
            if not below or "." in below:
                members.add(element)
            if below and (len(below) > 1 or "." not in below):
                children[element] = FieldSet.of_fields({k: v for k, v in below.items() if k != "."})
        self.members, self.children = members, children
        return members if name == "members" else children

    @property
    def empty(self) -> bool:
        return not self._fields


# --- what a manager owns (fieldpath/managers.go) --------------------------------------------------


@dataclass(frozen=True, slots=True)
class VersionedSet:
    """``fieldpath.VersionedSet``: what one manager owns, at the apiVersion it used."""

    set: FieldSet
    api_version: str
    applied: bool
