"""The cost limits kube-apiserver puts on CRD ``x-kubernetes-validations`` rules, on fakeapi and on
the real kube-apiserver: the same CRDs created on both, whose rules traverse unbounded and
bounded lists, maps and strings, nested lists, with ``matches``, ``split``, ``join``,
``contains``, ``all``/``exists``/``exists_one``/``map``/``filter``, under lists and maps that
multiply how often a rule runs, messageExpressions, and several rules adding up past the CRD's
budget; every refusal's Status compared (code, message, reason, causes), and every CRD kube
accepts accepted.

Kube walks a node's properties in Go map order (random), so each CRD here has its costly rules
on one node, or on one property per node, so that the order of causes is kube's."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from differ import Pair

GROUP = "costs.kasdiff.example.com"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _crd(plural: str, schema: dict[str, Any]) -> dict[str, Any]:
    kind = plural.capitalize()
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}


def _answer(response: httpx.Response) -> tuple[int, Any]:
    """The code, and the Status of a refusal (a created CRD's body is each server's own)."""
    return response.status_code, response.json() if response.status_code >= 400 else None


def _spec(field: dict[str, Any], rules: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A resource whose ``spec.f`` is ``field``, with ``rules`` on ``spec``."""
    spec: dict[str, Any] = {"type": "object", "properties": {"f": field}}
    if rules:
        spec["x-kubernetes-validations"] = rules
    return {"type": "object", "properties": {"spec": spec}}


def _string(**bounds: Any) -> dict[str, Any]:
    return {"type": "string", **bounds}


def _list(items: dict[str, Any], rules: list[str] | None = None, **bounds: Any) -> dict[str, Any]:
    schema = {"type": "array", "items": items, **bounds}
    if rules:
        schema["x-kubernetes-validations"] = [{"rule": rule} for rule in rules]
    return schema


def _map(values: dict[str, Any], rules: list[str] | None = None, **bounds: Any) -> dict[str, Any]:
    schema = {"type": "object", "additionalProperties": values, **bounds}
    if rules:
        schema["x-kubernetes-validations"] = [{"rule": rule} for rule in rules]
    return schema


def _rules(field: dict[str, Any], *rules: str) -> dict[str, Any]:
    return {**field, "x-kubernetes-validations": [{"rule": rule} for rule in rules]}


_NAMED = {"type": "object", "required": ["name"], "properties": {"name": _string(maxLength=63), "value": _string()}}
#: A regex of 40 characters: the cost of ``matches`` grows with its pattern's length.
_LONG_PATTERN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z])*$"

def _lists_each_within_budget(count: int) -> dict[str, Any]:
    """``count`` lists each with a rule costing 8-9 million (under the expression's budget of
    10 million), each a different cost so that kube's costliest four are the same in any order
    it walks them: 12 of them cost more than the CRD's budget of 100 million."""
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        f"l{index}": _list(_string(maxLength=1000 + 10 * index), [f"self.all(x, x.contains('{'a' * 40}'))"], maxItems=5000)
        for index in range(count)}}}}


CASES = [
    # strings: unbounded (3 MiB) or bounded by maxLength (times 4 bytes) or an enum
    ("string-matches-short-pattern", _spec(_rules(_string(), "self.matches('^a')"))),
    ("string-matches-long-pattern", _spec(_rules(_string(), f"self.matches('{_LONG_PATTERN * 5}')"))),
    ("string-matches-bounded", _spec(_rules(_string(maxLength=253), f"self.matches('{_LONG_PATTERN * 5}')"))),
    ("string-contains-unbounded", _spec(_rules(_string(), "self.contains(self.lowerAscii())"))),
    ("string-contains-enum", _spec(_rules(_string(enum=["alpha", "beta"]), "self.contains(self.upperAscii())"))),
    ("string-split-all", _spec(_rules(_string(), "self.split(',').all(p, p.size() < 5)"))),
    ("string-split-bounded", _spec(_rules(_string(maxLength=1000), "self.split(',').all(p, p.startsWith('a'))"))),
    ("string-replace", _spec(_rules(_string(), "self.replace('a', 'bcd').replace('b', 'cc').size() < 10"))),
    ("string-find-all", _spec(_rules(_string(), "self.findAll('[0-9]+[a-z]+[0-9]+').size() < 10"))),
    # lists: maxItems, or as many of the smallest items as fit in a request
    ("list-unbounded-strings-all-matches", _spec(_list(_string(), ["self.all(x, x.matches('^[a-z]+$'))"]))),
    ("list-bounded-strings-all-matches", _spec(_list(_string(maxLength=64), ["self.all(x, x.matches('^[a-z]+$'))"], maxItems=10))),
    ("list-factor-between-1.5-and-100", _spec(_list(_string(maxLength=100), ["self.all(x, x.matches('^[a-z]+[0-9]*$'))"], maxItems=150000))),
    ("list-factor-under-1.5", _spec(_list(_string(maxLength=100), ["self.all(x, x.matches('^[a-z]+[0-9]*$'))"], maxItems=70000))),
    ("list-exists", _spec(_list(_string(maxLength=1000), ["self.exists(x, x.contains('abc'))"], maxItems=1000))),
    ("list-exists-one", _spec(_list(_string(), ["self.exists_one(x, x == 'a')"]))),
    ("list-map-filter", _spec(_list(_string(), ["self.map(x, x.lowerAscii()).filter(y, y.startsWith('a')).size() < 5"]))),
    ("list-map-with-filter", _spec(_list(_string(maxLength=20), ["self.map(x, x.endsWith('z'), x + x).size() < 5"], maxItems=5000))),
    ("list-join", _spec(_list(_string(), ["self.join(',').size() < 100"]))),
    ("list-join-bounded", _spec(_list(_string(maxLength=10), ["self.join(', ').size() < 100"], maxItems=100))),
    ("list-of-objects", _spec(_list(_NAMED, ["self.all(i, i.name.matches('^[a-z]+$') && i.value != 'x')"]))),
    ("list-of-objects-index", _spec(_list(_NAMED, ["self.size() == 0 || self[0].value.contains(self[0].name)"]))),
    ("list-in-list", _spec(_list(_string(maxLength=10), ["self.all(x, x in self)"]))),
    ("list-in-list-bounded", _spec(_list(_string(maxLength=10), ["self.all(x, x in self)"], maxItems=1000))),
    ("nested-lists-unbounded", _spec(_list(_list(_string()), ["self.all(l, l.all(x, x == 'a'))"]))),
    ("nested-lists-bounded", _spec(_list(_list(_string(maxLength=8), maxItems=16), ["self.all(l, l.all(x, x == 'a'))"], maxItems=16))),
    ("nested-lists-variable-bound-again", _spec(_list(_list(_string()), ["self.all(l, l.all(l, l == 'a'))"]))),
    ("map-of-lists-variables-bound-again", _spec(_map(_list(_string(maxLength=30), maxItems=20), [
        "self.all(k, v, v.exists(k, x, x.startsWith(string(k))) && self.all(k, k.size() < 5))"]))),
    ("list-literal-of-optional-entries", _spec(_list(_string(), ["[?self[?0], ?self[?1]].all(x, x.matches('^[a-z]+$'))"]))),
    ("map-literal-of-optional-entries", _spec(_map(_string(), [
        "{?'a': self[?'a'], 'b': 'x'}.all(k, self.exists(j, j.contains(k)))"]))),
    ("list-sort-by-unbounded", _spec(_list(_string(), ["self.sortBy(x, x.size()).size() < 3"]))),
    ("list-sort-by-string-keys", _spec(_list(_string(maxLength=64), ["self.sortBy(x, x)[0] != 'a'"], maxItems=3000))),
    ("list-sort-by-bounded", _spec(_list(_NAMED, ["self.sortBy(i, i.name).map(i, i.value).all(v, v != 'x')"], maxItems=500))),
    ("list-of-unwrapped-optionals-unbounded", _spec(_rules({"type": "integer"}, "[optional.of(self), optional.none()].unwrapOpt().all(n, n < 100)"))),
    ("lists-range-of-a-size-unbounded", _spec(_list(_string(maxLength=8), ["lists.range(self.size()).all(i, i < 8)"], maxItems=8))),
    ("list-first-and-last", _spec(_list(_string(maxLength=8), ["self.first() == self.last()"], maxItems=8))),
    ("list-sorted-and-sum", _spec(_list({"type": "integer"}, ["self.isSorted() && self.sum() < 100 && self.indexOf(3) < 0"]))),
    # maps: maxProperties, or as many of the smallest entries as fit
    ("map-unbounded-values", _spec(_map(_string(), ["self.all(k, self[k].contains('x'))"]))),
    ("map-bounded-values", _spec(_map(_string(maxLength=20), ["self.all(k, self[k].contains('x'))"], maxProperties=50))),
    ("map-keys-match", _spec(_map({"type": "integer"}, ["self.all(k, k.matches('^[a-z]+$'))"]))),
    ("list-of-maps", _spec(_list(_map(_string(maxLength=30)), ["self.all(m, m.exists(k, m[k] == k))"], maxItems=100))),
    ("map-of-lists", _spec(_map(_list(_string(maxLength=30), maxItems=20), ["self.all(k, self[k].exists(v, v.startsWith(k)))"]))),
    ("computed-list-items-take-the-nodes-size", _spec(_list(_NAMED, [
        "self.map(i, i.name).all(n, n.matches('^[a-z]+$') && n.contains('abc'))"], maxItems=100000))),
    ("computed-list-on-list-node", _spec(_list(_string(maxLength=10), [
        "self.map(x, x + x).all(y, y.matches('^[a-z]+$'))"], maxItems=300000))),
    ("filter-map-join", _spec(_list(_string(maxLength=50), [
        "self.filter(x, x.startsWith('a')).map(x, x + 'b').join(',').size() < 4096"], maxItems=20000))),
    ("literals-and-ternary", _spec(_rules(_string(maxLength=2000), "['ab', 'cd'].exists(p, self.startsWith(p)) ? "
                                                                    "self + '-x' > 'b' : {'a': self}['a'].endsWith('z')"))),
    ("string-order-and-concatenation", _spec(_list(_string(), ["self.all(x, x + x < 'b' || x >= self[0])"]))),
    ("formatted-strings", _spec({"type": "object", "properties": {
        "t": _string(format="date-time"), "d": _string(format="duration"), "b": _string(format="byte"),
        "l": _list(_string(format="date-time"))}},
        [{"rule": "self.f.l.all(x, x > self.f.t && x.getHours() < 3 && self.f.d < duration('1h') && size(self.f.b) < 4)"}])),
    ("has-and-size", _spec(_list(_NAMED, ["self.all(i, !has(i.value) || size(i.value) < 5)"]))),
    ("rule-and-message-expression-over-budget", _spec(_list(_string()), [
        {"rule": "self.f.all(x, x.matches('[0-9]+'))", "messageExpression": "self.f.join(', ')"}])),
    # how often a rule runs: the items and values of the lists and maps above it
    ("rule-on-items-of-unbounded-list", _spec(_list(_rules(_NAMED, f"self.value.matches('{_LONG_PATTERN}')")))),
    ("rule-on-items-of-bounded-list", _spec(_list(_rules(_NAMED, f"self.value.matches('{_LONG_PATTERN}')"), maxItems=5))),
    ("rule-on-values-of-bounded-map-in-bounded-list", _spec(_list(_map(
        _rules(_string(maxLength=1000), f"self.matches('{_LONG_PATTERN}')"), maxProperties=100), maxItems=10))),
    ("rule-on-values-of-unbounded-map", _spec(_map(_rules(_string(maxLength=100), "self.matches('^[a-z]+$')")))),
    ("rule-under-embedded-resource", _spec(_list({"type": "object", "x-kubernetes-embedded-resource": True,
                                                  "x-kubernetes-preserve-unknown-fields": True, "x-kubernetes-validations": [
                                                      {"rule": f"self.metadata.name.matches('{_LONG_PATTERN}')"}]}, maxItems=3))),
    ("rule-on-scalar-items-of-unbounded-list", _spec(_list(_rules({"type": "integer"}, "self < 100")))),
    # transition rules, selections, the resource root
    ("transition-rule-quadratic", _spec(_list(_string(maxLength=10), ["self.all(x, x in oldSelf)"], maxItems=2000))),
    ("spec-rule-over-field", _spec(_list(_NAMED), [{"rule": "self.f.all(i, i.name != 'x' && i.value.startsWith('y'))"}])),
    ("root-metadata-name", {"type": "object", "x-kubernetes-validations": [
        {"rule": f"self.metadata.name.matches('{_LONG_PATTERN * 3}')"}]}),
    ("costly-rule-reading-old-self-where-it-cannot", _spec(_list(_rules(_NAMED, f"self.value.matches('{_LONG_PATTERN}') && oldSelf.n < self.n")))),
    ("costly-rule-and-message-expression-with-optional-old-self", _spec(_list(_string()), [
        {"rule": "self.f.all(x, x.matches('[0-9]+'))", "messageExpression": "self.f.join(', ')", "optionalOldSelf": False}])),
    # messageExpressions: their own budget, not multiplied
    ("message-expression-over-budget", _spec(_list(_string()), [
        {"rule": "self.f.size() < 3", "messageExpression": "self.f.map(x, x + '!').join(', ')"}])),
    ("message-expression-within-budget", _spec(_list(_string(maxLength=20), maxItems=10), [
        {"rule": "self.f.size() < 3", "messageExpression": "self.f.join(', ')"}])),
    # several rules within their own budget, over the CRD's together
    ("crd-total-over-budget", _lists_each_within_budget(12)),
    ("crd-total-within-budget", _lists_each_within_budget(11)),
    ("crd-total-and-rule-over-budget", _spec(_list(_string(maxLength=1000), maxItems=5000), [
        {"rule": "self.f.all(x, x.contains(x))"}] + [
        {"rule": f"self.f.all(x, x.contains('{'a' * (30 + index)}'))"} for index in range(3)])),
]


@pytest.mark.parametrize(("name", "schema"), CASES, ids=[name for name, _schema in CASES])
def test_rule_costs_as_kube_estimates_them(pair: Pair, name: str, schema: dict[str, Any]) -> None:
    plural = "c" + "".join(char for char in name if char.isalnum())
    crd = _crd(plural, schema)
    fake, real = (_answer(client.post(CRDS, json=crd)) for client in (pair.fake, pair.real))
    assert fake == real
