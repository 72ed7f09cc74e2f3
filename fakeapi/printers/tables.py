"""Server-side printing: objects as ``meta.k8s.io/v1`` Tables, for ``Accept: ...;as=Table``.

Three table convertors, as in kube-apiserver:

* **Built-in printers** (``printers.PRINTERS``): ``pkg/printers/internalversion/printers.go``
  through ``pkg/printers/storage``'s ``TableConvertor`` (always ``Wide``).
* **Default** (``rest.NewDefaultTableConvertor``, ``apiserver/pkg/registry/rest/table.go``): for
  built-in resources without a printer (roles, cluster roles, limit ranges, CRDs, ...): ``Name``
  and ``Created At`` (type ``date``, the creation time in RFC 3339, UTC).
* **Custom resources** (apiextensions-apiserver ``registry/customresource/tableconvertor``):
  ``Name`` then the CRD version's ``additionalPrinterColumns``, evaluated as client-go JSONPath;
  a version without any gets the single ``Age`` column of ``serveDefaultColumnsIfEmpty``.

``table`` assembles the Table (``endpoints/handlers/response.go`` ``asTable``): list metadata,
column definitions, and per row the cells, the row conditions and the object as asked by
``includeObject`` (``Metadata`` by default: a ``PartialObjectMetadata``). A watch converts each
event's object on its own, with column definitions on the first event only
(``watchEmbeddedEncoder`` sets ``NoHeaders`` after it): ``WatchTables``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

from ..apis.catalogue import ResourceType
from ..machinery.golang import go_float, go_json
from ..machinery.status import (
    StatusError,
    bad_request,
    field_errors_message,
    invalid_error,
)
from .printers import NAME, PRINTERS, Cell, Column, Obj, Printer, doc, parse_time, since

META_V1 = "meta.k8s.io/v1"
INCLUDE_OBJECT_POLICIES = ("Metadata", "Object", "None")


class TableConvertor(Protocol):
    """What turns objects of one resource into table rows (kube's ``rest.TableConvertor``)."""

    def column_definitions(self) -> list[dict[str, Any]]: ...

    def cells(self, obj: Obj, now: datetime) -> list[Cell]: ...

    def conditions(self, obj: Obj) -> list[dict[str, str]] | None: ...


# --- rest.NewDefaultTableConvertor -------------------------------------------------------------

_CREATED_AT = Column("Created At", doc("metav1.ObjectMeta", "creationTimestamp"), type="date")
_ZERO_TIME = "0001-01-01T00:00:00Z"


class DefaultTableConvertor:
    """``rest.NewDefaultTableConvertor``: the name and the creation time in RFC 3339, UTC."""

    def column_definitions(self) -> list[dict[str, Any]]:
        return [NAME.definition(), _CREATED_AT.definition()]

    def cells(self, obj: Obj, now: datetime) -> list[Cell]:
        metadata = obj.get("metadata") or {}
        created = parse_time(metadata.get("creationTimestamp"))
        text = _ZERO_TIME if created is None else created.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return [metadata.get("name", ""), text]

    def conditions(self, obj: Obj) -> None:
        return None


# --- client-go JSONPath, the subset printer columns use ----------------------------------------

class JSONPathError(ValueError):
    """A path kube's parser rejects, or an evaluation error (which empties the cell)."""


_FIELD = re.compile(r"\.(\.)?((?:\\.|[^.\[\]\\ ])+|\*)")
_BRACKET = re.compile(r"\[\s*(?:'([^']*)'|\"([^\"]*)\"|(\*)|(-?\d*)\s*(?::\s*(-?\d*)\s*(?::\s*(-?\d*))?)?)\s*\]")
_FILTER = re.compile(r"\[\?\(\s*@((?:\.[^.\s=!<>()]+)+)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)\]")
_MISSING = object()


@dataclass(frozen=True, slots=True)
class _Step:
    """One JSONPath step: ``field`` (``*`` for all), ``recursive`` field, ``slice`` or ``filter``."""

    kind: str
    field: str = ""
    bounds: tuple[int | None, int | None, int | None] = (None, None, None)
    index: bool = False  # a single index [n], not a slice
    left: tuple[_Step, ...] = ()
    operator: str = ""
    right: Any = _MISSING


def _literal(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise JSONPathError(f"unrecognized filter literal {text!r}") from None


def _optional_int(text: str | None) -> int | None:
    return int(text) if text not in (None, "") else None


def parse_jsonpath(path: str) -> tuple[_Step, ...]:
    """The steps of a printer column's ``jsonPath`` (``.spec.replicas``, ``.items[0].x``,
    ``.status.conditions[?(@.type=="Ready")].status``, ``..name``, ``[*]``, slices)."""
    text = path.strip()
    text = text.removeprefix("{").removesuffix("}").removeprefix("$")
    steps: list[_Step] = []
    position = 0
    while position < len(text):
        if match := _FIELD.match(text, position):
            recursive, field = match.group(1), match.group(2).replace("\\.", ".")
            steps.append(_Step("recursive" if recursive else "field", field))
        elif match := _FILTER.match(text, position):
            left = parse_jsonpath(match.group(1))
            right = _MISSING if match.group(2) is None else _literal(match.group(3))
            steps.append(_Step("filter", left=left, operator=match.group(2) or "exists", right=right))
        elif match := _BRACKET.match(text, position):
            quoted = match.group(1) if match.group(1) is not None else match.group(2)
            if quoted is not None:
                steps.append(_Step("field", quoted))
            elif match.group(3):
                steps.append(_Step("field", "*"))
            else:
                start, end, step = match.group(4), match.group(5), match.group(6)
                single = end is None and step is None
                if single and not start:
                    raise JSONPathError(f"invalid array index in {path!r}")
                steps.append(_Step("slice", bounds=(_optional_int(start), _optional_int(end), _optional_int(step)),
                                   index=single))
        else:
            raise JSONPathError(f"unrecognized character in action: {text[position:]!r}")
        position = match.end()
    return tuple(steps)


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return list(value)
    return []


def _apply_field(values: Iterable[Any], field: str) -> list[Any]:
    found = []
    for value in values:
        if field == "*":
            found.extend(_children(value))
        elif isinstance(value, dict) and field in value:
            found.append(value[field])
    return found


def _descendants(value: Any) -> Iterable[Any]:
    yield value
    for child in _children(value):
        yield from _descendants(child)


def _apply_slice(values: Iterable[Any], step: _Step) -> list[Any]:
    """``evalArray``: out-of-range indexes are errors, as in kube."""
    found: list[Any] = []
    for value in values:
        if value is None:
            continue
        if not isinstance(value, list):
            raise JSONPathError("not array or slice")
        start, end, stride = step.bounds
        length = len(value)
        start = 0 if start is None else start + length if start < 0 else start
        end = (start + 1 if step.index else length) if end is None else end + length if end < 0 else end
        if end == start:
            continue
        if not 0 <= start < length or not 0 <= end <= length or start > end:
            raise JSONPathError("array index out of bounds")
        if stride is not None and stride <= 0:
            raise JSONPathError("step must be > 0")
        found.extend(value[start:end:stride or 1])
    return found


_COMPARISONS = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
}


def _comparable(left: Any, right: Any) -> bool:
    """Go template comparisons need the same basic kind (bool, number, string)."""
    kinds = [bool if isinstance(v, bool) else (int, float) if isinstance(v, (int, float)) else type(v)
             for v in (left, right)]
    return kinds[0] == kinds[1] and kinds[0] in (bool, (int, float), str)


def _apply_filter(values: Iterable[Any], step: _Step) -> list[Any]:
    found = []
    for value in values:
        if not isinstance(value, list):
            raise JSONPathError("not array or slice and cannot be filtered")
        for item in value:
            lefts = evaluate_jsonpath(step.left, item)
            if step.operator == "exists":
                if lefts:
                    found.append(item)
                continue
            if not lefts:
                continue
            if len(lefts) > 1:
                raise JSONPathError("can only compare one element at a time")
            if not _comparable(lefts[0], step.right):
                raise JSONPathError("incompatible types for comparison")
            if _COMPARISONS[step.operator](lefts[0], step.right):
                found.append(item)
    return found


def evaluate_jsonpath(steps: Sequence[_Step], data: Any) -> list[Any]:
    """``FindResults(data)[0]`` with ``AllowMissingKeys(true)``: every value the path reaches."""
    values = [data]
    for step in steps:
        values = [value for value in values if value is not None]  # template.Indirect: nil is skipped
        if step.kind == "field":
            values = _apply_field(values, step.field)
        elif step.kind == "recursive":
            values = _apply_field([d for v in values for d in _descendants(v)], step.field)
        elif step.kind == "slice":
            values = _apply_slice(values, step)
        else:
            values = _apply_filter(values, step)
    return values


# --- custom resources --------------------------------------------------------------------------

_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})", re.IGNORECASE)
_AGE_COLUMN = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp",
               "description": doc("metav1.ObjectMeta", "creationTimestamp")}


def _printed(value: Any) -> str:
    """JSONPath ``PrintResults`` of one value: JSON for maps and lists, Go's ``%v`` otherwise."""
    if isinstance(value, (dict, list)):
        return go_json(value)
    if value is None:
        return "<no value>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    return str(value)


def _date_cell(value: Any, now: datetime) -> Cell:
    if not isinstance(value, str):
        return None
    if value in ("", "null"):
        return "<unknown>"
    if not _RFC3339.fullmatch(value):
        return "<invalid>"
    return since(value, now)


def custom_cell(column_type: str, value: Any, now: datetime) -> Cell:
    """apiextensions' ``cellForJSONValue`` (and the ``string`` case of ``ConvertToTable``)."""
    if column_type == "string":
        return _printed(value)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if column_type == "integer":
        return int(value) if number else None
    if column_type == "number":
        return float(value) if number else None
    if column_type == "boolean":
        return value if isinstance(value, bool) else None
    if column_type == "date":
        return _date_cell(value, now)
    return None


def custom_column_definitions(additional_printer_columns: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """The column definitions of a custom resource version: ``Name``, then its printer columns
    (``Age`` when it has none)."""
    return CustomResourceTableConvertor(additional_printer_columns).column_definitions()


class CustomResourceTableConvertor:
    """apiextensions-apiserver's ``tableconvertor.New`` for one CRD version's printer columns. A
    column whose path does not parse ends the columns, as kube keeps the ones before it."""

    def __init__(self, additional_printer_columns: Sequence[Mapping[str, Any]] | None) -> None:
        self.columns: list[tuple[Column, tuple[_Step, ...]]] = []
        for column in additional_printer_columns or [_AGE_COLUMN]:
            path = column.get("jsonPath", "")
            try:
                steps = parse_jsonpath(path)
            except JSONPathError:
                break
            description = column.get("description") or f"Custom resource definition column (in JSONPath format): {path}"
            self.columns.append((Column(column.get("name", ""), description, type=column.get("type", ""),
                                        format=column.get("format") or "", priority=column.get("priority") or 0),
                                 steps))

    def column_definitions(self) -> list[dict[str, Any]]:
        return [NAME.definition(), *(column.definition() for column, _ in self.columns)]

    def cells(self, obj: Obj, now: datetime) -> list[Cell]:
        cells: list[Cell] = [(obj.get("metadata") or {}).get("name", "")]
        for column, steps in self.columns:
            try:
                results = evaluate_jsonpath(steps, obj)
            except JSONPathError:
                results = []
            cells.append(custom_cell(column.type, results[0], now) if results else None)
        return cells

    def conditions(self, obj: Obj) -> None:
        return None


# --- choosing a convertor ----------------------------------------------------------------------

_DEFAULT = DefaultTableConvertor()


def table_convertor(resource_type: ResourceType,
                    additional_printer_columns: Sequence[Mapping[str, Any]] | None = None) -> TableConvertor:
    """The convertor kube-apiserver uses for a resource: a custom resource's printer columns (pass
    its served version's ``additionalPrinterColumns``), a built-in printer, or the default."""
    if resource_type.custom:
        return CustomResourceTableConvertor(additional_printer_columns)
    return PRINTERS.get((resource_type.group, resource_type.plural), _DEFAULT)


def column_definitions(resource_type: ResourceType) -> list[dict[str, Any]]:
    """The ``columnDefinitions`` of a built-in resource's tables."""
    return table_convertor(resource_type).column_definitions()


def row_cells(resource_type: ResourceType, obj: Obj, now: datetime) -> list[Cell]:
    """The ``cells`` of a built-in resource's object."""
    return table_convertor(resource_type).cells(obj, now)


# --- the Table ---------------------------------------------------------------------------------

def validate_include_object(include_object: str | None) -> StatusError | None:
    """``ValidateTableOptions``: the 400 for an ``includeObject`` kube does not know, else ``None``."""
    if include_object in (*INCLUDE_OBJECT_POLICIES, "", None):
        return None
    error = invalid_error("includeObject", include_object, "must be 'Metadata', 'Object', 'None', or empty")
    return bad_request(f"Unable to convert to Table as requested: {field_errors_message([error])}")


def _row_object(obj: Obj, include_object: str, api_version: str) -> Obj | None:
    if include_object == "None":
        return None
    if include_object == "Object":
        return obj
    return {"kind": "PartialObjectMetadata", "apiVersion": api_version, "metadata": obj.get("metadata") or {}}


def _table_metadata(objects: Sequence[Obj], list_meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """``ListMeta`` of the list converted, or the single object's resource version."""
    if list_meta is None:
        version = (objects[0].get("metadata") or {}).get("resourceVersion") if len(objects) == 1 else None
        return {"resourceVersion": version} if version else {}
    return {key: list_meta[key] for key in ("resourceVersion", "continue", "remainingItemCount")
            if list_meta.get(key) not in (None, "")}


def table(resource_type: ResourceType, objects: Sequence[Obj], *, list_meta: Mapping[str, Any] | None = None,
          include_object: str | None = "Metadata", now: datetime, api_version: str = META_V1,
          additional_printer_columns: Sequence[Mapping[str, Any]] | None = None,
          no_headers: bool = False) -> dict[str, Any]:
    """The Table of a LIST (``list_meta`` given: the list's ``metadata``) or of one object (GET,
    a watch event). ``api_version`` is the Table's (``meta.k8s.io/v1`` or ``v1beta1``), which
    row ``PartialObjectMetadata`` share; ``no_headers`` leaves ``columnDefinitions`` null.
    ``include_object`` must have passed ``validate_include_object``."""
    convertor = table_convertor(resource_type, additional_printer_columns)
    policy = include_object or "Metadata"
    if list_meta is not None and isinstance(convertor, Printer):
        objects = convertor.list_order(objects)
    rows = []
    for obj in objects:
        row: dict[str, Any] = {"cells": convertor.cells(obj, now)}
        conditions = convertor.conditions(obj)
        if conditions:
            row["conditions"] = conditions
        row["object"] = _row_object(obj, policy, api_version)
        rows.append(row)
    return {
        "kind": "Table",
        "apiVersion": api_version,
        "metadata": _table_metadata(objects, list_meta),
        "columnDefinitions": None if no_headers else convertor.column_definitions(),
        # kube's default convertor appends rows to a nil slice: none is JSON null; the others make one
        "rows": rows if rows or not isinstance(convertor, DefaultTableConvertor) else None,
    }


class WatchTables:
    """The Tables of one watch's events: columns on the first only (``watchEmbeddedEncoder``)."""

    def __init__(self, resource_type: ResourceType, *, include_object: str | None = "Metadata",
                 api_version: str = META_V1,
                 additional_printer_columns: Sequence[Mapping[str, Any]] | None = None) -> None:
        self._resource_type = resource_type
        self._include_object = include_object
        self._api_version = api_version
        self._printer_columns = additional_printer_columns
        self._sent_headers = False

    def event_object(self, obj: Obj, now: datetime) -> dict[str, Any]:
        """The Table to put in a watch event's ``object`` (a BOOKMARK's too; not an ERROR's
        Status, which kube sends as it is)."""
        result = table(self._resource_type, [obj], include_object=self._include_object, now=now,
                       api_version=self._api_version, additional_printer_columns=self._printer_columns,
                       no_headers=self._sent_headers)
        self._sent_headers = True
        return result
