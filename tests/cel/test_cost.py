"""CEL's syntax tree (``fakeapi.cel.syntax``) and the static cost estimate of CRD rules
(``fakeapi.cel.cost``), without Go or a kube-apiserver. The costs here are kube's: those
tests/cel/test_cost_differential.py's harness (kube's own code) gives for the same rules, and
behind the factors the real kube-apiserver printed for them in
tests/kasdiff/test_crd_rule_costs.py (``1.451868x`` of 10 million is 14518680 to 14518684)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.apiextensions.cel_validation import rule_errors
from fakeapi.cel.cost import max_cost
from fakeapi.cel.types import MAX_REQUEST_SIZE_BYTES, decl_type, max_cardinality
from fakeapi.cel.syntax import ACCUMULATOR, Call, Comprehension, CreateList, CreateMap, Ident, Literal, NotParsed, Select, parse

_NAMED = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string", "maxLength": 63}, "value": {"type": "string"}}}


def test_operators_are_calls_and_negative_numbers_literals() -> None:
    expr = parse("-1 < self.a && !!self.b || 'x' in self.l")
    assert isinstance(expr, Call) and expr.function == "_||_"
    conjunction, membership = expr.args
    assert isinstance(conjunction, Call) and conjunction.function == "_&&_"
    less, double_negation = conjunction.args
    assert isinstance(less, Call) and less.function == "_<_"
    assert isinstance(less.args[0], Literal) and less.args[0].value == -1
    assert isinstance(double_negation, Select) and double_negation.field == "b"  # !! cancels out
    assert isinstance(membership, Call) and membership.function == "@in"


def test_macros_expand_as_cel_go_expands_them() -> None:
    expr = parse("self.l.filter(x, has(x.a))")
    assert isinstance(expr, Comprehension)
    assert expr.iter_var == "x" and expr.accu_var == ACCUMULATOR
    assert isinstance(expr.accu_init, CreateList) and not expr.accu_init.elements
    step = expr.loop_step
    assert isinstance(step, Call) and step.function == "_?_:_"
    presence = step.args[0]
    assert isinstance(presence, Select) and presence.test_only and isinstance(presence.operand, Ident)
    exists_one = parse("self.l.exists_one(x, x > 1)")
    assert isinstance(exists_one, Comprehension) and isinstance(exists_one.result, Call)
    assert exists_one.result.function == "_==_"


def test_optional_entries_of_literals_are_marked() -> None:
    listed = parse("[?self.a, self.b, ?self.c,]")
    assert isinstance(listed, CreateList) and len(listed.elements) == 3 and listed.optional_indices == {0, 2}
    assert isinstance(listed.elements[0], Select) and listed.elements[0].offset == 6  # the element's, after the '?'
    mapped = parse("{'k': self.a, ?self.b ? 'x' : 'y': self.c}")
    assert isinstance(mapped, CreateMap) and mapped.optional_indices == {1}
    key, value = mapped.entries[1]
    assert isinstance(key, Call) and key.function == "_?_:_" and isinstance(value, Select) and value.field == "c"


@pytest.mark.parametrize("source", ["self.l.all(i, i, i > 0)", "T{a: 1}", "self.a +"])
def test_what_is_not_parsed(source: str) -> None:
    with pytest.raises(NotParsed):
        parse(source)


def test_unbounded_sizes_come_from_the_largest_request() -> None:
    strings = decl_type({"type": "array", "items": {"type": "string"}}, False)
    assert strings is not None and strings.elem is not None
    assert strings.max_elements == (MAX_REQUEST_SIZE_BYTES - 2) // 3  # "", each
    assert strings.elem.max_elements == MAX_REQUEST_SIZE_BYTES - 2
    named = decl_type(_NAMED, False)
    assert named is not None and named.min_size == 2 + len("name") + 2 + 4  # {"name":""}
    assert max_cardinality(named) == MAX_REQUEST_SIZE_BYTES // 13
    enum = decl_type({"type": "string", "enum": ["alpha", "beta"], "maxLength": 3}, False)
    assert enum is not None and enum.max_elements == 12  # maxLength wins over the enum, 4 bytes a character


@pytest.mark.parametrize(("schema", "rule", "cost"), [
    ({"type": "array", "items": _NAMED}, "self.all(i, i.name.matches('^[a-z]+$') && i.value != 'x')", 14518682),
    ({"type": "array", "maxItems": 70000, "items": {"type": "string", "maxLength": 100}},
     "self.all(x, x.matches('^[a-z]+[0-9]*$'))", 11760002),
    ({"type": "object", "properties": {"a": {"type": "integer"}}}, "self.a == 1", 2),
    ({"type": "object", "properties": {"s": {"type": "string", "maxLength": 10}}}, "has(self.s) && self.s == 'abc'", 4),
])
def test_costs(schema: dict[str, Any], rule: str, cost: int) -> None:
    decl = decl_type(schema, False)
    assert decl is not None
    assert max_cost(rule, decl) == cost


@pytest.mark.parametrize("rule", ["dyn(self)[0] == ''", "self[0].reverse() == ''"])
def test_what_is_not_covered(rule: str) -> None:
    decl = decl_type({"type": "array", "items": {"type": "string"}}, False)
    assert decl is not None
    assert max_cost(rule, decl) is None


def test_rule_and_crd_budgets() -> None:
    unbounded = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"l": {
        "type": "array", "items": {"type": "string"},
        "x-kubernetes-validations": [{"rule": "self.all(x, x.matches('^a'))"}]}}}}}
    path = "v.openAPIV3Schema.properties[spec].properties[l].x-kubernetes-validations[0].rule"
    assert rule_errors(unbounded, "v.openAPIV3Schema", []) == [
        (path, "FieldValueForbidden", "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try "
         "simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"),
        (path, "FieldValueForbidden", "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"),
        ("v.openAPIV3Schema", "FieldValueForbidden", "Forbidden: x-kubernetes-validations estimated rule cost total for entire "
         "OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, "
         "maxProperties, and maxLength where arrays, maps, and strings are declared)"),
    ]
    assert [error[0] for error in rule_errors(unbounded, "v.openAPIV3Schema", [], total_cost=False)] == [path]
    unbounded["properties"]["spec"]["properties"]["l"]["maxItems"] = 10
    assert rule_errors(unbounded, "v.openAPIV3Schema", []) == []
