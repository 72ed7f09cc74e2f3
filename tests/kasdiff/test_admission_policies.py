"""ValidatingAdmissionPolicies against the real kube-apiserver: the same policies and bindings
stored in both servers, the same writes sent to both; the answers (code, reason, message,
causes) and the warnings must be kube's.

Every case works in a namespace of its own, labelled for it, and its policies select that
namespace only. Kube learns of policies, bindings and params through informers and recompiles
the policies every second: a case's policies are active once a probe policy, bound after all of
them with a param made after the case's params, refuses a dry-run probe on both servers with
its param found (each informer delivers its kind in order, so the probe's binding and param
seen means every earlier one is). Objects labelled ``probe`` are excluded from the case's own
policies."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
import test_access
from differ import Outcome, Pair, check

from fakeapi.testing.eventually import eventually

Json = Any

_API = "/apis/admissionregistration.k8s.io/v1/"
POLICIES = "validatingadmissionpolicies"
BINDINGS = "validatingadmissionpolicybindings"
_NOT_PROBE = {"matchExpressions": [{"key": "probe", "operator": "DoesNotExist"}]}
CONFIG_MAPS = [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"],
                "resources": ["configmaps"]}]


class Case:
    """One case's namespace, policies and bindings on both servers."""

    def __init__(self, pair: Pair, name: str) -> None:
        self.pair, self.name = pair, name
        self.namespace = f"vap-{name}"
        self.created: list[tuple[str, str]] = []
        for client in self._clients():
            response = client.post("/api/v1/namespaces", json={
                "metadata": {"name": self.namespace, "labels": {"vap-case": name, "tier": "gold"}}})
            assert response.status_code in (201, 409), response.text

    def _clients(self) -> tuple[httpx.Client, httpx.Client]:
        return self.pair.fake, self.pair.real

    def policy_body(self, name: str, validations: list[Json], **spec: Any) -> Json:
        """A policy for configmaps (CREATE, UPDATE) in the case's namespace, failing closed,
        not for probes; ``spec`` overrides or adds fields."""
        constraints = {"resourceRules": CONFIG_MAPS, "namespaceSelector": {"matchLabels": {"vap-case": self.name}},
                       "objectSelector": _NOT_PROBE}
        constraints.update(spec.pop("matchConstraints", {}))
        body = {"failurePolicy": "Fail", "matchConstraints": constraints, "validations": validations}
        body.update(spec)
        return {"metadata": {"name": f"{self.name}-{name}"}, "spec": body}

    def policy(self, name: str, validations: list[Json], **spec: Any) -> None:
        self._create(POLICIES, self.policy_body(name, validations, **spec))

    def bind(self, name: str, policy: str, actions: tuple[str, ...] = ("Deny",), **spec: Any) -> None:
        self._create(BINDINGS, {"metadata": {"name": f"{self.name}-{name}"}, "spec": {
            "policyName": f"{self.name}-{policy}", "validationActions": list(actions), **spec}})

    def param(self, name: str, data: dict[str, str], labels: dict[str, str] | None = None) -> None:
        """A ConfigMap of params (a probe to the case's policies: they do not see it)."""
        for client in self._clients():
            response = client.post(f"/api/v1/namespaces/{self.namespace}/configmaps", json={
                "metadata": {"name": name, "labels": {"probe": "param", **(labels or {})}}, "data": data})
            assert response.status_code == 201, response.text

    def _create(self, resource: str, body: Json) -> None:
        for client in self._clients():
            response = client.post(_API + resource, json=body)
            assert response.status_code == 201, response.text
        self.created.append((resource, body["metadata"]["name"]))

    def activate(self) -> None:
        """Bind a probe policy after the case's own, with a param made after the case's, and
        wait until both servers enforce it (with its param found)."""
        self.param("probe-param", {"probe": "no"})
        self.policy("probe", [{"expression": "params.data.probe == 'yes'", "message": "probe"}],
                    paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
                    matchConstraints={"objectSelector": {"matchLabels": {"probe": "yes"}}})
        self.bind("probe", "probe", paramRef={"name": "probe-param", "namespace": self.namespace,
                                              "parameterNotFoundAction": "Deny"})
        self.wait_for({"metadata": {"name": "probe", "labels": {"probe": "yes"}}}, "denied request: probe")

    def wait_for(self, config_map: Json, refusal: str) -> None:
        """Wait until both servers refuse a dry-run create of ``config_map`` with a message
        ending in ``refusal``."""
        for client in self._clients():
            deadline = time.monotonic() + 30
            while True:
                response = client.post(f"/api/v1/namespaces/{self.namespace}/configmaps", params={"dryRun": "All"},
                                       json=config_map)
                if response.status_code == 422 and response.json().get("message", "").endswith(refusal):
                    break
                assert time.monotonic() < deadline, f"{client.base_url} never refused {config_map}: {response.text}"
                time.sleep(0.2)

    def send(self, verb: str, method: str, path: str, body: Json = None, **kwargs: Any) -> Outcome:
        return self.pair.send(self.name, "ConfigMap", verb, method, f"/api/v1/namespaces/{self.namespace}/{path}",
                              body=None if body is None else orjson.dumps(body), **kwargs)

    def send_config(self, verb: str, resource: str, body: Json) -> Outcome:
        """A policy or binding written to both servers, compared (a refused one)."""
        outcome = self.pair.send(self.name, resource, verb, "POST", _API + resource, body=orjson.dumps(body))
        if outcome.fake.status == 201 or outcome.real.status == 201:
            self.created.append((resource, body["metadata"]["name"]))
        return outcome

    def close(self) -> None:
        for resource, name in reversed(self.created):
            for client in self._clients():
                client.delete(_API + f"{resource}/{name}")


@pytest.fixture(scope="module")
def param_informer(pair: Pair) -> Iterator[None]:
    """A policy with ConfigMap params bound for the whole module. Kube stops using its ConfigMap
    param informer when no policy has that param kind, and one it starts again afterwards does
    not see ConfigMaps created since (a policy bound then finds no params): a policy bound
    throughout keeps the first informer in use."""
    keeper = {"metadata": {"name": "vap-param-informer"}, "spec": {
        "failurePolicy": "Ignore", "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConstraints": {"resourceRules": CONFIG_MAPS, "objectSelector": {"matchLabels": {"never": "matched"}}},
        "validations": [{"expression": "true"}]}}
    binding = {"metadata": {"name": "vap-param-informer"}, "spec": {
        "policyName": "vap-param-informer", "validationActions": ["Deny"],
        "paramRef": {"name": "none", "namespace": "default", "parameterNotFoundAction": "Allow"}}}
    for client in (pair.fake, pair.real):
        assert client.post(_API + POLICIES, json=keeper).status_code == 201
        assert client.post(_API + BINDINGS, json=binding).status_code == 201
    yield
    for client in (pair.fake, pair.real):
        client.delete(_API + f"{BINDINGS}/vap-param-informer")
        client.delete(_API + f"{POLICIES}/vap-param-informer")


@pytest.fixture
def case(request: pytest.FixtureRequest, pair: Pair, param_informer: None) -> Iterator[Case]:
    start = len(pair.outcomes)
    name = request.node.name.removeprefix("test_").replace("_", "-")[:40]
    opened = Case(pair, name)
    try:
        yield opened
    finally:
        opened.close()
    check(pair, start)


def config_map(name: str, data: dict[str, str] | None = None, labels: dict[str, str] | None = None) -> Json:
    meta: Json = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data or {"a": "b"}}


def test_deny_by_data_rule(case: Case) -> None:
    case.policy("short-values", [{"expression": "!has(object.data) || object.data.all(k, size(object.data[k]) <= 5)",
                                  "message": "values must be at most 5 characters"}])
    case.bind("short-values", "short-values")
    case.policy("bare", [{"expression": "!has(object.data) || !('bare' in object.data)"}],
                matchConstraints={"objectSelector": {"matchLabels": {"rule": "bare"}}})
    case.bind("bare", "bare")
    case.activate()
    assert case.send("create allowed", "POST", "configmaps", config_map("ok")).real.status == 201
    assert case.send("create refused", "POST", "configmaps", config_map("long", {"a": "too long"})).real.status == 422
    case.send("create refused (generateName)", "POST", "configmaps",
              {**config_map(""), "metadata": {"generateName": "gen-"}, "data": {"a": "too long"}})
    case.send("dry-run create refused", "POST", "configmaps?dryRun=All", config_map("dry", {"a": "too long"}))
    case.send("update refused", "PUT", "configmaps/ok", config_map("ok", {"a": "too long"}))
    case.send("patch refused", "PATCH", "configmaps/ok", {"data": {"b": "123456"}},
              content_type="application/merge-patch+json")
    case.send("patch allowed", "PATCH", "configmaps/ok", {"data": {"b": "12345"}},
              content_type="application/merge-patch+json")
    case.send("delete (not matched)", "DELETE", "configmaps/ok")
    case.send("create refused, no message", "POST", "configmaps", config_map("bare", {"bare": "x"}, {"rule": "bare"}))


def test_actions(case: Case) -> None:
    rule = [{"expression": "!has(object.data) || !('bad' in object.data)", "message": "no bad keys"}]
    case.policy("warn", rule, matchConstraints={"objectSelector": {"matchLabels": {"action": "warn"}}})
    case.bind("warn", "warn", ("Warn",))
    case.policy("audit", rule, matchConstraints={"objectSelector": {"matchLabels": {"action": "audit"}}})
    case.bind("audit", "audit", ("Audit",))
    case.policy("audit-warn", rule, matchConstraints={"objectSelector": {"matchLabels": {"action": "audit-warn"}}})
    case.bind("audit-warn", "audit-warn", ("Audit", "Warn"))
    # one refusing binding a policy: kube walks a policy's bindings in no fixed order, and the
    # first refusal is the answer
    case.policy("deny-audit", rule, matchConstraints={"objectSelector": {"matchLabels": {"action": "deny-audit"}}})
    case.bind("deny-audit", "deny-audit", ("Deny", "Audit"))
    case.bind("warn-too", "deny-audit", ("Warn",))
    case.activate()
    for action in ("warn", "audit", "audit-warn", "deny-audit"):
        case.send(f"create ({action})", "POST", "configmaps", config_map(f"c-{action}", {"bad": "x"}, {"action": action}))
    case.send_config("create binding (Deny and Warn)", BINDINGS, {
        "metadata": {"name": f"{case.name}-deny-warn"},
        "spec": {"policyName": f"{case.name}-warn", "validationActions": ["Deny", "Warn"]}})


def test_messages_and_reasons(case: Case) -> None:
    case.policy("messages", [
        {"expression": "!('a' in object.data)", "messageExpression": "'key a is ' + object.data.a",
         "message": "static a", "reason": "Forbidden"},
        {"expression": "!('b' in object.data)", "messageExpression": "'key b: ' + object.data.missing",
         "message": "  b is refused  "},
        {"expression": "!('c' in object.data)", "messageExpression": "'  c\\nmultiline'", "reason": "RequestEntityTooLarge"},
        {"expression": "!('d' in object.data)", "messageExpression": "'   '", "reason": "Invalid"},
    ])
    case.bind("messages", "messages")
    case.activate()
    for key in ("a", "b", "c", "d"):
        case.send(f"create ({key})", "POST", "configmaps", config_map(f"m-{key}", {key: "x"}))


def test_variables(case: Case) -> None:
    case.policy("variables", [
        {"expression": "variables.size <= 2", "messageExpression": "'too many keys: ' + string(variables.size)"},
        {"expression": "!variables.marked || variables.label == 'yes'", "message": "marked but not yes"},
    ], variables=[
        {"name": "keys", "expression": "has(object.data) ? object.data : {}"},
        {"name": "size", "expression": "size(variables.keys)"},
        {"name": "marked", "expression": "'mark' in variables.keys"},
        {"name": "label", "expression": "object.metadata.labels['mark']"},
        {"name": "unused", "expression": "object.missing.field"},
    ])
    case.bind("variables", "variables")
    case.activate()
    case.send("create allowed", "POST", "configmaps", config_map("v-ok", {"a": "1"}))
    case.send("create (too many keys)", "POST", "configmaps", config_map("v-many", {"a": "1", "b": "2", "c": "3"}))
    case.send("create (variable fails)", "POST", "configmaps", config_map("v-mark", {"mark": "1"}))
    case.send("create (marked, yes)", "POST", "configmaps", config_map("v-yes", {"mark": "1"}, {"mark": "yes"}))
    case.send("create (marked, no)", "POST", "configmaps", config_map("v-no", {"mark": "1"}, {"mark": "no"}))


def test_optional_entries_opt_map_and_variables_bound_again(case: Case) -> None:
    """Expressions in syntax fakeapi's CEL engine rewrites before running it."""
    case.policy("syntax", [
        {"expression": "[?object.metadata.?labels[?'tier'], ?object.?data[?'tier']].all(t, t != 'lead')",
         "message": "no lead tier"},
        {"expression": "object.?data.optMap(d, d.all(k, v, [v].all(k, k.size() <= 5))).orValue(true)",
         "message": "short values"},
        {"expression": "{?'owner': object.metadata.?labels[?'owner']}.size() == 1",
         "messageExpression": "'no owner for ' + object.metadata.name"},
    ])
    case.bind("syntax", "syntax")
    # an optional entry's value is of its optional's type: a dyn, which kube's literals may not
    # mix with a string; but a dyn's optional index is an optional of what the literal binds
    mixed = case.send_config("create policy (literal of a dyn and a string)", POLICIES, case.policy_body("mixed", [
        {"expression": "{?'owner': object.metadata.?owner, 'team': 'core'}.size() == 2"}]))
    bound = case.send_config("create policy (literal binding an optional index)", POLICIES, case.policy_body("bound", [
        {"expression": "{?'owner': object.metadata.?labels[?'owner'], 'team': 'core'}.size() == 2"}]))
    assert (mixed.real.status, bound.real.status) == (422, 201)
    case.activate()
    owned = {"owner": "me"}
    allowed = config_map("s-ok", {"tier": "gold"}, {"tier": "gold", **owned})
    assert case.send("create allowed", "POST", "configmaps", allowed).real.status == 201
    for refusal, refused in (("label", config_map("s-label", {"a": "b"}, {"tier": "lead", **owned})),
                             ("data", config_map("s-data", {"tier": "lead"}, owned)),
                             ("long value", config_map("s-long", {"a": "toolong"}, owned)),
                             ("no owner", config_map("s-owner", {"a": "b"}))):
        assert case.send(f"create refused ({refusal})", "POST", "configmaps", refused).real.status == 422


def test_sort_by_and_unwrapped_optionals(case: Case) -> None:
    """cel-go's ``sortBy`` (rewritten by fakeapi's engine) and the optional library's
    ``optional.unwrap``, at runtime: values, a message naming the sorted list's first element,
    and the sort of a map, which fails."""
    longest = "object.data.map(k, k).sortBy(k, -object.data[k].size())[0]"
    case.policy("lists", [
        {"expression": f"!has(object.data) || {longest}.size() < 3",
         "messageExpression": f"'the key of the longest value is long: ' + {longest}"},
        {"expression": "optional.unwrap([object.metadata.?labels[?'a'], object.metadata.?labels[?'b']]).size() < 2",
         "message": "label a or b, not both"},
        {"expression": "!('sortmap' in object.metadata.labels) || dyn(object.data).sortBy(k, k).size() >= 0",
         "message": "a map sorted"},
    ])
    case.bind("lists", "lists")
    case.activate()
    assert case.send("create allowed", "POST", "configmaps", config_map("l-ok", {"x": "1", "yy": "22"}, {"a": "1"})).real.status == 201
    for refusal, refused in (("long key", config_map("l-long", {"abcd": "12345", "b": "1"}, {"a": "1"})),
                             ("both labels", config_map("l-both", {"x": "1"}, {"a": "1", "b": "2"})),
                             ("map sorted", config_map("l-map", {"x": "1"}, {"sortmap": "1"}))):
        assert case.send(f"create refused ({refusal})", "POST", "configmaps", refused).real.status == 422


def test_params(case: Case) -> None:
    case.param("limits", {"max": "3", "forbidden": "evil"}, {"params": "limits"})
    case.param("more-limits", {"max": "1", "forbidden": "worse"}, {"params": "limits-strict"})
    validations = [{"expression": "!has(object.data) || size(object.data) <= int(params.data.max)",
                    "messageExpression": "'at most ' + params.data.max + ' keys (' + params.metadata.name + ')'"},
                   {"expression": "!has(object.data) || !(params.data.forbidden in object.data)",
                    "message": "forbidden key"}]
    param_kind = {"apiVersion": "v1", "kind": "ConfigMap"}
    for name, ref in (("by-name", {"name": "limits", "parameterNotFoundAction": "Deny"}),
                      ("by-selector", {"selector": {"matchLabels": {"params": "limits-strict"}},
                                       "parameterNotFoundAction": "Deny"}),
                      ("missing-deny", {"name": "absent", "parameterNotFoundAction": "Deny"}),
                      ("missing-allow", {"name": "absent", "parameterNotFoundAction": "Allow"}),
                      ("none-selected", {"selector": {"matchLabels": {"params": "none"}},
                                         "parameterNotFoundAction": "Deny"})):
        case.policy(name, validations, paramKind=param_kind,
                    matchConstraints={"objectSelector": {"matchLabels": {"params": name}}})
        case.bind(name, name, paramRef=ref)
    case.policy("no-ref", [{"expression": "params == null", "message": "params given"}], paramKind=param_kind,
                matchConstraints={"objectSelector": {"matchLabels": {"params": "no-ref"}}})
    case.bind("no-ref", "no-ref")
    case.policy("unknown-kind", validations, paramKind={"apiVersion": "example.com/v1", "kind": "Limits"},
                matchConstraints={"objectSelector": {"matchLabels": {"params": "unknown-kind"}}})
    case.bind("unknown-kind", "unknown-kind", paramRef={"name": "x", "parameterNotFoundAction": "Deny"})
    case.activate()
    for name in ("by-name", "by-selector", "missing-deny", "missing-allow", "none-selected", "no-ref", "unknown-kind"):
        case.send(f"create two keys ({name})", "POST", "configmaps",
                  config_map(f"p-{name}", {"a": "1", "b": "2"}, {"params": name}))
        case.send(f"create forbidden key ({name})", "POST", "configmaps",
                  config_map(f"f-{name}", {"evil": "1"}, {"params": name}))


def test_match_conditions(case: Case) -> None:
    case.policy("conditions", [{"expression": "false", "message": "conditions held"}], matchConditions=[
        {"name": "marked", "expression": "has(object.metadata.labels) && 'refuse' in object.metadata.labels"},
        {"name": "creating", "expression": "request.operation == 'CREATE'"}])
    case.bind("conditions", "conditions")
    case.policy("broken", [{"expression": "false", "message": "broken held"}],
                matchConditions=[{"name": "needs-spec", "expression": "object.spec.size > 1"}],
                matchConstraints={"objectSelector": {"matchLabels": {"broken": "fail"}}})
    case.bind("broken", "broken")
    case.policy("broken-ignored", [{"expression": "false", "message": "broken ignored held"}], failurePolicy="Ignore",
                matchConditions=[{"name": "needs-spec", "expression": "object.spec.size > 1"}],
                matchConstraints={"objectSelector": {"matchLabels": {"broken": "ignore"}}})
    case.bind("broken-ignored", "broken-ignored")
    case.activate()
    case.send("create (conditions false)", "POST", "configmaps", config_map("plain"))
    case.send("create (conditions true)", "POST", "configmaps", config_map("marked", labels={"refuse": "yes"}))
    case.send("update (not creating)", "PATCH", "configmaps/plain", {"metadata": {"labels": {"refuse": "y"}}},
              content_type="application/merge-patch+json")
    case.send("create (condition fails, Fail)", "POST", "configmaps", config_map("b1", labels={"broken": "fail"}))
    case.send("create (condition fails, Ignore)", "POST", "configmaps", config_map("b2", labels={"broken": "ignore"}))


def test_failing_expressions(case: Case) -> None:
    failing = [{"expression": "object.data.missing == 'x'", "message": "not reached"}]
    case.policy("fail", failing, matchConstraints={"objectSelector": {"matchLabels": {"policy": "fail"}}})
    case.bind("fail", "fail")
    case.policy("ignore", failing, failurePolicy="Ignore",
                matchConstraints={"objectSelector": {"matchLabels": {"policy": "ignore"}}})
    case.bind("ignore", "ignore")
    case.policy("warn", failing, matchConstraints={"objectSelector": {"matchLabels": {"policy": "warn"}}})
    case.bind("warn", "warn", ("Warn",))
    case.policy("divide", [{"expression": "1 / (size(object.data) - 1) > 0"}],
                matchConstraints={"objectSelector": {"matchLabels": {"policy": "divide"}}})
    case.bind("divide", "divide")
    annotations = [{"key": "fine", "valueExpression": "'value'"},
                   {"key": "broken", "valueExpression": " string(object.data.missing) "}]
    case.policy("annotation", [], auditAnnotations=annotations,
                matchConstraints={"objectSelector": {"matchLabels": {"policy": "annotation"}}})
    case.bind("annotation", "annotation", ("Audit",))
    case.policy("annotation-ignored", [], auditAnnotations=annotations, failurePolicy="Ignore",
                matchConstraints={"objectSelector": {"matchLabels": {"policy": "annotation-ignored"}}})
    case.bind("annotation-ignored", "annotation-ignored", ("Audit",))
    case.activate()
    for policy in ("fail", "ignore", "warn", "divide", "annotation", "annotation-ignored"):
        case.send(f"create ({policy})", "POST", "configmaps", config_map(f"x-{policy}", labels={"policy": policy}))


#: A regex of 400 characters every run of ``a`` matches (``matches`` costs a tenth of the
#: string's length times a quarter of the pattern's: 100).
_LONG_MATCH = "^a*" + "(b)?" * 99 + "$"


def test_runtime_cost_limits(case: Case) -> None:
    """Expressions past kube's runtime limits, under failurePolicy Fail and Ignore: one past the
    per-call limit (a comprehension nested in one over 400 keys: 160,000 steps), and twelve
    validations of 900,000 each (18 values of 5000 characters matched) past the binding's
    budget of 10 million; the same for match conditions (one past the per-call limit, three
    past their budget of 2.5 million); the same writes within the limits are admitted."""
    nested = "object.data.all(k, object.data.all(j, size(object.data[k]) + size(object.data[j]) > 0))"
    matched = [f"object.data.all(k, object.data[k].matches('{_LONG_MATCH}'))"] * 12
    refused = [{"expression": "false", "message": "refused"}]
    policies = {
        "nested": {"validations": [{"expression": nested, "message": "not reached"}]},
        "budget": {"validations": [{"expression": expression, "message": f"rule {index}"}
                                   for index, expression in enumerate(matched)]},
        "cond-nested": {"validations": refused, "matchConditions": [{"name": "nested", "expression": nested}]},
        "cond-budget": {"validations": refused, "matchConditions": [
            {"name": f"matched-{index}", "expression": expression} for index, expression in enumerate(matched[:3])]},
    }
    for name, spec in policies.items():
        for failure in ("Fail", "Ignore"):
            policy = f"{name}-{failure.lower()}"
            case.policy(policy, spec["validations"], failurePolicy=failure,
                        matchConstraints={"objectSelector": {"matchLabels": {"policy": policy}}},
                        **{key: value for key, value in spec.items() if key != "validations"})
            case.bind(policy, policy)
    case.activate()
    many_keys = {f"k{index}": "v" for index in range(400)}
    long_values = {f"k{index}": "a" * 5000 for index in range(18)}
    for name in policies:
        data = many_keys if name.endswith("nested") else long_values
        for failure in ("fail", "ignore"):
            labels = {"policy": f"{name}-{failure}"}
            case.send(f"create ({name}, {failure})", "POST", "configmaps", config_map(f"{name}-{failure}", data, labels))
            case.send(f"create within the limits ({name}, {failure})", "POST", "configmaps",
                      config_map(f"{name}-{failure}-small", dict(list(data.items())[:2]), labels))


def test_resource_rules(case: Case) -> None:
    refuse = [{"expression": "false", "message": "refused"}]
    case.policy("all-but", refuse, matchConstraints={
        "resourceRules": [{"operations": ["*"], "apiGroups": [""], "apiVersions": ["v1"],
                           "resources": ["configmaps", "secrets"]}],
        "excludeResourceRules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                                  "resources": ["configmaps"], "resourceNames": ["allowed"]},
                                 {"operations": ["*"], "apiGroups": [""], "apiVersions": ["v1"],
                                  "resources": ["secrets"]}]})
    case.bind("all-but", "all-but", matchResources={"resourceRules": [
        {"operations": ["CREATE", "DELETE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
        "objectSelector": {"matchExpressions": [{"key": "free", "operator": "DoesNotExist"}]}})
    case.activate()
    case.send("create (excluded by name)", "POST", "configmaps", config_map("allowed"))
    case.send("create (refused)", "POST", "configmaps", config_map("other"))
    case.send("create (binding's selector)", "POST", "configmaps", config_map("free", labels={"free": "yes"}))
    case.send("update (binding's rules)", "PATCH", "configmaps/allowed", {"data": {"x": "y"}},
              content_type="application/merge-patch+json")
    case.send("delete (refused, object is null)", "DELETE", "configmaps/allowed")
    case.send("create secret (excluded)", "POST", "secrets", {"metadata": {"name": "s"}, "data": {}})


def test_namespace_selector_and_object(case: Case) -> None:
    case.policy("gold", [{"expression": "namespaceObject.metadata.labels.tier != 'gold' || 'ok' in object.data",
                          "messageExpression": "'namespace ' + namespaceObject.metadata.name + ' needs ok'"}],
                matchConstraints={"namespaceSelector": {"matchExpressions": [
                    {"key": "tier", "operator": "In", "values": ["gold"]},
                    {"key": "vap-case", "operator": "In", "values": [case.name]}]}})
    case.bind("gold", "gold", matchResources={"namespaceSelector": {"matchLabels": {"tier": "gold"}}})
    case.policy("silver", [{"expression": "false", "message": "silver"}],
                matchConstraints={"namespaceSelector": {"matchLabels": {"vap-case": case.name, "tier": "silver"}}})
    case.bind("silver", "silver")
    case.activate()
    case.send("create (refused)", "POST", "configmaps", config_map("n1"))
    case.send("create (allowed)", "POST", "configmaps", config_map("n2", {"ok": "1"}))


def test_updates_with_old_object(case: Case) -> None:
    case.policy("grow", [{"expression": "oldObject == null || int(object.data.v) >= int(oldObject.data.v)",
                          "messageExpression": "'v went from ' + oldObject.data.v + ' to ' + object.data.v"},
                         {"expression": "request.operation != 'UPDATE' || oldObject != null"}])
    case.bind("grow", "grow")
    case.policy("keep", [{"expression": "object == null && !has(oldObject.data.keep)",
                          "messageExpression": "'cannot delete ' + oldObject.metadata.name"}],
                matchConstraints={"resourceRules": [{"operations": ["DELETE"], "apiGroups": [""], "apiVersions": ["v1"],
                                                     "resources": ["configmaps"]}]})
    case.bind("keep", "keep")
    case.activate()
    case.send("create", "POST", "configmaps", config_map("g", {"v": "2"}))
    case.send("update (grows)", "PUT", "configmaps/g", config_map("g", {"v": "3"}))
    case.send("update (shrinks)", "PUT", "configmaps/g", config_map("g", {"v": "1"}))
    case.send("patch (shrinks)", "PATCH", "configmaps/g", {"data": {"v": "0"}},
              content_type="application/merge-patch+json")
    case.send("create (kept)", "POST", "configmaps", config_map("k", {"v": "1", "keep": "yes"}))
    case.send("delete (kept)", "DELETE", "configmaps/k")
    case.send("delete", "DELETE", "configmaps/g")
    case.send("create (kept, labelled)", "POST", "configmaps", config_map("k2", {"keep": "yes"}, {"grp": "kept"}))
    case.send("delete collection (kept)", "DELETE", "configmaps?labelSelector=grp%3Dkept")


def test_compile_errors_at_write_time(case: Case) -> None:
    name = case.name
    bad = {
        "syntax": [{"expression": "object.data.a ==", "message": "x"}],
        "undeclared": [{"expression": "obj.data.a == 'x'"}],
        "request-field": [{"expression": "request.nope == 'x'"}],
        "no-params": [{"expression": "params.data.a == 'x'"}],
        "no-variables": [{"expression": "variables.a == 'x'"}],
        "message-authorizer": [{"expression": "true", "messageExpression": "authorizer.group('').resource('x')"}],
        "dyn-result": [{"expression": "object.data.a"}],
        "string-message": [{"expression": "true", "messageExpression": "1 + 2"}],
        "request-types": [{"expression": "request.name == 1"}],
        "namespace-field": [{"expression": "namespaceObject.metadata.uid == 'x'"}],
        "authorizer": [{"expression": "authorizer.group('').resource('configmaps').check('create').allowed()"}],
    }
    for key, validations in bad.items():
        body = case.policy_body(key, validations)
        body["metadata"]["name"] = f"{name}-{key}"
        case.send_config(f"create policy ({key})", POLICIES, body)
    case.send_config("create policy (variables)", POLICIES, case.policy_body(
        "variables", [{"expression": "variables.b == 'x'"}],
        variables=[{"name": "a", "expression": "variables.b"}, {"name": "b", "expression": "object.nope("}]))
    case.send_config("create policy (match condition)", POLICIES, case.policy_body(
        "conditions", [{"expression": "true"}],
        matchConditions=[{"name": "c", "expression": "variables.a"}, {"name": "d", "expression": "'x'"}],
        variables=[{"name": "a", "expression": "true"}]))
    case.send_config("create policy (audit annotation)", POLICIES, case.policy_body(
        "annotation", [], auditAnnotations=[{"key": "k", "valueExpression": "1"},
                                            {"key": "l", "valueExpression": "object.data.a"}]))
    case.send_config("create policy (params)", POLICIES, case.policy_body(
        "params", [{"expression": "params.data.a == 'x'", "messageExpression": "params.data.b"}],
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"}))


def test_cluster_scoped_and_other_kinds(case: Case) -> None:
    namespaces = [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["namespaces"]}]
    only_case = {"objectSelector": {"matchLabels": {"vap-namespace": case.name}}, "namespaceSelector": {},
                 "resourceRules": namespaces}
    case.policy("namespaces", [{"expression": "namespaceObject == null && object.metadata.name.startsWith('vap-ok')",
                                "messageExpression": "'kind ' + request.kind.kind + ', name ' + object.metadata.name + "
                                                     "', namespace ' + request.namespace"}],
                matchConstraints=only_case)
    case.bind("namespaces", "namespaces")
    case.policy("namespaced-params", [{"expression": "true"}], paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
                matchConstraints=only_case)
    case.bind("namespaced-params", "namespaced-params",
              paramRef={"selector": {}, "parameterNotFoundAction": "Allow"},
              matchResources={"objectSelector": {"matchLabels": {"params": "namespaced"}}})
    case.policy("cluster-params", [{"expression": "true"}], paramKind={"apiVersion": "v1", "kind": "Namespace"},
                matchConstraints=only_case)
    case.bind("cluster-params", "cluster-params",
              paramRef={"name": "default", "namespace": "default", "parameterNotFoundAction": "Allow"},
              matchResources={"objectSelector": {"matchLabels": {"params": "cluster"}}})
    deployments = [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["apps"], "apiVersions": ["v1"],
                    "resources": ["deployments", "deployments/scale"]}]
    case.policy("replicas", [{"expression": "object.spec.replicas <= 5",
                              "messageExpression": "request.resource.resource + (request.subResource == '' ? '' : "
                                                   "'/' + request.subResource) + ': ' + string(object.spec.replicas) "
                                                   "+ ' replicas is too many'", "reason": "Forbidden"}],
                matchConstraints={"resourceRules": deployments})
    case.bind("replicas", "replicas")
    case.activate()
    for name, labels in (("vap-ok-1", {}), ("vap-bad-1", {}), ("vap-ok-2", {"params": "namespaced"}),
                         ("vap-ok-3", {"params": "cluster"})):
        case.pair.send(case.name, "Namespace", f"create namespace ({name})", "POST", "/api/v1/namespaces?dryRun=All",
                       body=orjson.dumps({"metadata": {"name": f"{name}-{case.name}"[:63],
                                                       "labels": {"vap-namespace": case.name, **labels}}}))
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {
        "replicas": 7, "selector": {"matchLabels": {"app": "d"}},
        "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    path = f"/apis/apps/v1/namespaces/{case.namespace}/deployments"
    case.pair.send(case.name, "Deployment", "create (too many)", "POST", path, body=orjson.dumps(deployment))
    deployment["spec"]["replicas"] = 2
    case.pair.send(case.name, "Deployment", "create", "POST", path, body=orjson.dumps(deployment))
    case.pair.send(case.name, "Deployment", "scale (too many)", "PATCH", f"{path}/d/scale",
                   body=orjson.dumps({"spec": {"replicas": 9}}), content_type="application/merge-patch+json")


def test_request_and_params_elsewhere(case: Case) -> None:
    for client in (case.pair.fake, case.pair.real):
        response = client.post("/api/v1/namespaces", json={"metadata": {"name": f"{case.namespace}-params"}})
        assert response.status_code in (201, 409), response.text
        response = client.post(f"/api/v1/namespaces/{case.namespace}-params/configmaps", json={
            "metadata": {"name": "shared"}, "data": {"suffix": "-ok"}})
        assert response.status_code in (201, 409), response.text
    case.policy("suffix", [
        {"expression": "object.metadata.name.endsWith(params.data.suffix)",
         "messageExpression": "request.operation + ' ' + request.namespace + '/' + request.name + ' needs '"
                              " + params.data.suffix + (request.dryRun ? ' (dry run)' : '')"},
        {"expression": "variables.user != ''", "message": "no user"}],
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"}, variables=[
            {"name": "user", "expression": "request.userInfo.username"}])
    case.bind("suffix", "suffix", ("Warn", "Audit"), paramRef={
        "name": "shared", "namespace": f"{case.namespace}-params", "parameterNotFoundAction": "Deny"})
    case.activate()
    case.send("create (warned)", "POST", "configmaps", config_map("plain"))
    case.send("dry-run create (warned)", "POST", "configmaps?dryRun=All", config_map("dry"))
    case.send("create (fine)", "POST", "configmaps", config_map("fine-ok"))
    case.send("update (warned)", "PUT", "configmaps/plain", config_map("plain", {"x": "y"}))


def test_custom_resource_params(case: Case) -> None:
    group, plural = "vap.kasdiff.dev", "vaplimits"
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": f"{plural}.{group}"},
           "spec": {"group": group, "scope": "Cluster", "names": {"plural": plural, "kind": "VapLimit"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                        "type": "object", "properties": {"spec": {"type": "object", "properties": {
                            "max": {"type": "integer"}}}}}}}]}}
    collection = f"/apis/{group}/v1/{plural}"
    for client in case._clients():
        assert client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd).status_code in (201, 409)
        deadline = time.monotonic() + 30
        while client.get(collection).status_code != 200:  # kube serves a new CRD once it is established
            assert time.monotonic() < deadline, "the CRD is never served"
            time.sleep(0.1)
        response = client.post(collection, json={"apiVersion": f"{group}/v1", "kind": "VapLimit",
                                                 "metadata": {"name": "default-limit"}, "spec": {"max": 1}})
        assert response.status_code in (201, 409), response.text
    param_kind = {"apiVersion": f"{group}/v1", "kind": "VapLimit"}
    case.policy("limit", [{"expression": "size(object.data) <= params.spec.max",
                           "messageExpression": "'at most ' + string(params.spec.max) + ' keys (' + params.kind + ' '"
                                                " + params.metadata.name + ')'"}], paramKind=param_kind)
    case.bind("limit", "limit", paramRef={"name": "default-limit", "parameterNotFoundAction": "Deny"})
    case.policy("namespaced-ref", [{"expression": "true"}], paramKind=param_kind,
                matchConstraints={"objectSelector": {"matchLabels": {"ref": "namespaced"}}})
    case.bind("namespaced-ref", "namespaced-ref", paramRef={
        "name": "default-limit", "namespace": "default", "parameterNotFoundAction": "Deny"})
    case.activate()
    # kube maps a custom paramKind once its discovery knows the resource, maybe a refresh later
    case.wait_for(config_map("ready", {"a": "1", "b": "2"}), "at most 1 keys (VapLimit default-limit)")
    case.send("create (one key)", "POST", "configmaps", config_map("one"))
    case.send("create (two keys)", "POST", "configmaps", config_map("two", {"a": "1", "b": "2"}))
    case.send("create (namespace for cluster-scoped params)", "POST", "configmaps",
              config_map("ref", labels={"ref": "namespaced"}))
    for client in case._clients():
        client.delete(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{plural}.{group}")


def test_match_policy_across_versions(case: Case) -> None:
    """Policies whose rule names autoscaling/v1 HorizontalPodAutoscalers: under ``matchPolicy:
    Equivalent`` a write sent in autoscaling/v2 (the same storage) is matched and the policy
    given the object in v1 (``request.kind`` v1, ``request.requestKind`` v2); under ``Exact``
    only a write sent in v1. The Exact one refuses more than 5 replicas, the Equivalent one more
    than 7, so each refusal names one policy."""
    v1_rule = [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v1"],
                "resources": ["horizontalpodautoscalers"]}]
    message = ("'" + "{policy}: kind ' + request.kind.version + ', requested ' + request.requestKind.version + "
               "', resource ' + request.resource.version + ', requested ' + request.requestResource.version + "
               "', object ' + object.apiVersion + ', cpu ' + string(object.spec.targetCPUUtilizationPercentage)")
    for policy, most in (("Exact", 5), ("Equivalent", 7)):
        name = policy.lower()
        case.policy(name, [{"expression": f"object.spec.maxReplicas <= {most}",
                            "messageExpression": message.replace("{policy}", name)}],
                    matchConstraints={"resourceRules": v1_rule, "matchPolicy": policy})
        case.bind(name, name)
    case.activate()

    def hpa(version: str, name: str, replicas: int) -> bytes:
        spec = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "minReplicas": 1,
                "maxReplicas": replicas}
        if version == "v1":
            spec["targetCPUUtilizationPercentage"] = 70
        else:
            spec["metrics"] = [{"type": "Resource", "resource": {
                "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]
        return orjson.dumps({"apiVersion": f"autoscaling/{version}", "kind": "HorizontalPodAutoscaler",
                             "metadata": {"name": name}, "spec": spec})

    for verb, version, name, replicas in (("create in v2 (not Exact's)", "v2", "six", 6),
                                          ("create in v2 (Equivalent's refusal)", "v2", "eight", 8),
                                          ("create in v1 (Exact's refusal)", "v1", "six-v1", 6),
                                          ("create in v1 (allowed)", "v1", "four", 4)):
        case.pair.send(case.name, "HorizontalPodAutoscaler", verb, "POST",
                       f"/apis/autoscaling/{version}/namespaces/{case.namespace}/horizontalpodautoscalers",
                       body=hpa(version, name, replicas))


# --- the authorizer library, on the RBAC servers of test_access --------------------------------

#: Both servers with RBAC and the token file's users (a module-scoped pair of its own).
rbac_servers = test_access.servers
AUTHZ_NS = "vap-authz"
_RBAC = "rbac.authorization.k8s.io"
#: The policies of the authorizer cases, each for the configmaps labelled ``check: <its key>``.
_AUTHZ_DELETE = ("authorizer.group('apps').resource('deployments').namespace(object.metadata.namespace)"
                 ".check('delete')")
_AUTHZ_ACCOUNT = ("authorizer.serviceAccount(object.data.namespace, object.data.account).group('').resource('secrets')"
                  ".namespace('vap-authz').check('get').allowed()")
_AUTHZ_POLICIES: dict[str, Json] = {
    "delete": {"validations": [{"expression": f"{_AUTHZ_DELETE}.allowed()", "message": "may not delete deployments"}]},
    "update": {"validations": [{"expression": "authorizer.requestResource.check('update').allowed()",
                                "message": "may not update it"}]},
    "path": {"validations": [
        {"expression": "authorizer.path('/healthz').check('get').allowed()", "message": "may not get /healthz"},
        {"expression": "authorizer.path('/metrics').check('get').allowed()", "message": "may not get /metrics"}]},
    "account": {"validations": [{"expression": _AUTHZ_ACCOUNT, "message": "the account may not get secrets"}]},
    # a decision's texts shown in the error of a missing key (kube's messageExpression cannot
    # read a variable that uses the authorizer: it falls back to the expression)
    "decision": {"variables": [{"name": "decision", "expression": _AUTHZ_DELETE}],
                 "validations": [{"expression": "object.data['reason=' + variables.decision.reason() + ' errored=' + "
                                                "string(variables.decision.errored()) + ' error=' + "
                                                "variables.decision.error()] == ''"}]},
    "condition": {"matchConditions": [{"name": "updaters", "expression":
                                       "authorizer.group('').resource('configmaps').namespace('vap-authz')"
                                       ".check('update').allowed()"}],
                  "validations": [{"expression": "object.metadata.name == 'never'", "message": "updaters refused"}]},
    "condition-error": {"matchConditions": [{"name": "account", "expression": _AUTHZ_ACCOUNT}],
                        "validations": [{"expression": "object.metadata.name == 'never'", "message": "matched"}]},
    # kube's audit annotations have no authorizer bound: each use fails (as an unresolved name)
    "annotation": {"validations": [], "auditAnnotations": [
        {"key": "path", "valueExpression": "authorizer.path(object.data.path).check('get').reason()"}]},
    "annotation-resource": {"validations": [], "auditAnnotations": [
        {"key": "reason", "valueExpression": "authorizer.requestResource.check('update').reason()"}]},
    "misuse": {"validations": [{"expression": "authorizer.path(object.data.path).check('get').allowed()"},
                               {"expression": "authorizer.group('').resource(object.data.resource).check('get')"
                                              ".allowed()"}]},
}


def _rbac_grant(servers: test_access.Servers, name: str, rules: list[Json], subject: Json,
                cluster: bool = False) -> None:
    """A Role (a ClusterRole when ``cluster``) of ``rules`` bound to ``subject``."""
    base = f"{test_access.RBAC_V1}/" if cluster else f"{test_access.RBAC_V1}/namespaces/{AUTHZ_NS}/"
    kind = "ClusterRole" if cluster else "Role"
    servers.setup("POST", base + ("clusterroles" if cluster else "roles"), {"metadata": {"name": name}, "rules": rules})
    servers.setup("POST", base + ("clusterrolebindings" if cluster else "rolebindings"), {
        "metadata": {"name": name}, "roleRef": {"apiGroup": _RBAC, "kind": kind, "name": name}, "subjects": [subject]})


def _until_allowed_both(servers: test_access.Servers, user: str, attributes: Json) -> None:
    """Wait until both servers' RBAC lets ``user`` do what ``attributes`` say."""
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
              "spec": {"user": user, **attributes}}
    for client in (servers.fake.http, servers.real.http):
        eventually(lambda c=client: c.post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                                           json=review).json()["status"].get("allowed"), f"{user} may {attributes}")


def test_authorizer_library(rbac_servers: test_access.Servers) -> None:
    """The same users' dry-run creates of configmaps checked by policies that ask the
    authorizer: who may delete deployments, update the request's own configmap, get
    non-resource paths; a service account's access; a decision's reason and error; a match
    condition; the library's errors. Every user may create configmaps in the namespace."""
    servers = rbac_servers
    servers.setup("POST", "/api/v1/namespaces", {"metadata": {"name": AUTHZ_NS}})
    user = {"apiGroup": _RBAC, "kind": "User"}
    _rbac_grant(servers, "creators", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]}],
                {"apiGroup": _RBAC, "kind": "Group", "name": "system:authenticated"})
    _rbac_grant(servers, "deployment-deleter", [{"apiGroups": ["apps"], "resources": ["deployments"],
                                                 "verbs": ["delete"]}], {**user, "name": "jane"})
    _rbac_grant(servers, "updater", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["update"],
                                      "resourceNames": ["by-joe"]}], {**user, "name": "joe"})
    _rbac_grant(servers, "vap-metrics-reader", [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}],
                {**user, "name": "ann"}, cluster=True)
    _rbac_grant(servers, "secret-reader", [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}],
                {"kind": "ServiceAccount", "name": "robot", "namespace": AUTHZ_NS})
    # joe's binding to a missing role: the reason of his decisions names it
    servers.setup("POST", f"{test_access.RBAC_V1}/namespaces/{AUTHZ_NS}/rolebindings", {
        "metadata": {"name": "joe-missing"}, "roleRef": {"apiGroup": _RBAC, "kind": "Role", "name": "no-such-role"},
        "subjects": [{**user, "name": "joe"}]})
    for name, attributes in (
            ("jane", {"resourceAttributes": {"group": "apps", "resource": "deployments", "verb": "delete",
                                             "namespace": AUTHZ_NS}}),
            ("joe", {"resourceAttributes": {"resource": "configmaps", "verb": "update", "name": "by-joe",
                                            "namespace": AUTHZ_NS}}),
            ("ann", {"nonResourceAttributes": {"path": "/metrics", "verb": "get"}}),
            (f"system:serviceaccount:{AUTHZ_NS}:robot", {"resourceAttributes": {
                "resource": "secrets", "verb": "get", "namespace": AUTHZ_NS}})):
        _until_allowed_both(servers, name, attributes)
    for key, spec in _AUTHZ_POLICIES.items():
        name = f"vap-authz-{key}"
        probe = {"expression": "!('probe' in object.metadata.labels)", "message": "probe"}
        body = {"failurePolicy": "Fail", "matchConstraints": {
            "resourceRules": CONFIG_MAPS,
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": AUTHZ_NS}},
            "objectSelector": {"matchLabels": {"check": key}}}, **spec}
        body["validations"] = [probe, *spec["validations"]]
        servers.setup("POST", _API + POLICIES, {"metadata": {"name": name}, "spec": body})
        servers.setup("POST", _API + BINDINGS, {"metadata": {"name": name}, "spec": {
            "policyName": name, "validationActions": ["Deny"]}})
    configmaps = f"/api/v1/namespaces/{AUTHZ_NS}/configmaps?dryRun=All"
    # what every policy's expressions read of the object, valid
    probe_data = {"namespace": AUTHZ_NS, "account": "robot", "path": "/x", "resource": "pods"}
    for key in _AUTHZ_POLICIES:
        # active on both servers once the administrator's probe is refused (a match condition's
        # policy: once it is, for the administrator may update)
        for client in (servers.fake.http, servers.real.http):
            eventually(lambda c=client, k=key: c.post(configmaps, json={
                "metadata": {"name": "probe", "labels": {"check": k, "probe": "yes"}}, "data": probe_data,
            }).json().get("message", "").endswith("probe"), f"the policy of {key} enforced")

    def create(case: str, who: tuple[Pair, dict[str, str]], key: str, name: str,
               data: dict[str, str] | None = None) -> None:
        body = orjson.dumps({"metadata": {"name": name, "labels": {"check": key}}, "data": data or {}})
        pair, headers = who
        outcome = pair.send(f"vap-authz-{key}-{case}", "ConfigMap", "create", "POST", configmaps,
                                         body=body, headers=headers)
        assert outcome.matched, "\n".join(outcome.differences)

    jane = (servers.anonymous, test_access.JANE)
    users = {"jane": jane, "joe": (servers.anonymous, test_access.JOE),
             "ann": (servers.anonymous, {"Authorization": "Bearer ann-token"}), "admin": (servers.admin, {}),
             "impersonated": (servers.admin, {"Impersonate-User": "joe", "Impersonate-Group": "devs"})}
    robot = {"namespace": AUTHZ_NS, "account": "robot"}
    for who, sender in users.items():
        create(who, sender, "delete", "c")
        create(who, sender, "update", "by-joe")
        create(f"{who}-other-name", sender, "update", "other")
        create(who, sender, "path", "c")
        create(who, sender, "account", "c", robot)
        create(who, sender, "decision", "c", {"a": "b"})
        create(who, sender, "condition", "c")
    for case, data in (("other-account", {**robot, "account": "other"}),
                       ("account-bad-name", {**robot, "account": "Bad_Name"}),
                       ("account-bad-namespace", {**robot, "namespace": "a.b"})):
        create(case, jane, "account", "c", data)
    for case, data in (("valid-account", robot), ("bad-account", {**robot, "account": "Bad_Name"})):
        create(case, jane, "condition-error", "c", data)
    for key in ("annotation", "annotation-resource"):
        create("path", jane, key, "c", {"path": "/x"})
    for case, data in (("empty-path", {"path": " ", "resource": "pods"}),
                       ("empty-resource", {"path": "/healthz", "resource": ""})):
        create(case, jane, "misuse", "c", data)


def test_authorizer_misuse_at_write_time(case: Case) -> None:
    """Policies calling the authorizer library where its types do not allow it: kube's type
    checker refuses them when they are written."""
    misuses = {
        "no-group": "authorizer.resource('pods').check('get').allowed()",
        "group-check": "authorizer.group('').check('get').allowed()",
        "path-namespace": "authorizer.path('/x').namespace('a').check('get').allowed()",
        "decision-bool": "authorizer.path('/x').check('get')",
        "not-allowed": "authorizer.group('').resource('pods').allowed()",
        "int-group": "authorizer.group(1).resource('pods').check('get').allowed()",
        "account-arity": "authorizer.serviceAccount('a').path('/x').check('get').allowed()",
        "request-resource-field": "authorizer.requestResource.name('x').subresource('y').check('get').allowed()",
        "selectors": "authorizer.group('').resource('pods').fieldSelector('a=b').labelSelector('c').check('list')"
                     ".errored()",
        "reason-string": "authorizer.path('/x').check('get').reason() == ''",
        "variable-decision": "variables.d.allowed()",
    }
    annotation = case.policy_body("annotation-decision", [], auditAnnotations=[
        {"key": "decision", "valueExpression": "authorizer.path('/x').check('get')"}])
    case.send_config("create policy (annotation-decision)", POLICIES, annotation)
    for key, expression in misuses.items():
        body = case.policy_body(key, [{"expression": expression}],
                                variables=[{"name": "d", "expression": "authorizer.path('/x').check('get')"}])
        case.send_config(f"create policy ({key})", POLICIES, body)
