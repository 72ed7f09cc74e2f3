"""Server-side apply's merge and the updater (structured-merge-diff v4.4.2).

``typed/merge.go`` (rule ``ruleKeepRHS``), ``typed/remove.go`` and ``fieldpath/set.go``'s
``EnsureNamedFieldsAreMembers``, under the updater (``merge/update.go``, ``conflict.go``):
``Update`` gives the changed fields to the writer and takes them from everyone else; ``Apply``
merges the configuration, drops what the applier stopped applying unless someone else owns it,
and reports conflicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .fieldpath import FieldSet, Path, PathElement, VersionedSet
from .schemaconv import ListType, MapType, TypeRef, deduce, resolve
from .typed import MISSING, WalkedParts, item_key, to_field_set, try_item_key, zip_keys
from .typed_compare import Comparison, compare
from .value import Value, values_equal

# --- merge (typed/merge.go, rule ruleKeepRHS) --------------------------------------------------


def merge(lhs: Value, rhs: Value, type_ref: TypeRef | None) -> Value:
    """``TypedValue.Merge``: ``rhs`` over ``lhs``, granular maps and associative lists merged
    item by item (order: ``rhs``'s, with ``lhs``-only items kept in place), anything atomic
    replaced. Returns ``MISSING`` when both are. The result shares what only ``lhs`` has."""
    if rhs is MISSING:
        # The walk would rebuild lhs as it is (an empty map or list too): a live object's fields
        # the configuration does not name are most of it. The result shares them with lhs.
        return lhs
    # Upstream also walks lhs's atom when it differs from rhs's, but discards that output.
    chosen = deduce(resolve(type_ref), rhs)
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
    for key in zip_keys(left or {}, right or {}):
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
        key = item_key(type_, item)
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


# --- removal (typed/remove.go) and named fields (fieldpath/set.go) -----------------------------


def remove_items(value: Value, items: FieldSet, type_ref: TypeRef | None) -> Value:
    """``TypedValue.RemoveItems``. As upstream, a map or list left empty (or found empty)
    becomes null, and a value that is not what its type says becomes null too."""
    atom = deduce(resolve(type_ref), value)
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
        key = try_item_key(type_, item)
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
    atom = resolve(type_ref)
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


# --- the updater (merge/update.go) -------------------------------------------------------------


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

    # The pruned copies keep the parts of ``merged`` they do not change (its spec, most often)
    # as they are: their fields are walked once.
    walked: WalkedParts = {}
    pruned = remove_items(merged, named(last_applied.set), type_ref)
    owned = FieldSet()
    for versioned in managers.values():
        owned = owned.union(versioned.set)
    merged_fields = named(to_field_set(merged, type_ref, walked))
    pruned = remove_items(merged, merged_fields.difference(
        named(to_field_set(pruned, type_ref, walked)).union(named(owned))), type_ref)
    dangling = merged_fields.difference(named(to_field_set(pruned, type_ref, walked))).intersection(
        named(last_applied.set))
    return remove_items(merged, dangling, type_ref)
