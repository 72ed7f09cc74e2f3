"""Strategic merge patch: apimachinery's ``pkg/util/strategicpatch`` ``StrategicMergeMapPatch``, as
kube-apiserver applies it (``MergeOptions{MergeParallelList: true, IgnoreUnmatchedNulls: true}``).

The patch metadata Go reads from struct tags (``patchStrategy``, ``patchMergeKey``) is read from the
OpenAPI schema of the kind, where kube publishes the same tags as ``x-kubernetes-patch-strategy``
and ``x-kubernetes-patch-merge-key`` on each *property* (so they are read from the property node,
before its ``$ref`` is followed: ``PodDisruptionBudgetSpec.selector`` carries ``replace`` next to
its ``$ref``).

Values are what Go's ``map[string]interface{}`` holds after kube's decoding
(``UnmarshalCaseSensitivePreserveInts``): ``dict``, ``list``, ``str``, ``bool``, ``int`` (int64),
``float`` (float64) and ``None``. Go compares interface values by dynamic type and value, so
``1 == 1.0 == True`` is false here too (``go_equal``).

The functions mutate the original and the patch, as Go's do; ``strategic_merge`` works on copies.
Map iteration order is random in Go: where the outcome depends on it (a patch with conflicting
directives for one list), Go itself is not deterministic and this follows the patch's key order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from .golang import go_float, go_quote, go_type
from .jsonvalue import json_copy
from .schema import Schema, definitions

DIRECTIVE_MARKER = "$patch"
DELETE_DIRECTIVE = "delete"
REPLACE_DIRECTIVE = "replace"
MERGE_DIRECTIVE = "merge"
RETAIN_KEYS_STRATEGY = "retainKeys"
RETAIN_KEYS_DIRECTIVE = "$" + RETAIN_KEYS_STRATEGY
DELETE_FROM_PRIMITIVE_LIST_PREFIX = "$deleteFromPrimitiveList"
SET_ELEMENT_ORDER_PREFIX = "$setElementOrder"


class MergeError(Exception):
    """An error strategicpatch builds with ``fmt.Errorf``: kube-apiserver passes it on as is (a 500)."""


class BadPatchFormatError(MergeError):
    """One of the ``mergepatch`` sentinel errors kube answers with 400 BadRequest
    (``interpretStrategicMergePatchError``)."""


class NoListOfListsError(MergeError):
    """``mergepatch.ErrNoListOfLists``, which kube answers with 422."""


def _bad_primitive_list() -> BadPatchFormatError:
    return BadPatchFormatError("invalid patch format of primitive list")


def _bad_retain_keys() -> BadPatchFormatError:
    return BadPatchFormatError("invalid patch format of retainKeys")


def _bad_set_element_order() -> BadPatchFormatError:
    return BadPatchFormatError("invalid patch format of setElementOrder list")


# ----------------------------------------------------------------------------- Go value semantics


def go_equal(left: Any, right: Any) -> bool:
    """Go's ``==`` on two ``interface{}`` scalars: same dynamic type and value. (Go panics on maps
    and slices; they are unequal here.)"""
    return type(left) is type(right) and not isinstance(left, dict | list) and left == right


def _go_key(value: Any) -> tuple[type, Any]:
    """A hashable stand-in for a scalar as a Go ``map[interface{}]`` key (type and value)."""
    return (type(value), value if not isinstance(value, dict | list) else id(value))


def _go_type_name(value: Any) -> str:
    """``reflect.TypeOf(v).String()`` for a decoded JSON value (``%s`` of a nil Type for null)."""
    return go_type(value) or "%!s(<nil>)"


def go_sprint(value: Any, verb: str = "v") -> str:
    """``fmt.Sprintf("%v")`` (or ``%s``) of a decoded JSON value, as strategicpatch's messages
    print maps (``map[k:v]``, keys sorted), slices (``[a b]``) and scalars."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{go_sprint(k, verb)}:{go_sprint(v, verb)}" for k, v in sorted(value.items())) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_sprint(item, verb) for item in value) + "]"
    if isinstance(value, str):
        return value
    if value is None:
        return "<nil>" if verb == "v" else "%!s(<nil>)"
    text = ("true" if value else "false") if isinstance(value, bool) else (
        str(value) if isinstance(value, int) else go_float(value))
    return text if verb == "v" else f"%!s({_go_type_name(value)}={text})"


def _bad_arg_type(expected: str, actual: Any) -> MergeError:
    """``mergepatch.ErrBadArgType``."""
    return MergeError(f"expected a {expected}, but received a {_go_type_name(actual)}")


def _no_merge_key(item: Mapping[str, Any], merge_key: str) -> MergeError:
    """``mergepatch.ErrNoMergeKey``."""
    return MergeError(f"map: {go_sprint(item)} does not contain declared merge key: {merge_key}")


def _bad_patch_type(directive: Any, item: Mapping[str, Any]) -> MergeError:
    """``mergepatch.ErrBadPatchType``."""
    return MergeError(f"unknown patch type: {go_sprint(directive, 's')} in map: {go_sprint(item)}")


# ----------------------------------------------------------------------------- patch metadata


@cache
def _struct_names() -> Mapping[int, str]:
    """Go struct names of the release's definitions, by node identity (``Schema`` resolves a
    ``$ref`` to the very definition node): ``io.k8s.api.core.v1.PodSpec`` -> ``PodSpec``."""
    return {id(node): name.rpartition(".")[2] for name, node in definitions().items()}


_SCALAR_KINDS = {"string": "string", "integer": "int64", "number": "float64", "boolean": "bool"}


@dataclass(frozen=True, slots=True)
class PatchMeta:
    """``LookupPatchMeta`` (``PatchMetaFromStruct``): the Go type a value decodes into, here its
    schema, which answers the field lookups mergeMap makes. ``None`` is a free-form value."""

    schema: Schema | None

    @property
    def kind(self) -> str:
        """``reflect.Kind`` of the Go type: ``struct``, ``map``, ``slice``, a scalar's, or ``interface``."""
        if self.schema is None:
            return "interface"
        if self.schema.type == "array":
            return "slice"
        if "additionalProperties" in self.schema.node:
            return "map"
        if self.schema.type == "object" or self.schema.properties:
            return "struct"
        return _SCALAR_KINDS.get(self.schema.type or "", "interface")

    @property
    def name(self) -> str:
        """``Name()``: the kind's name, which messages use."""
        return self.kind

    def lookup_struct(self, key: str) -> tuple[PatchMeta, tuple[str, ...], str]:
        """``LookupPatchMetadataForStruct``: the field's type, patch strategies and merge key."""
        if self.kind != "struct":
            raise MergeError(f"merging an object in json but data type is not struct, instead is: {self.kind}")
        assert self.schema is not None
        prop = self.schema.properties.get(key)
        if prop is None:
            struct = _struct_names().get(id(self.schema.node), "")
            raise MergeError(f"unable to find api field in struct {struct} for the json field {go_quote(key)}")
        strategies = tuple(prop.get("x-kubernetes-patch-strategy", "").split(","))
        return PatchMeta(self.schema.field(key)), strategies, prop.get("x-kubernetes-patch-merge-key", "")

    def lookup_slice(self, key: str) -> tuple[PatchMeta, tuple[str, ...], str]:
        """``LookupPatchMetadataForSlice``: as ``lookup_struct``, with the element type."""
        field, strategies, merge_key = self.lookup_struct(key)
        if field.kind != "slice":
            raise MergeError(f"expected slice or array type, but got: {self.kind}")
        assert field.schema is not None
        element = PatchMeta(field.schema.items)
        if element.kind == "slice":
            raise MergeError("unexpected slice of slice")
        return element, strategies, merge_key


def _other_strategy(strategies: tuple[str, ...]) -> str:
    """``extractRetainKeysPatchStrategy``: the strategy besides ``retainKeys`` (``""`` if none)."""
    others = [s for s in strategies if s != RETAIN_KEYS_STRATEGY]
    if len(strategies) > 2 or (len(strategies) == 2 and len(others) != 1):
        raise MergeError(f"unexpected patch strategy: [{' '.join(strategies)}]")
    return others[0] if others else ""


# ----------------------------------------------------------------------------- maps


def strategic_merge(original: Mapping[str, Any], patch: dict[str, Any] | None, schema: Schema) -> dict[str, Any]:
    """``StrategicMergeMapPatch(original, patch, <typed object>)``: ``original`` is not modified,
    ``patch`` is (the caller decoded it for this call). A ``null`` patch is ``nil``: no change."""
    return merge_map(json_copy(dict(original)), patch or {}, PatchMeta(schema))


def merge_map(original: dict[str, Any] | None, patch: dict[str, Any], meta: PatchMeta) -> dict[str, Any]:
    """``mergeMap``."""
    if DIRECTIVE_MARKER in patch:
        return _map_directive(patch[DIRECTIVE_MARKER], patch)
    if original is None:
        original = {}
    _apply_retain_keys(original, patch)
    _merge_set_element_order_lists(original, patch, meta)
    for key, patch_value in list(patch.items()):
        is_delete_list = key.startswith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)
        if is_delete_list:
            key = _list_key(key, DELETE_FROM_PRIMITIVE_LIST_PREFIX)
        if patch_value is None:
            original.pop(key, None)  # IgnoreUnmatchedNulls: a null deletes, and is never kept
            continue
        if key not in original or type(original[key]) is not type(patch_value):
            if not is_delete_list:
                _take_patch_value(original, key, patch_value)
            continue
        current = original[key]
        if isinstance(current, dict):
            field, strategies, _ = meta.lookup_struct(key)
            if _other_strategy(strategies) == REPLACE_DIRECTIVE:
                original[key] = patch_value
            else:
                original[key] = merge_map(current, patch_value, field)
        elif isinstance(current, list):
            element, strategies, merge_key = meta.lookup_slice(key)
            if _other_strategy(strategies) == MERGE_DIRECTIVE or is_delete_list:
                original[key] = merge_slice(current, patch_value, element, merge_key, is_delete_list)
            else:
                original[key] = patch_value
        else:
            _take_patch_value(original, key, patch_value)
    return original


def _take_patch_value(original: dict[str, Any], key: str, patch_value: Any) -> None:
    """Where nothing merges, the patch value is taken without its nulls and directive maps."""
    _discard_nulls(patch_value)
    value, keep = _remove_directives(patch_value)
    if keep:
        original[key] = value
    else:
        original.pop(key, None)


def _map_directive(directive: Any, patch: dict[str, Any]) -> dict[str, Any]:
    """``handleDirectiveInMergeMap``: ``$patch: replace`` is the patch itself, ``delete`` is ``{}``."""
    if go_equal(directive, REPLACE_DIRECTIVE):
        del patch[DIRECTIVE_MARKER]
        return patch
    if go_equal(directive, DELETE_DIRECTIVE):
        return {}
    raise _bad_patch_type(directive, patch)


def _list_key(key: str, prefix: str) -> str:
    """``extractKey``: ``$setElementOrder/containers`` -> ``containers``."""
    head, slash, rest = key.partition("/")
    if not slash or head != prefix:
        raise _bad_primitive_list() if prefix == DELETE_FROM_PRIMITIVE_LIST_PREFIX else _bad_set_element_order()
    return rest


def _discard_nulls(value: Any) -> None:
    """``discardNullValuesFromPatch``: drop null members of maps, at every depth."""
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for item in value.values():
            _discard_nulls(item)
    elif isinstance(value, list):
        for item in value:
            _discard_nulls(item)


def _remove_directives(value: Any) -> tuple[Any, bool]:
    """``removeDirectives``: maps holding ``$patch`` are dropped (False: do not keep)."""
    if isinstance(value, dict):
        if DIRECTIVE_MARKER in value:
            return None, False
        for key, item in list(value.items()):
            kept, keep = _remove_directives(item)
            if keep:
                value[key] = kept
            else:
                del value[key]
        return value, True
    if isinstance(value, list):
        return [kept for kept, keep in map(_remove_directives, value) if keep], True
    return value, True


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    """``applyRetainKeysDirective``: every key of the patch must be listed; unlisted keys of the
    original are cleared."""
    if RETAIN_KEYS_DIRECTIVE not in patch:
        return
    retained = patch.pop(RETAIN_KEYS_DIRECTIVE)
    if not isinstance(retained, list):
        raise _bad_retain_keys()
    keys = {_go_key(item) for item in retained}
    for key, value in patch.items():
        if value is None or key.startswith((DELETE_FROM_PRIMITIVE_LIST_PREFIX, SET_ELEMENT_ORDER_PREFIX)):
            continue
        if _go_key(key) not in keys:
            raise _bad_retain_keys()
    for key in [k for k in original if _go_key(k) not in keys]:
        del original[key]


# ----------------------------------------------------------------------------- $setElementOrder


def _merge_set_element_order_lists(original: dict[str, Any], patch: dict[str, Any], meta: PatchMeta) -> None:
    """``mergePatchIntoOriginal``: merge each list named by a ``$setElementOrder/<list>`` now, in
    the order it gives, and take both out of the patch."""
    for directive in [k for k in patch if k.startswith(SET_ELEMENT_ORDER_PREFIX)]:
        if directive not in patch:
            continue
        order = patch.pop(directive)
        if not isinstance(order, list):
            raise _bad_arg_type("[]interface {}", order)
        key = _list_key(directive, SET_ELEMENT_ORDER_PREFIX)
        found_original, found_patch = key in original, key in patch
        original_list: list[Any] = original.get(key) or []
        patch_list: list[Any] = patch.get(key) or []
        if found_original and not isinstance(original[key], list):
            raise _bad_arg_type("[]interface {}", original[key])
        if found_patch and not isinstance(patch[key], list):
            raise _bad_arg_type("[]interface {}", patch[key])
        element, strategies, merge_key = meta.lookup_slice(key)
        strategy = _other_strategy(strategies)
        _check_order_matches_patch(patch_list, order, merge_key)
        if not found_original and not found_patch:
            continue
        if not found_patch:
            merged = original_list
        elif not found_original:
            merged = _remove_directives(patch_list)[0]
        elif strategy == MERGE_DIRECTIVE:
            # Go keeps the original list's header, whose array mergeSlice may write over: the
            # server order below is what that header sees afterwards.
            backing = list(original_list)
            merged = merge_slice(original_list, patch_list, element, merge_key, False, backing)
            original_list = backing
        else:
            merged = patch_list
        if merge_key:
            patch_items, server_only = _partition_maps(merged, order, merge_key)
        else:
            patch_items, server_only = _partition_primitives(merged, order)
        element_type = _element_type(original_list, patch_list)
        original[key] = _normalize_element_order(patch_items, server_only, order, original_list, merge_key,
                                                 element_type)
        patch.pop(key, None)


def _check_order_matches_patch(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """``validatePatchWithSetOrderList``: the patch list's items (deletions aside) must appear in
    the ``$setElementOrder`` list, in its order."""
    if not order or not patch_list:
        return
    items = _split_deletions(patch_list)[0] if merge_key else patch_list
    patch_index = order_index = 0
    while patch_index < len(items) and order_index < len(order):
        if isinstance(items[patch_index], dict) and DIRECTIVE_MARKER in items[patch_index]:
            patch_index += 1
            continue
        if _merge_key_values_equal(items[patch_index], order[order_index], merge_key):
            patch_index += 1
        order_index += 1
    if patch_index < len(items) and order_index >= len(order):
        raise MergeError(f"The order in patch list:\n{go_sprint(patch_list)}\n doesn't match "
                         f"{SET_ELEMENT_ORDER_PREFIX} list:\n{go_sprint(order)}\n")


def _merge_key_values_equal(left: Any, right: Any, merge_key: str) -> bool:
    """``mergeKeyValueEqual``."""
    if not merge_key:
        return go_equal(left, right)
    for item in (left, right):
        if not isinstance(item, dict):
            raise _bad_arg_type("map[string]interface {}", item)
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
    return go_equal(left[merge_key], right[merge_key])


# ----------------------------------------------------------------------------- lists


def merge_slice(original: list[Any], patch: list[Any], element: PatchMeta, merge_key: str,
                is_delete_list: bool, backing: list[Any] | None = None) -> list[Any]:
    """``mergeSlice``: scalars are merged as a set (or deleted, for a ``$deleteFromPrimitiveList``),
    maps by their merge key; the patch's order wins, server-only items keep their place.

    ``backing``, when given, is Go's array under ``original`` (its capacity is its length, as
    ``ToUnstructured`` makes slices): it receives the writes Go makes to it in place (deletions
    shift items left, appends fill it while there is room), which a caller holding the original
    slice observes. Lists of scalars are always copied first, so only lists of maps write to it."""
    if not original and not patch:
        return original
    element_type = _element_type(original, patch)
    if element_type is not dict:
        if is_delete_list:
            deleted = {_go_key(item) for item in patch}
            return [item for item in original if _go_key(item) not in deleted]
        merged = _deduplicate_scalars(original + patch)
    else:
        if not merge_key:
            raise MergeError(f"cannot merge lists without merge key for {element.name}")
        original, patch, backing = _apply_list_directives(original, patch, merge_key, backing)
        merged = _merge_by_key(original, patch, merge_key, element, backing)
    if merge_key:
        patch_items, server_only = _partition_maps(merged, patch, merge_key)
    else:
        patch_items, server_only = _partition_primitives(merged, patch)
    return _normalize_element_order(patch_items, server_only, patch, original, merge_key, element_type)


def _element_type(*lists: list[Any]) -> type:
    """``sliceElementType``: the one type of every item; lists of lists are refused."""
    found: type | None = None
    for items in lists:
        for item in items:
            if found is None:
                found = type(item)
                if found is list:
                    raise NoListOfListsError("lists of lists are not supported")
            elif type(item) is not found:
                raise MergeError(f"list element types are not identical: {go_sprint(list(lists))}")
    if found is None:
        raise MergeError("no elements in any of the given slices")
    return found


def _deduplicate_scalars(items: list[Any]) -> list[Any]:
    """``deduplicateScalars``: a repeat is overwritten by the last item (order matters below)."""
    last = len(items) - 1
    i = 0
    while i < last:
        j = i + 1
        while j <= last:
            if go_equal(items[i], items[j]):
                items[j] = items[last]
                items = items[:last]
                last -= 1
                j -= 1
            j += 1
        i += 1
    return items


def _apply_list_directives(original: list[Any], patch: list[Any], merge_key: str, backing: list[Any] | None
                           ) -> tuple[list[Any], list[Any], list[Any] | None]:
    """``mergeSliceWithSpecialElements``: ``{$patch: delete, <key>: v}`` deletes every item with
    that key; ``{$patch: replace}`` makes the list the patch's other items (a new array)."""
    plain: list[Any] = []
    replace = False
    for item in patch:
        if DIRECTIVE_MARKER not in item:
            plain.append(item)
            continue
        directive = item[DIRECTIVE_MARKER]
        if go_equal(directive, DELETE_DIRECTIVE):
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            original = _delete_matching(original, merge_key, item[merge_key], backing)
        elif go_equal(directive, REPLACE_DIRECTIVE):
            replace = True
        elif go_equal(directive, MERGE_DIRECTIVE):
            raise MergeError("merging lists cannot yet be specified in the patch")
        else:
            raise _bad_patch_type(directive, item)
    return (plain, [], None) if replace else (original, plain, backing)


def _delete_matching(original: list[Any], merge_key: str, value: Any, backing: list[Any] | None) -> list[Any]:
    """``deleteMatchingEntries``: ``append(s[:i], s[i+1:]...)`` shifts the array's items left."""
    while (index := _find_by_key(original, merge_key, value)) is not None:
        original = original[:index] + original[index + 1:]
        if backing is not None:
            backing[index:len(original)] = original[index:]
    return original


def _find_by_key(items: list[Any], merge_key: str, value: Any) -> int | None:
    """``findMapInSliceBasedOnKeyValue``: the first map whose merge key holds ``value``."""
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise MergeError(f"value for key {index} is not a map")
        if merge_key in item and go_equal(item[merge_key], value):
            return index
    return None


def _merge_by_key(original: list[Any], patch: list[Any], merge_key: str, element: PatchMeta,
                  backing: list[Any] | None) -> list[Any]:
    """``mergeSliceWithoutSpecialElements``: merge each patch map into the original's map with the
    same key, or append it (into ``backing`` while it has room; beyond, Go moves to a new array)."""
    merged = list(original)
    for item in patch:
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        index = _find_by_key(merged, merge_key, item[merge_key])
        if index is None:
            merged.append(item)
            index = len(merged) - 1
            if backing is not None and index >= len(backing):
                backing = None
        else:
            merged[index] = merge_map(merged[index], item, element)
        if backing is not None:
            backing[index] = merged[index]
    return merged


def _partition_primitives(items: list[Any], present: list[Any]) -> tuple[list[Any], list[Any]]:
    """``partitionPrimitivesByPresentInList``: (items in ``present``, the others)."""
    keys = {_go_key(item) for item in present}
    return ([item for item in items if _go_key(item) in keys],
            [item for item in items if _go_key(item) not in keys])


def _partition_maps(items: list[Any], present: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """``partitionMapsByPresentInList``: by merge key."""
    in_patch: list[Any] = []
    server_only: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type("map[string]interface {}", item)
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        found = _find_by_key(present, merge_key, item[merge_key]) is not None
        (in_patch if found else server_only).append(item)
    return in_patch, server_only


def _normalize_element_order(patch_items: list[Any], server_only: list[Any], patch_order: list[Any],
                             server_order: list[Any], merge_key: str, element_type: type) -> list[Any]:
    """``normalizeElementOrder``: patch items in the patch's order, server-only items in the
    server's, then the two interleaved by the server's order."""
    patch_items = _sort_by_order(patch_items, patch_order, merge_key, element_type)
    server_only = _sort_by_order(server_only, server_order, merge_key, element_type)
    return _merge_sorted(server_only, patch_items, server_order, merge_key, element_type)


def _index_function(merge_key: str, element_type: type) -> Callable[[list[Any], Any], int]:
    """``index``: the position in a list of an item (of its merge key's value, for maps), or -1."""
    def value_of(item: Any) -> Any:
        if element_type is not dict:
            return item
        return item.get(merge_key) if isinstance(item, dict) else None

    def index(items: list[Any], item: Any) -> int:
        wanted = value_of(item)
        return next((i for i, other in enumerate(items) if go_equal(wanted, value_of(other))), -1)
    return index


def _sort_by_order(items: list[Any], order: list[Any], merge_key: str, element_type: type) -> list[Any]:
    """``normalizeSliceOrder``: Go's ``sort.SliceStable`` with its ``less`` (true whenever either
    item is missing from ``order``, so not an ordering: the exact algorithm matters), deletion
    directives moved to the end."""
    deletions: list[Any] = []
    if element_type is dict:
        for item in (*items, *order):
            if not isinstance(item, dict):
                raise _bad_arg_type("map[string]interface {}", item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
        items, deletions = _split_deletions(items)
    index = _index_function(merge_key, element_type)

    def less(i: int, j: int) -> bool:
        ii = index(order, items[i])
        if ii >= 0:
            ij = index(order, items[j])
            if ij >= 0:
                return ii < ij
        return True
    items = list(items)
    _go_stable_sort(items, less)
    return items + deletions


def _split_deletions(items: list[Any]) -> tuple[list[Any], list[Any]]:
    """``extractToDeleteItems``: (items to keep, ``$patch: delete`` items)."""
    keep: list[Any] = []
    delete: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type("map[string]interface {}", item)
        is_delete = DIRECTIVE_MARKER in item and go_equal(item[DIRECTIVE_MARKER], DELETE_DIRECTIVE)
        (delete if is_delete else keep).append(item)
    return keep, delete


def _merge_sorted(left: list[Any], right: list[Any], server_order: list[Any], merge_key: str,
                  element_type: type) -> list[Any]:
    """``mergeSortedSlice``: insert the server-only items (``left``) among the patch items, before
    the first patch item the server order puts after them."""
    index = _index_function(merge_key, element_type)
    merged: list[Any] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            merged.append(right[j])
            j += 1
        elif j >= len(right):
            merged.append(left[i])
            i += 1
        else:
            li, ri = index(server_order, left[i]), index(server_order, right[j])
            if li >= 0 and ri >= 0 and li < ri:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                j += 1
    return merged


# ----------------------------------------------------------------------------- Go's sort.SliceStable


Less = Callable[[int, int], bool]


def _go_stable_sort(data: list[Any], less: Less) -> None:
    """``sort.SliceStable`` (``stable_func``): insertion sort of blocks of 20, then SymMerge."""
    n = len(data)
    block = 20
    start = 0
    while start + block <= n:
        _insertion_sort(data, less, start, start + block)
        start += block
    _insertion_sort(data, less, start, n)
    while block < n:
        start = 0
        while start + 2 * block <= n:
            _sym_merge(data, less, start, start + block, start + 2 * block)
            start += 2 * block
        if start + block < n:
            _sym_merge(data, less, start, start + block, n)
        block *= 2


def _swap(data: list[Any], i: int, j: int) -> None:
    data[i], data[j] = data[j], data[i]


def _insertion_sort(data: list[Any], less: Less, a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(j, j - 1):
            _swap(data, j, j - 1)
            j -= 1


def _sym_merge(data: list[Any], less: Less, a: int, m: int, b: int) -> None:
    """``symMerge_func``, line by line."""
    if m - a == 1:
        i, j = m, b
        while i < j:
            h = (i + j) >> 1
            if less(h, a):
                i = h + 1
            else:
                j = h
        for k in range(a, i - 1):
            _swap(data, k, k + 1)
        return
    if b - m == 1:
        i, j = a, m
        while i < j:
            h = (i + j) >> 1
            if not less(m, h):
                i = h + 1
            else:
                j = h
        for k in range(m, i, -1):
            _swap(data, k, k - 1)
        return
    mid = (a + b) >> 1
    n = mid + m
    if m > mid:
        start, r = n - b, mid
    else:
        start, r = a, m
    p = n - 1
    while start < r:
        c = (start + r) >> 1
        if not less(p - c, c):
            start = c + 1
        else:
            r = c
    end = n - start
    if start < m < end:
        _rotate(data, start, m, end)
    if a < start < mid:
        _sym_merge(data, less, a, start, mid)
    if mid < end < b:
        _sym_merge(data, less, mid, end, b)


def _rotate(data: list[Any], a: int, m: int, b: int) -> None:
    """``rotate_func``: block swaps, as Go does them (``less`` reads positions, so the swaps count)."""
    i, j = m - a, b - m
    while i != j:
        if i > j:
            _swap_range(data, m - i, m, j)
            i -= j
        else:
            _swap_range(data, m - i, m + j - i, i)
            j -= i
    _swap_range(data, m - i, m, i)


def _swap_range(data: list[Any], a: int, b: int, n: int) -> None:
    for k in range(n):
        _swap(data, a + k, b + k)
