"""The type checker of policy expressions (``fakeapi.cel.typecheck``) alone: cel-go's errors
and their display over schema-typed variables, error types that do not cascade, variables'
inferred types, and the expressions it declines to check (None: never a warning kube would not
give). The displays asserted here are kube's, as the real controller wrote them
(tests/kasdiff/test_policy_status_type_checking.py compares whole policies)."""

from __future__ import annotations

import pytest

from fakeapi.cel.typecheck import check, checked, infer, output_type_name
from fakeapi.cel.types import DYN, INT, NULL, STRING, CelType, decl_type, type_of_decl

WIDGET = type_of_decl(decl_type({"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "size": {"type": "integer"}, "color": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}}, "port": {"x-kubernetes-int-or-string": True},
    "created": {"type": "string", "format": "date-time"}}}}}, True) or DYN)
OBJECT = {"object": WIDGET, "oldObject": WIDGET}


def _display(column: int, message: str, source: str) -> str:
    return f"ERROR: <input>:1:{column}: {message}\n | {source}\n | {'.' * (column - 1)}^"


@pytest.mark.parametrize(("source", "column", "message"), [
    ("object.spec.sizze > 1", 12, "undefined field 'sizze'"),
    ("has(object.spec.zzz)", 4, "undefined field 'zzz'"),
    ("object.spec.color == 1", 19, "found no matching overload for '_==_' applied to '(string, int)'"),
    ("object.spec.tags.exists(t, t.foo == 1)", 29, "type 'string' does not support field selection"),
    ("-object.spec.color == 'a'", 1, "found no matching overload for '-_' applied to '(string)'"),
    ("object.spec.color.startsWith(1)", 29, "found no matching overload for 'startsWith' applied to 'string.(int)'"),
    ("object.spec.created < 'x'", 21, "found no matching overload for '_<_' applied to '(timestamp, string)'"),
    ("object.spec.size - 'a' == 1", 18, "found no matching overload for '_-_' applied to '(int, string)'"),
    ("object.spec.tags.map(t, t.size()) + ['a'] == []", 35,
     "found no matching overload for '_+_' applied to '(list(int), list(string))'"),
    ("(object.spec.size > 1 ? object.spec.size : 'a') == 'a'", 23,
     "found no matching overload for '_?_:_' applied to '(bool, int, string)'"),
    ("object.spec.size == 1.0", 18, "found no matching overload for '_==_' applied to '(int, double)'"),
    ("object.spec.color == null", 19, "found no matching overload for '_==_' applied to '(string, null)'"),
    ("object.spec.size && true", 12, "expected type 'bool' but found 'int'"),
    ("object.spec.tags.all(t, t.size())", 31, "expected type 'bool' but found 'int'"),
    ("!object.spec.size", 1, "found no matching overload for '!_' applied to '(int)'"),
    ("size(object.spec.size) == 1", 5, "found no matching overload for 'size' applied to '(int)'"),
    ("int(object.spec.tags) == 1", 4, "found no matching overload for 'int' applied to '(list(string))'"),
    # errors cel-go finds in a macro's expansion, located at the macro's '('
    ("object.spec.tags.exists_one(t, t.size())", 28, "found no matching overload for '_?_:_' applied to '(int, int, int)'"),
    ("object.spec.tags.filter(t, t.size()) == []", 24,
     "found no matching overload for '_?_:_' applied to '(int, list(string), list(string))'"),
    ("object.spec.tags.map(t, t.size(), t) == []", 21,
     "found no matching overload for '_?_:_' applied to '(int, list(string), list(string))'"),
    ("object.spec.tags.sortBy(t, [t]) == []", 24,
     "found no matching overload for '@sortByAssociatedKeys' applied to 'list(string).(list(list(string)))'"),
    ("object.spec.labels.sortBy(k, k) == []", 26,
     "found no matching overload for '@sortByAssociatedKeys' applied to 'map(string, string).(list(string))'"),
    ("optional.of(object.spec.size).optFlatMap(s, s + 1).hasValue()", 41,
     "found no matching overload for '_?_:_' applied to '(bool, int, optional_type(dyn))'"),
    ("object.spec.tags.hasValue()", 26, "found no matching overload for 'hasValue' applied to 'list(string).()'"),
    ("object.spec.labels.transformMap(k, v, 1, v).size() > 0", 32,
     "found no matching overload for '_?_:_' applied to '(int, map(string, string), map(string, string))'"),
    ("object.spec.labels.transformMapEntry(k, v, v).size() > 0", 37,
     "found no matching overload for 'cel.@mapInsert' applied to '(map(dyn, dyn), string)'"),
    # an empty literal's element type is free: what it is joined with binds it
    ("(object.spec.size > 1 ? [] : object.spec.tags) == [1]", 48,
     "found no matching overload for '_==_' applied to '(list(string), list(int))'"),
    ("[[], object.spec.tags] == [[1]]", 24,
     "found no matching overload for '_==_' applied to '(list(list(string)), list(list(int)))'"),
    ("(object.spec.size > 1 ? {} : object.spec.labels) == {1: 2}", 50,
     "found no matching overload for '_==_' applied to '(map(string, string), map(int, int))'"),
    ("object.spec.tags.?x.hasValue()", 17, "type 'list(string)' does not support field selection"),
    ("optional.of(object.spec.size).?x.hasValue()", 30, "type 'int' does not support field selection"),
    ("(object.spec.size > 1 ? optional.of(object.spec.size) : optional.none()) == optional.of('a')", 74,
     "found no matching overload for '_==_' applied to '(optional_type(int), optional_type(string))'"),
    ("[] == 1", 4, "found no matching overload for '_==_' applied to '(list(dyn), int)'"),
    ("[[], [1], ['a']].size() > 0", 11, "expected type 'list(int)' but found 'list(string)'"),
    ("[[], object.spec.size].size() > 0", 17, "expected type 'list(dyn)' but found 'int'"),
    ("object.spec.labels.transformMap(k, v, v.size())['a'] == 'x'", 54,
     "found no matching overload for '_==_' applied to '(int, string)'"),
])
def test_an_error_is_shown_as_cel_go_shows_it(source: str, column: int, message: str) -> None:
    assert check(source, OBJECT, {}) == _display(column, message, source)


def test_errors_are_in_source_order_and_do_not_cascade() -> None:
    """A failed node matches any overload: ``object.foo.bar`` is one error, and ``baz + 1`` an
    int (only int's overload takes an int), which cannot equal a string."""
    source = "object.foo.bar == 1 && object.spec.baz + 1 == 'a'"
    assert check(source, OBJECT, {}) == "\n".join((
        _display(7, "undefined field 'foo'", source), _display(35, "undefined field 'baz'", source),
        _display(44, "found no matching overload for '_==_' applied to '(int, string)'", source)))


def test_a_clean_expression_has_no_errors() -> None:
    assert check("object.spec.size > 1 && object.spec.labels.all(k, object.spec.labels[k].size() < 10) "
                 "&& object.spec.port == 'a' && object.spec.tags.exists(t, t.startsWith('x')) && object.spec.size < 1.5 "
                 "&& object.spec.created != null && object.spec != null", OBJECT, {}) == ""


def test_extension_functions_of_known_signatures_are_typed() -> None:
    source = "object.spec.color.split('-')[0].size() == 'a' && object.spec.tags.join(',').indexOf('x') == 'b'"
    assert check(source, OBJECT, {}) == "\n".join((
        _display(40, "found no matching overload for '_==_' applied to '(int, string)'", source),
        _display(90, "found no matching overload for '_==_' applied to '(int, string)'", source)))
    assert check("object.spec.size.split('-') == []", OBJECT, {}) is None  # not claimed: ext overloads unknown here


def test_a_keyword_names_its_escaped_field() -> None:
    meta = type_of_decl(decl_type({"type": "object", "properties": {"namespace": {"type": "string"}}}, False) or DYN)
    assert check("object.namespace == 'a'", {"object": meta}, {}) == ""


def test_an_error_on_a_later_line_names_it() -> None:
    assert check("true &&\n  object.nope", OBJECT, {}) == "ERROR: <input>:2:9: undefined field 'nope'\n |   object.nope\n | ........^"


def test_variables_have_their_expressions_types() -> None:
    size = infer("object.spec.tags.size()", OBJECT, {})
    assert size == INT
    assert infer("object.nope", OBJECT, {}) == DYN  # a variable with errors is a dyn, as kube declares it
    assert check("variables.n == 'a'", OBJECT, {"n": INT}) == _display(
        13, "found no matching overload for '_==_' applied to '(int, string)'", "variables.n == 'a'")
    assert check("variables.bad == 'a'", OBJECT, {"bad": DYN}) == ""


def test_sort_by_and_the_optional_functions_are_typed() -> None:
    assert infer("object.spec.tags.sortBy(t, t.size())", OBJECT, {}) == CelType("list", (STRING,))
    assert infer("object.spec.port.sortBy(t, t)", OBJECT, {}) == DYN
    assert infer("optional.of(object.spec.size).optMap(s, s + 1)", OBJECT, {}) == CelType("optional", (INT,))
    assert infer("optional.of(object.spec.size).optFlatMap(s, optional.of(s)).value()", OBJECT, {}) == INT
    assert infer("optional.none().hasValue()", OBJECT, {}) == CelType("bool")


@pytest.mark.parametrize("source", [
    "request.nope == 1",  # a variable whose type is not known here
    "variables.unknown == 1",
    "object.spec == object.spec.labels",  # kube names object types per check
    "object.spec.tags.optMap(t, t)",  # cel-go's errors of hasValue and value in the macro's expansion
    "object.spec.color.lowerAscii().reverse() == 1",  # a function not known here
])
def test_what_is_not_checked_as_cel_go_checks_it_gives_none(source: str) -> None:
    assert check(source, OBJECT, {}) is None


def test_params_and_objects_are_checked_alike() -> None:
    params = CelType("map", (CelType("string"), CelType("string")))
    assert check("params.x == object.spec.size", {**OBJECT, "params": params}, {}) == _display(
        10, "found no matching overload for '_==_' applied to '(string, int)'", "params.x == object.spec.size")


def test_an_undeclared_name_is_an_error_where_it_stands() -> None:
    source = "object.foo == params.x"
    assert check(source, OBJECT, {}, frozenset(("params",))) == "\n".join((
        _display(7, "undefined field 'foo'", source),
        _display(15, "undeclared reference to 'params' (in container '')", source)))


@pytest.mark.parametrize(("source", "column", "message"), [
    ("object.name.startsWith(1)", 23, "found no matching overload for 'startsWith' applied to 'dyn.(int)'"),
    ("object.name.size() == 'a'", 20, "found no matching overload for '_==_' applied to '(int, string)'"),
    ("object.name + 1 == 'a'", 17, "found no matching overload for '_==_' applied to '(int, string)'"),
])
def test_a_dyn_binds_to_the_overloads_its_use_allows(source: str, column: int, message: str) -> None:
    """kube's write-time compilation declares ``object`` a dyn: a string member's receiver, an
    operand of arithmetic with an int, are still typed by the other operands."""
    assert check(source, {"object": DYN}, {}) == _display(column, message, source)


def test_an_expressions_type_is_named_as_kube_names_it() -> None:
    """``must evaluate to bool but got list(dyn)``: a literal of dyns is a list of dyn; a null
    is cel-go's ``null_type`` there, though its overload messages say ``null``."""
    result = checked("object.items.map(i, i)", {"object": DYN}, {})
    assert result is not None and result.issues == ""
    assert output_type_name(result.result) == "list(dyn)"
    assert output_type_name(NULL) == "null_type" and output_type_name(STRING) == "string"
    assert output_type_name(WIDGET) is None  # kube names object types per check


@pytest.mark.parametrize(("source", "column", "message"), [
    ("object.a in [1, 'a']", 17, "expected type 'int' but found 'string'"),
    ("[object.x, 1].size() == 2", 12, "expected type 'dyn' but found 'int'"),
    ("[1, 'a', 'b'].size() == 3", 5, "expected type 'int' but found 'string'"),  # the validator stops at a list's first
    ("[[1], ['a']].size() == 2", 7, "expected type 'list(int)' but found 'list(string)'"),
    ("[null, 1].size() == 2", 8, "expected type 'null' but found 'int'"),
])
def test_aggregate_literals_are_homogeneous(source: str, column: int, message: str) -> None:
    assert check(source, {"object": DYN}, {}) == _display(column, message, source)


def test_each_entry_of_another_type_than_a_maps_first_is_an_error() -> None:
    source = "{'a': 1, 2: 'x', 'c': 'y'}.size() == 3"
    assert check(source, {"object": DYN}, {}) == "\n".join((
        _display(10, "expected type 'string' but found 'int'", source), _display(13, "expected type 'int' but found 'string'", source),
        _display(23, "expected type 'int' but found 'string'", source)))


def test_literals_are_found_heterogeneous_only_where_the_checker_finds_no_error() -> None:
    """kube's homogeneous aggregate literal validator runs on what cel-go's checker passed."""
    source = "[object.spec.size, object.spec.color].size() == 'x'"
    assert check(source, OBJECT, {}) == _display(46, "found no matching overload for '_==_' applied to '(int, string)'", source)


@pytest.mark.parametrize(("source", "column", "message"), [
    ("[?object.spec.size].size() == 1", 14, "expected type 'optional_type(int)' but found 'int'"),
    ("{?'k': object.spec.tags}.size() == 1", 19, "expected type 'optional_type(list(string))' but found 'list(string)'"),
    # the optional error alone: the literal's types then differ, which the validator does not check
    ("[object.spec.size, ?object.spec.color].size() == 2", 32, "expected type 'optional_type(string)' but found 'string'"),
])
def test_an_entry_marked_optional_must_be_an_optional(source: str, column: int, message: str) -> None:
    assert check(source, OBJECT, {}) == _display(column, message, source)
    # a dyn one: cel-go's checker passes it, then kube's validator fails on it (a Go panic);
    # an optional index of a dyn is a dyn in cel-go, its optional field an optional
    assert check("[?object.spec.port].size() == 1", OBJECT, {}) is None
    assert check("[?object.spec.port[?0]].size() == 1", OBJECT, {}) is None
    assert check("[?object.spec.port.?x, ?object.spec.?port.?y].size() == 1", OBJECT, {}) == ""
    # an optional index of an optional dyn is an optional of what the literal binds it to
    assert check("{?'a': object.spec.?port[?0], 'b': 'x'}.size() == 1", OBJECT, {}) is None


@pytest.mark.parametrize(("source", "column", "message"), [
    ("[?object.spec.?size, ?object.spec.tags[?0]].size() == 1", 39, "expected type 'int' but found 'string'"),
    ("object.spec.?size == 1", 19, "found no matching overload for '_==_' applied to '(optional_type(int), int)'"),
    ("[object.spec.?color, ?object.spec.?color].size() == 2", 34,
     "expected type 'optional_type(string)' but found 'string'"),
])
def test_optional_selections_and_indexes_are_optionals(source: str, column: int, message: str) -> None:
    assert check(source, OBJECT, {}) == _display(column, message, source)
    assert check("{?'a': object.?spec.?labels[?'k'], 'b': 'x'}.size() == 1", OBJECT, {}) == ""


def test_a_conditional_with_a_dyn_branch_is_a_dyn() -> None:
    for source in ("object.x > 1 ? object.y : 1", "object.x > 1 ? 1 : object.y", "object.x > 1 ? object.y : null"):
        result = checked(source, {"object": DYN}, {})
        assert result is not None and result.issues == "" and result.result == DYN


@pytest.mark.parametrize("source", [
    "[[1], [object.x]].size() == 2",  # list(dyn) may be an empty literal's, whose element type is free
    "(object.x > 1 ? [1] : [object.y])[0] == 'a'",
])
def test_element_types_an_empty_literal_may_bind_are_not_checked(source: str) -> None:
    assert check(source, {"object": DYN}, {}) is None
