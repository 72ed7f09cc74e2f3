"""``fakeapi.cel.runtime_cost`` against cel-go's own count, rule by rule, and its budget.

``tests/celcostdiff`` validates a value with a node's rules as CRD validation does (kube's
``Validator`` over cel-go's ``CostTracker``) and prints the budget spent: with one rule a case,
that is the rule's actual cost, which ``actual_cost`` must equal. Every rule's ``cost_bound``
must also be at least that cost (``CostBudget`` counts nothing while the bounds fit).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fakeapi.apiextensions.cel_validation import RuleValidator
from fakeapi.cel.projection import reads
from fakeapi.cel.runtime_cost import (
    LIMIT_EXCEEDED, OUT_OF_BUDGET, CostBudget, CostLimitExceeded, NotCounted, OutOfBudget, actual_cost, cost_bound,
    evaluate_bound, largest_size)
from fakeapi.cel.values import to_cel

HARNESS = Path(__file__).resolve().parents[1] / "celcostdiff"

_NAMED = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}, "v": {"type": "integer"}}}
_NODE = {"type": "object", "properties": {
    "s": {"type": "string", "maxLength": 100}, "t": {"type": "string", "maxLength": 100}, "n": {"type": "integer"},
    "l": {"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 50}},
    "o": {"type": "array", "maxItems": 50, "items": _NAMED},
    "m": {"type": "object", "maxProperties": 20, "additionalProperties": {"type": "string", "maxLength": 20}},
    "q": {"type": "string", "maxLength": 20}}}
_VALUE = {"s": "hello world, this is a string", "t": "abc", "n": 7, "l": ["a", "bb", "ccc", "dddd", "é"],
          "o": [{"name": "x", "v": 1}, {"name": "yy", "v": 2}, {"name": "zzz"}], "m": {"a": "1", "b": "22"}, "q": "100Mi"}

RULES = [
    # attributes, presence tests, literals folded into constants
    "true", "self.n > 5", "has(self.s)", "has(self.o) && self.o.all(o, has(o.v) ? o.v > 0 : true)",
    "self.l[0] == 'a'", "self.l[self.n - 6] == 'bb'", "self.o[2].v == 1", "self.m.all(k, self.m[k].size() < 5)",
    "int('5') == 5", "[1, 2, 3].size() == 3", "[self.s, self.t].size() == 2", "{'a': self.s}.size() == 1",
    # sized operations: equality, orderings, concatenation, membership, string functions
    "self.s == self.t", "self.s == 'hello world, this is a string'", "self.s != ''", "self.s + self.t != ''",
    "self.s in self.l", "self.s in ['a', 'b']", "'a' in self.l", "self.n in [1, 2, 7]",
    "self.s.matches('^h.*d$')", "self.s.contains('world')", "self.s.contains(self.t)", "self.s.startsWith('hello')",
    "self.s.endsWith('string')", "size(self.s) > 3", "self.s.size() > 3", "string(self.n) == '7'",
    # kube's library
    "self.n < 0 || self.s.lowerAscii() == self.s", "self.s.split(' ').size() == 6", "self.l.join(',').size() > 0",
    "self.s.replace('l', 'L') != self.s", "self.s.substring(1, 4) == 'ell'", "self.s.indexOf('w') > 0",
    "self.l.isSorted()", "quantity(self.q).isGreaterThan(quantity('1Mi'))", "self.s.find('w.r') == 'wor'",
    # short-circuits: && and || stop, ?: evaluates a branch, or/orValue their argument only when needed
    "self.s.size() < 5 && self.s.matches('^x+$')", "self.n > 0 ? self.s.size() > 0 : self.t.size() > 0",
    "(self.n > 0 ? self.s : self.t).size() > 0", "self.?s.orValue('') == self.s", "self.?s.orValue('x') != 'y'",
    "self.?s.hasValue()", "self.m[?'a'].hasValue()",
    # comprehensions (over maps, none that stops early: Go iterates a map in random order)
    "self.l.all(x, x.size() < 10)", "self.l.exists(x, x == 'ccc')", "self.l.exists_one(x, x == 'ccc')",
    "self.l.map(x, x + '!').size() > 0", "self.l.filter(x, x.size() > 1).size() > 0", "self.o.all(o, o.v > 0)",
    "self.o.map(o, o.name).all(n, n.size() < 5)", "self.l.all(x, self.l.all(y, x == y || x != y))",
    "self.l.all(i, x, x.size() > i)", "self.m.exists(k, v, v == '333')", "self.l.transformList(i, x, x + 'a').size() == 5",
    "self.l.map(x, x.size() > 1, x).size() == 3", "self.m.map(k, self.m[k]).size() == 2",
    # the optional entries of literals, optMap, a comprehension's variable bound again inside it
    "[?self.m[?'a'], ?self.m[?'zz']].size() == 1", "{?'k': self.m[?'a'], ?'j': self.m[?'zz']}.size() == 1",
    "self.m[?'a'].optMap(x, x + 'y').orValue('') == '1y'", "self.l.all(x, self.l.all(x, x != ''))",
]


@pytest.fixture(scope="session")
def celcost(go_build: Callable[[Path, str], Path]) -> Path:
    return go_build(HARNESS, "./cmd/celcost")


def _validated_by_kube(binary: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    lines = "".join(json.dumps(case) + "\n" for case in cases)
    done = subprocess.run([str(binary)], input=lines, capture_output=True, text=True, check=True, timeout=300)
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.fixture(scope="module")
def kube_costs(celcost: Path) -> dict[str, int]:
    """Each rule's actual cost on ``_VALUE``, as kube counts it."""
    cases = [{"schema": {**_NODE, "x-kubernetes-validations": [{"rule": rule}]}, "value": _VALUE} for rule in RULES]
    results = _validated_by_kube(celcost, cases)
    assert all("error" not in result for result in results), results
    return {rule: result["actualCost"] for rule, result in zip(RULES, results, strict=True)}


@pytest.mark.parametrize("rule", RULES)
def test_actual_cost_is_cel_gos(kube_costs: dict[str, int], rule: str) -> None:
    assert actual_cost(rule, {"self": to_cel(_VALUE, _NODE)}) == kube_costs[rule]


@pytest.mark.parametrize("rule", RULES)
def test_cost_bound_bounds_the_actual_cost(rule: str) -> None:
    value = to_cel(_VALUE, _NODE)
    bound = cost_bound(rule)
    if bound is None:  # (join, indexOf, isSorted: counted every time)
        return
    largest = max([1] + [largest_size(value, need) for need in reads(rule, ["self"]).values()])
    assert actual_cost(rule, {"self": value}) <= evaluate_bound(bound, largest)


def test_most_rules_are_bounded_without_reading_sizes() -> None:
    """A rule comparing with literals and selecting fields costs the same whatever the values:
    its bound is a constant (no size is measured for it)."""
    bound = cost_bound("self.n > 5 && self.s == 'abc' && has(self.t) && self.s.size() < 3")
    assert bound is not None and len(bound) == 1
    bound = cost_bound("self.l.all(x, x.startsWith('a'))")
    assert bound is not None and len(bound) == 3


def test_limit_cancels_at_cel_gos_count() -> None:
    """Past the limit, the count stops at the first step past it."""
    with pytest.raises(CostLimitExceeded) as raised:
        actual_cost("self.l.all(x, self.l.all(y, x == y || x != y))", {"self": to_cel(_VALUE, _NODE)}, limit=100)
    assert str(raised.value) == LIMIT_EXCEEDED
    assert 100 < raised.value.cost <= 103


def test_not_counted() -> None:
    """What the counter does not cover, or cannot compute as cel-go does, is not counted (the
    evaluation is then not limited) and never fails the request."""
    with pytest.raises(NotCounted):
        actual_cost("self.sort() == self", {"self": ["b", "a"]})
    with pytest.raises(NotCounted):
        actual_cost("self.hasValue()", {"self": "not an optional"})
    budget = CostBudget(budget=1)
    budget.spend("self.sort() == self", {"self": ["b", "a"]}, reads("self.sort() == self", ["self"]))
    assert budget.remaining == 1


def test_budget_counts_only_near_its_end() -> None:
    """Evaluations whose bounds fit are kept, not counted; the one that would not fit has them
    all counted first, and runs the budget out when its own cost passes what is left."""
    rule, value = "self.all(x, x.startsWith('a'))", {"self": ["a" * 100] * 10}
    needs = reads(rule, ["self"])
    cost = actual_cost(rule, value)
    budget = CostBudget(budget=cost * 3 + cost // 2)
    for _ in range(3):
        budget.spend(rule, value, needs)
    assert not budget.exhausted()
    with pytest.raises(OutOfBudget) as raised:
        budget.spend(rule, value, needs)
    assert str(raised.value) == OUT_OF_BUDGET
    assert budget.exhausted()


def test_budget_takes_a_cancelled_evaluations_cost() -> None:
    """kube takes what an evaluation cancelled past the per-call limit had counted."""
    rule, value = "self.all(x, self.all(y, x == y || x != y))", {"self": list(range(400))}
    budget = CostBudget()
    with pytest.raises(CostLimitExceeded) as raised:
        budget.spend(rule, value, reads(rule, ["self"]))
    assert budget.remaining == 10_000_000 - raised.value.cost


def test_crd_rules_share_the_objects_budget(kube_costs: dict[str, int], celcost: Path) -> None:
    """A rule on each item of a list, each within the per-call limit, together past the object's
    budget: the items validated before it runs out, then kube's error, as kube's ``Validator``."""
    pattern = "^a*" + "(b)?" * 99 + "$"
    schema = {"type": "object", "properties": {"items": {"type": "array", "maxItems": 1000, "items": {
        "type": "string", "maxLength": 2000, "x-kubernetes-validations": [{"rule": f"self.matches('{pattern}')"}]}}}}
    value = {"items": ["a" * 2000] * 5 + ["c" * 10] + ["a" * 2000] * 594}
    kube = _validated_by_kube(celcost, [{"schema": schema, "value": value, "root": True}])[0]
    ours = RuleValidator(schema).validate(value, None, [])
    assert [f"{field}: {body}" for field, _type, body in ours] == kube["errors"]


def test_iterated_items_are_measured_by_what_is_read_of_them() -> None:
    """A comprehension's bound is a product of sizes: the items of a list it iterates are
    measured by what it reads of them (an image), not by the list's JSON (a long env would
    make every pod's policy counted)."""
    pod = {"spec": {"containers": [{"image": "registry.example/web:1", "env": [{"name": f"E{index}", "value": "v" * 30}
                                                                             for index in range(60)]}]}}
    rule = "object.spec.containers.all(c, c.image.startsWith('registry.example/'))"
    assert largest_size(pod, reads(rule, ["object"])["object"]) == len("registry.example/web:1")
