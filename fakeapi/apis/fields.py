"""Reading, defaulting and setting fields of decoded JSON objects the way Go's decoder sees them:
a field that is absent and a field that is ``null`` are the same nil pointer (or zero value), so
defaults apply to both; a struct field that is not a pointer always exists once decoded (kube
writes it back as ``{}`` when it is empty)."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]
_EMPTY: Json = {}


def struct(parent: Json, key: str) -> Json:
    """The object at ``parent[key]``, made an empty one when absent or null (a non-pointer
    struct field, or a pointer a defaulter allocates)."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = parent[key] = {}
    return value


def default(parent: Json, key: str, value: Any) -> None:
    """``if obj.Field == nil { obj.Field = value }``, also for strings that are ``""`` when the
    Go field is a plain string (callers pass such fields only)."""
    if parent.get(key) is None:
        parent[key] = value


def default_empty(parent: Json, key: str, value: Any) -> None:
    """``if obj.Field == "" / len(obj.Field) == 0 { obj.Field = value }``: strings, slices and
    maps whose zero value is empty, and numbers whose zero value is 0."""
    if not parent.get(key):
        parent[key] = value


def items(parent: Json | None, key: str) -> list[Json]:
    """The objects of a list field (none when absent or null); non-objects are skipped, as
    decoding would have refused them before any rule ran."""
    if not isinstance(parent, dict):
        return []
    value = parent.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def values(parent: Json | None, key: str) -> list[Any]:
    """The values of a list field of any element type (none when absent, null or not a list)."""
    value = parent.get(key) if isinstance(parent, dict) else None
    return value if isinstance(value, list) else []


def get(obj: Json | None, *path: str) -> Any:
    """The value at a path of object keys, None where any step is absent or not an object."""
    node: Any = obj
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def set_or_drop(obj: Json, key: str, value: Any) -> None:
    """``obj.Field = value`` of a pointer field: None (nil) is no key at all."""
    if value is None:
        obj.pop(key, None)
    else:
        obj[key] = value


def str_field(obj: Json | None, name: str) -> str:
    """A string field, "" when absent (Go's zero value)."""
    value = obj.get(name) if obj else None
    return value if isinstance(value, str) else ""


def int_field(obj: Json | None, name: str) -> int:
    """An integer field, 0 when absent (a bool is not one, as JSON tells them apart)."""
    value = obj.get(name) if obj else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def list_field(obj: Json | None, name: str) -> list[Any]:
    """A list field, [] when absent."""
    value = obj.get(name) if obj else None
    return value if isinstance(value, list) else []


def map_field(obj: Json | None, name: str) -> Json:
    """An object field, {} when absent: the same empty dict every time, so what it returns is
    read, never written to (``struct`` is the writer's)."""
    value = obj.get(name) if obj else None
    return value if isinstance(value, dict) else _EMPTY
