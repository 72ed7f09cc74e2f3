"""Which fields one typed value added, removed or changed against another (structured-merge-diff
v4.4.2 ``typed/compare.go``): what the updater gives to a writer and takes from the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from .fieldpath import ElementParts, FieldSet, Path, PathElement, element_parts, field_element, item_parts
from .jsonvalue import Repeated
from .schemaconv import Atom, ListType, MapType, TypeRef, deduce, resolve
from .typed import MISSING, kept_walk, try_item_key, zip_keys
from .value import Value, values_equal

# --- comparison (typed/compare.go) -------------------------------------------------------------


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
        atom = resolve(self.type_ref)
        lhs_atom, rhs_atom = deduce(atom, self.lhs), deduce(atom, self.rhs)
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
        for key in zip_keys(lhs or {}, rhs or {}):
            self._child(field_element(key), (lhs or {}).get(key, MISSING), (rhs or {}).get(key, MISSING),
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
    ``1`` where ``values_equal`` does not. One value (a part a merge or a copy kept) is the
    same JSON without encoding it."""
    if lhs is rhs:
        return isinstance(lhs, (dict, list))
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
    return kept_walk(_SUBTREES, _walk_subtree, value, type_ref)


def _walk_subtree(value: Value, type_ref: TypeRef | None) -> FieldSet | None:
    """The set recorded below ``value``: None for a scalar, an atomic or empty value, or a list
    of items without keys (no set is empty). Below compare's own subtrees nothing is shared, and
    this walk is most of a new object's fields, which its managedFields show next: it writes
    their FieldsV1 alone (``_fill``), the set reading its paths from them if ever asked."""
    fields: dict[str, Any] = {}
    return FieldSet.of_fields(fields) if value and _fill(value, type_ref, fields) else None


def _fill(value: Value, type_ref: TypeRef | None, out: dict[str, Any]) -> bool:
    """Write into ``out`` the FieldsV1 of every path below the non-empty ``value`` (each one a
    member: every map field, every list item by its key, an item whose key repeats as a whole
    and nothing below it); whether there was any. A scalar or empty child is its key alone,
    without a call or a type lookup (only maps and lists have paths below them); a child with
    paths below is a member that has children, so its FieldsV1 starts with ``"."``."""
    # the type's part for the value's kind (``deduce``): a map's for a map, a list's for a list
    if isinstance(value, dict):
        map_type = resolve(type_ref).map
        if map_type is None or map_type.atomic:
            return False
        field_type = map_type.field_type
        for name in sorted(value):  # a field's element order is its name's
            item = value[name]
            if item and (isinstance(item, dict) or isinstance(item, list)):
                below: dict[str, Any] = {".": {}}
                out["f:" + name] = below if _fill(item, field_type(name), below) else {}
            else:
                out["f:" + name] = {}
        return True
    if isinstance(value, list):
        list_type = resolve(type_ref).list
        if list_type is None or list_type.atomic or not list_type.associative:
            return False  # (a list that is neither: no item has a key, nothing is recorded)
        groups = _items_by_key(list_type, value)
        if not groups:
            return False
        element_type = list_type.element
        for group in sorted(groups.values(), key=_group_order):  # element order
            item, text = group.item, group.parts.text
            # an item whose key repeats is owned as a whole, nothing below it
            if not group.repeated and item and (isinstance(item, dict) or isinstance(item, list)):
                below = {".": {}}
                out[text] = below if _fill(item, element_type, below) else {}
            else:
                out[text] = {}
        return True
    return False


def _items_by_key(type_: ListType, items: list[Value]) -> dict[tuple[Any, ...], _Group]:
    """The items of an associative list grouped by key as ``_group_by_key`` groups them (items
    without one are left out), each group its key's ``ElementParts`` (most made without the
    element: ``item_parts``), its first item and whether another item has the same key."""
    groups: dict[tuple[Any, ...], _Group] = {}
    names = type_.keys
    for item in items:
        parts = item_parts(names, item)
        if parts is None:
            key = try_item_key(type_, item)
            if key is None:
                continue
            parts = element_parts(key)
        group = groups.get(parts.identity)
        if group is None:
            groups[parts.identity] = _Group(parts, item)
        else:
            group.repeated = True
    return groups


class _Group:
    """The items of one key in ``_items_by_key``."""

    __slots__ = ("parts", "item", "repeated")

    def __init__(self, parts: ElementParts, item: Value) -> None:
        self.parts = parts
        self.item = item  # the first
        self.repeated = False


def _group_order(group: _Group) -> tuple[Any, ...]:
    return group.parts.sort_key


def _group_by_key(type_: ListType, items: list[Value]) -> dict[PathElement, list[Value]]:
    grouped: dict[PathElement, list[Value]] = {}
    for item in items:
        if (key := try_item_key(type_, item)) is not None:
            grouped.setdefault(key, []).append(item)
    return grouped
