"""``fakeapi.cel.cost`` against kube's own estimate, rule by rule.

``tests/celcostdiff`` is a Go program linking k8s.io/apiextensions-apiserver v0.35.4 that
compiles a node's ``x-kubernetes-validations`` as CRD validation does and prints each rule's
estimated cost (cel-go's estimator with kube's sizes and library costs), its messageExpression's
and the rule's cardinality when nothing above bounds it; the session fixture builds it. Every
rule here is one the estimator covers, so each must cost exactly what kube says (a rule it does
not cover would fail: None is not kube's number).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fakeapi.cel.cost import max_cost
from fakeapi.cel.types import decl_type, max_cardinality

HARNESS = Path(__file__).resolve().parents[1] / "celcostdiff"

_STRING = {"type": "string"}
_SHORT = {"type": "string", "maxLength": 16}
_NAMED = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 63},
                                                                   "value": _STRING, "n": {"type": "integer"}}}
#: A node with a field of each kind the rules below read.
_NODE = {"type": "object", "properties": {
    "s": _STRING, "short": _SHORT, "enum": {"type": "string", "enum": ["alpha", "beta", "gamma"]},
    "n": {"type": "integer"}, "d": {"type": "number"}, "flag": {"type": "boolean"},
    "b": {"type": "string", "format": "byte"}, "b8": {"type": "string", "format": "byte", "maxLength": 8},
    "t": {"type": "string", "format": "date-time"}, "day": {"type": "string", "format": "date"},
    "dur": {"type": "string", "format": "duration"},
    "l": {"type": "array", "items": _STRING}, "ls": {"type": "array", "maxItems": 10, "items": _SHORT},
    "li": {"type": "array", "items": {"type": "integer"}}, "lo": {"type": "array", "items": _NAMED},
    "lol": {"type": "array", "items": {"type": "array", "items": _SHORT}},
    "m": {"type": "object", "additionalProperties": _STRING},
    "mb": {"type": "object", "maxProperties": 5, "additionalProperties": _SHORT},
    "mo": {"type": "object", "additionalProperties": _NAMED},
    "o": _NAMED, "a-b": {"type": "integer"}, "namespace": _SHORT,
    "port": {"x-kubernetes-int-or-string": True}, "pct": {"x-kubernetes-int-or-string": True, "maxLength": 4},
}}

NODE_RULES = [
    # literals, fields, operators
    "true", "self.n == 1", "self.n + 1 > self.n * 2 - 3 / 1 % 2", "-self.d < 1.5", "self.flag && !self.flag || self.n != 0",
    "self.s == 'abc'", "self.short == self.s", "self.s != self.enum", "self.enum == 'alpha'", "self.s < 'b'",
    "self.short >= self.enum", "self.s + self.short == 'x'", "self.short + 'abc' == self.enum",
    "self.flag ? self.s == 'a' : self.short == 'b'", "(self.flag ? self.s : self.short) == 'a'", "self.a__dash__b > 0",
    "self.__namespace__ == 'x'", "has(self.s) && has(self.o.value)", "self.o.name == self.o.value",
    "(self.n > 1 ? self.ls : self.l).all(x, x.contains('a'))", "self.d == 1.0 && uint(self.n) == 2u", "null == null || self.s == ''",
    # sizes, conversions
    "size(self.s) < 5", "self.s.size() + self.l.size() + size(self.m) < 5", "int(self.d) == self.n",
    "string(self.n) == self.s", "double(self.n) < 2.0", "string(self.b) == 'x'", "bytes(self.s) == b'x'",
    "string(self.b8) + 'x' == self.s", "type(self.n) == int", "dyn(self.n) == 1", "dyn(self.s) == self.short",
    "uint(self.n) > 1u", "bool(self.s)",
    # time
    "self.t < timestamp('2024-01-01T00:00:00Z')", "self.t.getHours() < 3 && self.day.getFullYear() > 2000",
    "self.dur > duration('1h') && self.t + self.dur > self.t", "self.t - self.t < self.dur",
    # strings
    "self.s.matches('^[a-z]+$')", "self.short.matches(self.s)", "matches(self.s, '^a')",
    "self.s.contains('abc')", "self.short.contains(self.enum)", "self.s.startsWith('a') && self.s.endsWith(self.short)",
    "self.s.lowerAscii() == self.short.upperAscii()", "self.s.trim().size() > 0", "self.short.substring(1, 3) == 'ab'",
    "self.s.replace('a', 'bb') == ''", "self.short.replace('', 'x') == ''", "self.short.replace('abc', 'x', 2) == ''",
    "self.short.replace(self.enum, self.s) == ''", "self.s.split(',').size() > 1", "self.s.split(',', 3)[0] == 'a'",
    "self.short.split(self.enum).all(p, p.size() < 4)", "self.s.indexOf('a') > self.short.lastIndexOf('b')",
    "self.s.charAt(2) == 'a'", "self.s.find('[0-9]+') == ''", "self.short.findAll('[a-z]').size() > 1",
    "self.s.find(self.short) != ''",
    # lists
    "self.l.all(x, x.size() < 5)", "self.ls.exists(x, x == 'a')", "self.l.exists_one(x, x.startsWith('a'))",
    "self.li.all(x, x > 0)", "self.lo.all(i, i.name.matches('^[a-z]+$') && i.value != 'x')",
    "self.lo.exists(i, i.n > 1 && has(i.value))", "self.lol.all(l, l.all(x, x == 'a'))",
    "self.lol.exists(l, l.exists_one(x, x.contains('b')))", "self.l.map(x, x.lowerAscii()).all(y, y.matches('a'))",
    "self.lo.map(i, i.name).filter(n, n.startsWith('a')).size() < 3", "self.ls.map(x, x.size() > 1, x + x).size() > 0",
    "self.li.filter(x, x > 1).map(x, x * 2).all(y, y < 100)", "self.l.join(',') == ''", "self.ls.join(', ') == self.s",
    "self.ls.join() == 'a'", "self.li.isSorted() && self.li.sum() < 10", "self.ls.isSorted() && self.ls.min() == 'a'",
    "self.l.max() == self.s", "self.l.indexOf('a') == self.ls.lastIndexOf(self.short)", "self.li.indexOf(1) > 0",
    "'a' in self.l", "self.short in self.ls", "self.n in self.li", "self.l[0] == self.ls[1]", "self.lo[0].name == 'x'",
    "self.lol[0][1].size() < 3", "self.l + self.ls == self.ls", "size(self.l + ['a']) < 3", "self.ls == ['a', 'b']",
    "[1, 2, 3].all(x, x > 0)", "['a', 'bc'].exists(p, self.s.startsWith(p))", "[self.s, self.short].all(x, x.size() < 3)",
    "self.l.all(x, x in self.ls)", "self.ls.all(x, self.l.exists(y, y == x))", "self.lo.all(i, self.lo.exists_one(j, j.name == i.name))",
    # maps
    "self.m.all(k, k.size() < 5)", "self.m.all(k, self.m[k].contains('x'))", "self.mb.exists(k, self.mb[k] == k)",
    "'a' in self.m", "self.m['a'] == 'b'", "self.mo.all(k, self.mo[k].name.startsWith(k))", "self.m == self.mb",
    "self.mb.map(k, self.mb[k]).all(v, v.size() < 3)", "{'a': self.s}['a'].endsWith('z')", "{'a': 1, 'b': 2}.all(k, k != 'c')",
    "size(self.m) + size({'x': self.n}) < 3", "self.m.a == 'x'", "has(self.m.a)",
    # int-or-string: dyn, whose calls keep every overload its type allows
    "type(self.port) == int ? self.port < 100 : self.port.size() < 3",
    "type(self.pct) == string ? self.pct.matches('^[0-9]+%$') : self.pct >= 0", "self.port == 'x' || self.port == 1",
    "string(self.port).size() < 5", "int(self.port) > 0", "self.port + 1 > 2", "self.port < self.pct", "self.port < 'b'",
    "self.port.startsWith('a') && self.pct.lowerAscii() == 'x'", "'a' in self.port", "size(self.port) < 3",
    "self.port.x == 1", "self.port.all(x, x == 1)", "bytes(self.pct) == b'a'", "self.port + self.pct == 'x'",
    "dyn(self.n) < 1.5", "-self.port < 0", "self.pct.split('%')[0] == '1'", "double(self.pct) < 1.0",
    # kube's libraries
    "isQuantity(self.s) && quantity(self.s).isLessThan(quantity('1Gi'))", "sign(quantity(self.short)) > 0",
    "quantity(self.s).add(quantity('1')).sub(2).asInteger() < 5", "quantity(self.s).compareTo(quantity(self.short)) < 0",
    "quantity(self.s) == quantity(self.short)", "quantity(self.s).asApproximateFloat() < 1.5 && quantity(self.s).isInteger()",
    "self.l.all(q, isQuantity(q)) && self.l.map(q, quantity(q)).all(q, q.isGreaterThan(quantity('1')))",
    "isURL(self.s) && url(self.s).getScheme() == 'https'", "url(self.s).getHost() == url(self.short).getHostname()",
    "url(self.s) == url(self.short)", "url(self.s).getQuery().size() < 3 && url(self.s).getEscapedPath() != url(self.s).getPort()",
    "isIP(self.s) && ip(self.s).family() == 4", "ip.isCanonical(self.s)", "ip(self.s).isLoopback() || ip(self.short).isGlobalUnicast()",
    "ip(self.s) == ip(self.short)", "string(ip(self.s)) == self.s", "isCIDR(self.s) && cidr(self.s).containsIP('10.0.0.1')",
    "cidr(self.s).containsIP(ip(self.short))", "cidr(self.s).containsCIDR(self.short)", "cidr(self.s).containsCIDR(cidr(self.short))",
    "cidr(self.s).ip().isUnspecified() && cidr(self.s).prefixLength() < 24", "cidr(self.s).masked() == cidr(self.short)",
    "self.l.all(c, isCIDR(c) && cidr(c).containsIP('10.0.0.1'))", "isSemver(self.s) && semver(self.s).major() == 1",
    "semver(self.s, true).isLessThan(semver('1.2.3'))", "semver(self.s) == semver(self.short)", "isSemver(self.short, true)",
    "!format.dns1123Label().validate(self.s).hasValue()", "format.named('uuid').value().validate(self.short).hasValue()",
    "format.dns1123Label() == format.named('dns1123Label').value()", "self.l.all(x, !format.uri().validate(x).hasValue())",
    # two-variable comprehensions
    "self.l.all(i, x, i < 3 && x.size() < 5)", "self.ls.exists(i, x, x == self.ls[i])", "self.m.existsOne(k, v, v.startsWith(k))",
    "self.mo.all(k, v, v.name.contains(k))", "self.l.transformList(i, x, x + string(i)).all(y, y.size() < 9)",
    "self.ls.transformList(i, x, i > 1, x.lowerAscii()).size() < 3", "self.m.transformMap(k, v, v.size()).all(k, self.m[k] != '')",
    "self.mb.transformMap(k, v, k != 'a', v + k).size() < 3", "self.m.transformMapEntry(k, v, {v: k}).size() < 3",
    "self.ls.transformMapEntry(i, x, i < 2, {x: i}).exists(k, v, v > 0)", "[1, 2].all(i, x, x > i)", "{'a': 1}.exists(k, v, v > 1)",
    "self.ls.exists_one(i, x, x == 'b')",
    # cel-go's ext lists and sets
    "self.l.slice(1, 3).size() < 2", "self.ls.slice(0, self.n).size() < 2", "self.ls.slice(3, 1).size() < 2",
    "self.lol.flatten().all(x, x.size() < 3)", "[[1], [2, 3]].flatten().size() == 3", "self.lol.flatten(1).size() < 3",
    "self.lol.flatten(self.n).size() < 3", "self.l.reverse()[0] == 'a'", "self.ls.distinct().size() == self.ls.size()",
    "self.ls.sort() == self.ls", "self.li.sort()[0] < 3", "self.l.sort().join(',') == ''", "lists.range(5).all(i, i < 5)",
    "lists.range(self.n).size() < 3", "sets.contains(self.l, self.ls)", "sets.equivalent(self.ls, ['a'])",
    "sets.intersects(self.li, [1, 2])",
    "self.l.sortBy(x, x.size()).size() < 3", "self.lo.sortBy(i, i.name)[0].n > 1", "self.ls.sortBy(x, dyn(x)) == self.ls",
    "'%s and %d'.format([self.s, self.n]) == self.short", "self.short.format([self.l]) == ''", "strings.quote(self.s) == self.short",
    "strings.quote(self.short).size() < 5",
    # comprehension variables bound again inside a comprehension binding them
    "self.lol.all(x, x.all(x, x == 'a'))", "self.l.all(x, self.l.all(x, x.size() > 1))",
    "self.lo.all(x, self.l.exists(x, x == 'a') && x.name == 'b')", "self.lol.map(x, x.map(x, x + 'a')).all(x, x.all(x, x.size() < 4))",
    "self.lol.all(x, x[0].size() < 3 && x.all(x, x.size() < 3))", "self.l.all(x, [x].all(x, x.size() < 3))",
    "self.m.all(k, v, self.mo.exists(k, v, v.name == k))", "self.m.all(k, v, v.split(',').all(v, v.size() < k.size()))",
    "self.l.all(i, x, self.ls.all(i, x, x.size() < i))", "self.lol.all(x, x.transformList(i, x, x + string(i)).all(x, x.size() < 5))",
    "self.mo.all(x, self.mo[x].name == x && self.m.all(x, self.m[x] == x))",
    # old values
    "oldSelf.n <= self.n", "self.l.all(x, x in oldSelf.l)", "oldSelf.lo.all(i, self.lo.exists(j, j.name == i.name))",
]

#: Rules on other kinds of nodes: (schema without rules, whether it is a resource root, rules).
OTHER_NODES: list[tuple[dict[str, Any], bool, list[str]]] = [
    ({"type": "array", "items": _STRING}, False, ["self.all(x, x.matches('^[a-z]+$'))", "self.map(x, x + x).all(y, y.matches('a'))",
                                                 "self.size() < 3", "self.all(x, self.exists_one(y, y == x))"]),
    ({"type": "array", "maxItems": 3000, "items": _SHORT}, False, ["self.map(x, x + x).all(y, y.contains('a'))", "self.join('') == ''"]),
    ({"type": "object", "additionalProperties": {"type": "integer"}}, False, ["self.all(k, self[k] > 0 && k.matches('^a'))"]),
    ({"type": "object", "maxProperties": 10, "additionalProperties": _NAMED}, False, ["self.all(k, self[k].name.contains(k))"]),
    (_STRING, False, ["self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')", "self.split('.').all(p, p.size() <= 63)"]),
    ({"type": "string", "maxLength": 253}, False, ["self.matches('^[a-z]+$')", "self.lowerAscii() == self"]),
    ({"type": "integer"}, False, ["self < 100", "self % 2 == 0"]),
    ({"type": "object", "properties": {"spec": _NAMED}}, True,
     ["self.metadata.name.matches('^[a-z]+$')", "self.metadata.generateName.size() < 5 && self.kind == 'W'", "self.spec.name == self.metadata.name"]),
    ({"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}, True,
     ["self.apiVersion == 'v1' && self.metadata.name.startsWith('a')"]),
    ({"type": "object", "required": ["a", "b"], "properties": {"a": _STRING, "b": {"type": "integer", "default": 1}, "c": _SHORT}},
     False, ["self.a == self.c"]),
]

#: Rules with ``optionalOldSelf``, where ``oldSelf`` is an optional, and the optional syntax.
OPTIONAL_RULES = [
    "!oldSelf.hasValue() || self.n >= oldSelf.value().n", "oldSelf.orValue(self).s == self.s",
    "oldSelf.?n.orValue(0) <= self.n", "oldSelf.?l.orValue([]).all(x, x in self.l)", "self.?s.orValue('') == 'a'",
    "self.l[?0].orValue('') == 'a'", "self.m[?'a'].hasValue()", "optional.of(self.s).value() == 'a'",
    "optional.none().orValue(1) == 1", "oldSelf.?o.?name.orValue('') == self.o.name", "oldSelf.value().o.name == self.o.name",
    "oldSelf.?o.name.orValue('x').matches('^a')", "oldSelf.or(optional.of(self)).value().n == 1",
    "oldSelf.optMap(o, o.s).orValue('') == self.s", "oldSelf.optFlatMap(o, o.?short).orValue('') == self.short",
    "oldSelf.?l.optMap(l, l.all(x, x.matches('a'))).orValue(true)",
    # optional entries of list and map literals
    "[?self.?s].size() < 2", "[self.short, ?self.?s].exists(x, x.contains('a'))", "[?self.l[?0], 'a'].all(x, x.size() < 3)",
    "[?oldSelf.?lo, ?self.?lo].all(l, l.all(i, i.name == 'a'))", "[?optional.of(self.n), ?optional.none()].all(x, x > 1)",
    "{?'a': self.?s}.size() < 3", "{?'a': self.?s, 'b': self.short}.all(k, k.size() < 3)", "{'x': self.n, ?'y': oldSelf.?n}['x'] > 0",
    "{?self.s: self.?short, self.short: self.s}.size() > 1", "[?self.?m].all(m, m.all(k, m[k] == k))",
    "self.ls.all(x, [?self.?s, x].size() > 0)", "oldSelf.optMap(o, [?o.?s, o.short]).orValue([]).size() < 2",
]

MESSAGE_EXPRESSIONS = ["self.s + ' is bad'", "self.l.join(', ')", "self.ls.map(x, x + '!').join(',')", "'n: ' + string(self.n)",
                       "self.lo.filter(i, i.n > 1).map(i, i.name).join(' ')"]


@pytest.fixture(scope="session")
def celcost(go_build: Callable[[Path, str], Path]) -> Path:
    """The harness binary, built into ``tests/celcostdiff/bin`` (gitignored)."""
    return go_build(HARNESS, "./cmd/celcost")


def _kube_costs(binary: Path, schema: dict[str, Any], root: bool, rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    case = {"schema": {**schema, "x-kubernetes-validations": rules}, "root": root}
    done = subprocess.run([str(binary)], input=json.dumps(case) + "\n", capture_output=True, text=True, check=True, timeout=120)
    result = json.loads(done.stdout)
    assert "error" not in result, result
    return result["rules"]


def _ours(schema: dict[str, Any], root: bool, rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    decl = decl_type(schema, root)
    assert decl is not None
    return [{"maxCost": max_cost(rule["rule"], decl, bool(rule.get("optionalOldSelf"))), "maxCardinality": max_cardinality(decl),
             "messageCost": max_cost(rule["messageExpression"], decl) if "messageExpression" in rule else 0}
            for rule in rules]


def _assert_costs_are_kubes(binary: Path, schema: dict[str, Any], root: bool, rules: list[dict[str, Any]]) -> None:
    kube = _kube_costs(binary, schema, root, rules)
    assert all("error" not in result for result in kube), kube  # a rule kube refuses tests nothing here
    assert _ours(schema, root, rules) == kube


@pytest.mark.parametrize("rule", NODE_RULES)
def test_rule_costs_are_kubes(celcost: Path, rule: str) -> None:
    _assert_costs_are_kubes(celcost, _NODE, False, [{"rule": rule}])


@pytest.mark.parametrize(("schema", "root", "rules"), OTHER_NODES, ids=[str(index) for index in range(len(OTHER_NODES))])
def test_rule_costs_on_other_nodes_are_kubes(celcost: Path, schema: dict[str, Any], root: bool, rules: list[str]) -> None:
    _assert_costs_are_kubes(celcost, schema, root, [{"rule": rule} for rule in rules])


@pytest.mark.parametrize("rule", OPTIONAL_RULES)
def test_optional_old_self_rule_costs_are_kubes(celcost: Path, rule: str) -> None:
    _assert_costs_are_kubes(celcost, _NODE, False, [{"rule": rule, "optionalOldSelf": True}])


@pytest.mark.parametrize("message_expression", MESSAGE_EXPRESSIONS)
def test_message_expression_costs_are_kubes(celcost: Path, message_expression: str) -> None:
    _assert_costs_are_kubes(celcost, _NODE, False, [{"rule": "true", "messageExpression": message_expression}])
