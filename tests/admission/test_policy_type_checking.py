"""A policy's type checking (``fakeapi.admission.policy.typechecking``) over a fixed set of
kinds: which kinds kube's ``typesToCheck`` picks from the resource rules, the warning of an
expression over several kinds, params, variables, and built-in kinds' schemas resolved as kube
declares them (IntOrString a dyn, Quantity no field)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.admission.policy.typechecking import (
    MAX_TYPES_TO_CHECK,
    GroupVersionKind,
    builtin_schema,
    expression_warnings,
    types_to_check,
)

WIDGET = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}


_KINDS = {"deployments": "Deployment", "replicasets": "ReplicaSet", "daemonsets": "DaemonSet", "configmaps": "ConfigMap"}


class Kinds:
    """Every plural ``<kind>s`` of any group version is served as ``<Kind>`` (built-in kinds'
    plurals as kube names them); schemas are built-in kinds' and ``Widget``'s."""

    def kinds_for(self, group: str, version: str, resource: str) -> list[GroupVersionKind]:
        return [(group, version, _KINDS.get(resource, resource[:-1].capitalize()))]

    def schema(self, group: str, version: str, kind: str) -> Mapping[str, Any] | None:
        return WIDGET if kind == "Widget" else builtin_schema(group, version, kind)


def _rule(groups: list[str], versions: list[str], resources: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "apiVersions": versions, "resources": resources, "operations": ["CREATE"]}


def _spec(*rules: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"matchConstraints": {"resourceRules": list(rules)}, **fields}


def test_the_kinds_checked_are_those_named_exactly_sorted() -> None:
    spec = _spec(_rule(["b", "a"], ["v1"], ["zs", "ys", "ws/status", "*"]), _rule(["*"], ["v1"], ["xs"]),
                 _rule(["c"], ["*"], ["xs"]), _rule(["c"], ["v1"], []))
    assert types_to_check(spec, Kinds()) == [("a", "v1", "Y"), ("a", "v1", "Z"), ("b", "v1", "Y"), ("b", "v1", "Z")]


def test_a_rule_contributes_at_most_ten_kinds() -> None:
    resources = [f"r{index:02}s" for index in range(12)]
    kinds = types_to_check(_spec(_rule(["g"], ["v1"], resources)), Kinds())
    assert kinds == [("g", "v1", f"R{index:02}") for index in range(MAX_TYPES_TO_CHECK)]


def test_a_warning_names_each_kind_with_errors() -> None:
    spec = _spec(_rule(["apps"], ["v1"], ["deployments", "replicasets", "daemonsets"]),
                 validations=[{"expression": "object.spec.replicas > 0", "messageExpression": "'x' + object.spec.nope"}])
    error = "ERROR: <input>:1:18: undefined field 'nope'\n | 'x' + object.spec.nope\n | .................^\n"
    assert expression_warnings(spec, Kinds()) == [
        {"fieldRef": "spec.validations[0].expression", "warning": (  # a DaemonSet has no replicas
            "apps/v1, Kind=DaemonSet: ERROR: <input>:1:12: undefined field 'replicas'\n"
            " | object.spec.replicas > 0\n | ...........^\n")},
        {"fieldRef": "spec.validations[0].messageExpression", "warning": "\n".join(
            f"apps/v1, Kind={kind}: {error}" for kind in ("DaemonSet", "Deployment", "ReplicaSet"))}]


def test_params_and_variables_are_typed() -> None:
    spec = _spec(_rule([""], ["v1"], ["configmaps"]), paramKind={"apiVersion": "example.com/v1", "kind": "Widget"},
                 variables=[{"name": "size", "expression": "params.spec.size"}],
                 validations=[{"expression": "variables.size == object.data.x"}, {"expression": "params.spec.size > 0"}])
    assert expression_warnings(spec, Kinds()) == [{"fieldRef": "spec.validations[0].expression", "warning": (
        "/v1, Kind=ConfigMap: ERROR: <input>:1:16: found no matching overload for '_==_' applied to '(int, string)'\n"
        " | variables.size == object.data.x\n | ...............^\n")}]


def test_params_of_a_kind_without_a_schema_are_undeclared() -> None:
    spec = _spec(_rule([""], ["v1"], ["configmaps"]), paramKind={"apiVersion": "example.com/v1", "kind": "Nope"},
                 validations=[{"expression": "params.x == object.data.x"}])
    assert expression_warnings(spec, Kinds()) == [{"fieldRef": "spec.validations[0].expression", "warning": (
        "/v1, Kind=ConfigMap: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n"
        " | params.x == object.data.x\n | ^\n")}]


def test_builtin_schemas_are_resolved_as_kube_declares_them() -> None:
    deployment = builtin_schema("apps", "v1", "Deployment")
    assert deployment is not None
    rolling = deployment["properties"]["spec"]["properties"]["strategy"]["properties"]["rollingUpdate"]
    assert rolling["properties"]["maxSurge"] == {"x-kubernetes-int-or-string": True}
    assert deployment["properties"]["metadata"]["properties"]["name"]["type"] == "string"
    pod = builtin_schema("", "v1", "Pod")
    assert pod is not None
    container = pod["properties"]["spec"]["properties"]["containers"]["items"]
    assert "type" not in container["properties"]["resources"]["properties"]["limits"]["additionalProperties"]
    assert builtin_schema("example.com", "v1", "Widget") is None
