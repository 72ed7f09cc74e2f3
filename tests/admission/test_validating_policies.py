"""ValidatingAdmissionPolicies enforced by ``fakeapi.admission.policy`` on its own, over stored
objects in memory: compiled once per stored version, variables evaluated only when read and
once per evaluation, a failing variable failing only what needs it, params by name and by
selector, the first refusal's status, warnings, and what is not enforced (exempt resources,
unbound policies). tests/kasdiff/test_admission_policies.py compares the same with kube."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.admission.policy import compiled as dispatch_compiled
from fakeapi.admission.policy import dispatch
from fakeapi.admission.policy.compiled import variable_reads
from fakeapi.admission.policy.dispatch import PolicyDispatcher
from fakeapi.admission.webhook.request import Attributes, ServedVersion, WebhookRequest
from fakeapi.machinery import warning
from fakeapi.machinery.status import StatusError

GROUP = "admissionregistration.k8s.io"
REQUEST = WebhookRequest({"username": "u"}, {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"})
CONFIG_MAPS = [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}]


class Store:
    """Stored objects by (group, kind): lists keep their identity until a write, as the
    registry's watch-cache lists do."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.lists = 0

    def put(self, group: str, kind: str, obj: dict[str, Any]) -> None:
        self.objects[(group, kind)] = [*self.objects.get((group, kind), []), obj]

    def lookup(self, group: str, kind: str, namespace: str | None, name: str) -> dict[str, Any] | None:
        return next((o for o in self.list(group, kind, namespace) if o["metadata"]["name"] == name), None)

    def list(self, group: str, kind: str, namespace: str | None) -> list[dict[str, Any]]:
        found = self.objects.setdefault((group, kind), [])
        if namespace is None:
            return found
        return [o for o in found if o["metadata"].get("namespace") == namespace]


@pytest.fixture
def store() -> Store:
    stored = Store()
    stored.put("", "Namespace", {"metadata": {"name": "ns", "labels": {"team": "a"}}})
    return stored


def policy(store: Store, name: str, validations: list[dict[str, Any]], actions: tuple[str, ...] = ("Deny",),
           binding: dict[str, Any] | None = None, **spec: Any) -> None:
    store.put(GROUP, "ValidatingAdmissionPolicy", {"metadata": {"name": name}, "spec": {
        "failurePolicy": "Fail", "matchConstraints": {"resourceRules": CONFIG_MAPS}, "validations": validations,
        **spec}})
    store.put(GROUP, "ValidatingAdmissionPolicyBinding", {"metadata": {"name": f"{name}-binding"}, "spec": {
        "policyName": name, "validationActions": list(actions), **(binding or {})}})


def attrs(data: dict[str, str], name: str = "cm", resource: str = "configmaps", group: str = "") -> Attributes:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ns"}, "data": data}
    return Attributes("CREATE", group, "v1", "ConfigMap", resource, "", "ns", name, obj, None, REQUEST)


def refusal(dispatcher: PolicyDispatcher, attributes: Attributes) -> StatusError:
    with pytest.raises(StatusError) as raised:
        dispatcher.validate(attributes)
    return raised.value


def test_refusal_is_kubes_status(store: Store) -> None:
    policy(store, "p", [{"expression": "!('x' in object.data)", "message": "no x", "reason": "Forbidden"}])
    error = refusal(PolicyDispatcher(store.lookup, store.list), attrs({"x": "1"}))
    message = "ValidatingAdmissionPolicy 'p' with binding 'p-binding' denied request: no x"
    assert error.to_dict() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f'configmaps "cm" is forbidden: {message}', "reason": "Forbidden",
        "details": {"name": "cm", "kind": "configmaps", "causes": [{"message": message}]}, "code": 403}


def test_compiled_once_per_stored_version(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[list[str]] = []

    def counting(policies: list[dict[str, Any]], bindings: list[dict[str, Any]]) -> Any:
        compiled.append([p["metadata"]["name"] for p in policies])
        return dispatch_compiled.compile_hooks(policies, bindings)

    monkeypatch.setattr(dispatch, "compile_hooks", counting)
    policy(store, "p", [{"expression": "true"}])
    dispatcher = PolicyDispatcher(store.lookup, store.list)
    for _ in range(3):
        dispatcher.validate(attrs({}))
    policy(store, "q", [{"expression": "true"}])
    dispatcher.validate(attrs({}))
    assert compiled == [["p"], ["p", "q"]]


def test_variables_are_read_lazily(store: Store) -> None:
    policy(store, "p", [{"expression": "!variables.marked || variables.broken == 'x'", "message": "marked"}],
           variables=[{"name": "marked", "expression": "'mark' in object.data"},
                      {"name": "broken", "expression": "object.data.missing"},
                      {"name": "never", "expression": "1 / 0 == 1"}])
    dispatcher = PolicyDispatcher(store.lookup, store.list)
    dispatcher.validate(attrs({"a": "1"}))  # broken is never needed, never is never read
    error = refusal(dispatcher, attrs({"mark": "1"}))
    assert error.message.endswith("denied request: expression '!variables.marked || variables.broken == 'x'' "
                                  "resulted in error: composited variable \"broken\" fails to evaluate: "
                                  "no such key: missing")
    assert error.code == 422 and error.reason == "Invalid"


def test_warn_and_audit_refuse_nothing(store: Store) -> None:
    policy(store, "w", [{"expression": "false", "messageExpression": "'warned ' + object.metadata.name"}], ("Warn",))
    policy(store, "a", [{"expression": "false"}], ("Audit",))
    with warning.recording() as recorded:
        PolicyDispatcher(store.lookup, store.list).validate(attrs({}))
    assert recorded == [warning.header("Validation failed for ValidatingAdmissionPolicy 'w' with binding "
                                       "'w-binding': warned cm")]


def test_params_by_name_and_selector(store: Store) -> None:
    store.put("", "ConfigMap", {"metadata": {"name": "limits", "namespace": "ns", "labels": {"p": "y"}},
                                "data": {"max": "1"}})
    kind = {"apiVersion": "v1", "kind": "ConfigMap"}
    rule = [{"expression": "size(object.data) <= int(params.data.max)", "message": "too many"}]
    policy(store, "by-name", rule, paramKind=kind,
           binding={"paramRef": {"name": "limits", "parameterNotFoundAction": "Deny"}})
    policy(store, "by-selector", rule, paramKind=kind,
           binding={"paramRef": {"selector": {"matchLabels": {"p": "y"}}, "parameterNotFoundAction": "Deny"}})
    dispatcher = PolicyDispatcher(store.lookup, store.list)
    dispatcher.validate(attrs({"a": "1"}))
    assert "'by-name' with binding 'by-name-binding' denied request: too many" in \
        refusal(dispatcher, attrs({"a": "1", "b": "2"})).message
    store.objects[("", "ConfigMap")] = []
    assert refusal(dispatcher, attrs({})).message.endswith(
        "denied request: failed to configure binding: no params found for policy binding with `Deny` "
        "parameterNotFoundAction")


def test_not_enforced(store: Store) -> None:
    store.put(GROUP, "ValidatingAdmissionPolicy", {"metadata": {"name": "unbound"}, "spec": {
        "failurePolicy": "Fail", "matchConstraints": {"resourceRules": CONFIG_MAPS},
        "validations": [{"expression": "false"}]}})
    dispatcher = PolicyDispatcher(store.lookup, store.list)
    assert not dispatcher.configured()
    dispatcher.validate(attrs({}))
    policy(store, "everything", [{"expression": "false"}], matchConstraints={"resourceRules": [
        {"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}]})
    dispatcher.validate(attrs({}, "p", "validatingadmissionpolicies", GROUP))  # exempt: policies can be fixed


@pytest.mark.parametrize(("source", "reads"), [
    ("variables.a + variables['b'] + variables.a", ("a", "b")),
    ("object.variables.a == x.variables", ()),
    ("variables.a.variables.c", ("a",)),
])
def test_variable_reads(source: str, reads: tuple[str, ...]) -> None:
    assert variable_reads(source) == reads


def test_custom_resource_params(store: Store) -> None:
    kind = {"apiVersion": "example.dev/v1", "kind": "Limit"}
    policy(store, "custom", [{"expression": "size(object.data) <= params.spec.max", "message": "too many"}],
           paramKind=kind, binding={"paramRef": {"name": "limit", "parameterNotFoundAction": "Deny"}})
    dispatcher = PolicyDispatcher(store.lookup, store.list)
    assert refusal(dispatcher, attrs({})).message.endswith(
        "ValidatingAdmissionPolicy 'custom' denied request: failed to configure policy: failed to find resource "
        "referenced by paramKind: 'example.dev/v1, Kind=Limit'")
    store.put("apiextensions.k8s.io", "CustomResourceDefinition", {
        "metadata": {"name": "limits.example.dev"},
        "spec": {"group": "example.dev", "scope": "Cluster", "names": {"plural": "limits", "kind": "Limit"},
                 "versions": [{"name": "v1", "served": True, "storage": True}]},
        "status": {"conditions": [{"type": "Established", "status": "True"}]}})
    store.put("example.dev", "Limit", {"metadata": {"name": "limit"}, "spec": {"max": 1}})
    dispatcher.validate(attrs({"a": "1"}))
    assert refusal(dispatcher, attrs({"a": "1", "b": "2"})).message.endswith("denied request: too many")


def _hpa_versions() -> tuple[ServedVersion, ...]:
    """HorizontalPodAutoscalers stored as autoscaling/v2, served as v1 too."""
    def to_v1(obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "apiVersion": "autoscaling/v1"}

    def to_v2(obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "apiVersion": "autoscaling/v2"}

    return tuple(ServedVersion("autoscaling", version, "horizontalpodautoscalers", "HorizontalPodAutoscaler",
                               convert, to_v2) for version, convert in (("v1", to_v1), ("v2", to_v2)))


@pytest.mark.parametrize(("match", "version"), [
    ({"matchPolicy": "Exact"}, None),
    ({"matchPolicy": "Equivalent"}, "v1"),
    # the names limit a rule on the request's own version only (kube's matchesResourceRules)
    ({"matchPolicy": "Equivalent", "names": ["other"]}, "v1"),
    ({"matchPolicy": "Equivalent", "exclude": True}, None),
])
def test_match_policy_equivalent(match: dict[str, Any], version: str | None) -> None:
    rule: dict[str, Any] = {"operations": ["CREATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v1"],
                            "resources": ["horizontalpodautoscalers"], "resourceNames": match.get("names", [])}
    everything = {**rule, "apiVersions": ["*"], "resourceNames": []}
    constraints = dispatch_compiled.MatchResources.of({
        "matchPolicy": match["matchPolicy"], "resourceRules": [everything if match.get("exclude") else rule],
        "excludeResourceRules": [rule] if match.get("exclude") else []})
    stored = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"}}
    attrs = Attributes("CREATE", "autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", "",
                       "ns", "h", stored, None, REQUEST, versions=_hpa_versions())
    matched = constraints.matched(attrs, lambda: {})
    assert (matched and matched.version) == version
    if matched is not None:
        assert matched.object == {**stored, "apiVersion": "autoscaling/v1"}
        assert matched.request_kind == {"group": "autoscaling", "version": "v2", "kind": "HorizontalPodAutoscaler"}
