"""ValidatingAdmissionPolicies' ``status.typeChecking`` against kube's: a real kube-apiserver
with the real kube-controller-manager running only its ``validatingadmissionpolicy-status``
controller, and fakeapi running only its own. The same CRD and policies are created on both;
once each server has written a policy's status (its ``observedGeneration`` reached), the policy
is read from both and its status compared: the warnings' field references and texts byte for
byte, for policies on Deployments, Pods, ConfigMaps, two kinds at once, a CRD, with params of a
built-in kind and of the CRD, with variables, and clean ones; a changed policy is checked again
(its warnings gone when it is fixed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from differ import Outcome, Pair
from fakeapi.cluster.control_plane import ControllerManager, Etcd, KubeAPIServer
from fakeapi.testing import ServerProcess
from fakeapi.testing.eventually import eventually

POLICIES = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
CRD = {"metadata": {"name": "widgets.typecheck.example.com"}, "spec": {
    "group": "typecheck.example.com", "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {"spec": {"type": "object", "properties": {
            "size": {"type": "integer"}, "color": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "port": {"x-kubernetes-int-or-string": True}}}}}}}]}}


def _rules(group: str, resources: list[str], version: str = "v1") -> dict[str, Any]:
    return {"resourceRules": [{"operations": ["CREATE"], "apiGroups": [group], "apiVersions": [version],
                               "resources": resources}]}


DEPLOYMENTS = _rules("apps", ["deployments"])
PODS = _rules("", ["pods"])
CONFIG_MAPS = _rules("", ["configmaps"])
WIDGETS = _rules("typecheck.example.com", ["widgets"])

#: name: the policy's spec less its failurePolicy.
CASES: dict[str, dict[str, Any]] = {
    "deployment-fields": {"matchConstraints": DEPLOYMENTS, "validations": [
        {"expression": "object.spec.replicas > 1"},
        {"expression": "object.foo == 1", "messageExpression": "'x' + object.spec.bar"},
        {"expression": "object.foo == 1 && object.bar == 2"},
        {"expression": "object.spec.foo.bar.baz == 1 || object.spec.qux"},
        {"expression": "object.foo.bar == 1 && object.spec.baz + object.spec.replicas == 'a'"},
        {"expression": "object.spec.template.spec.containers.all(c, c.image.startsWith('registry/'))"},
        {"expression": "object.spec.strategy.rollingUpdate.maxSurge == 1"}]},
    "pod-fields": {"matchConstraints": PODS, "validations": [
        {"expression": "object.spec.containers.all(c, c.imag == 'x')"},
        {"expression": "object.metadata.labels.x == 'y' && object.metadata.nope == 1"},
        {"expression": "has(object.spec.zzz)"},
        {"expression": "object.spec.containers[0].resources.limits.cpu == 'a'"},
        {"expression": "object.spec.nodeName.foo == 'a'"},
        {"expression": "!object.spec.hostNetwork"},
        {"expression": "object.spec.containers.map(c, c.name).exists(n, n > 1)"},
        {"expression": "object.spec.containers.size() < 8 && object.metadata.name.size() > 0"}]},
    "pod-overloads": {"matchConstraints": PODS, "validations": [
        {"expression": "object.spec.nodeName - 1 == 1"},
        {"expression": "object.spec.priority + 'a' == 'b'"},
        {"expression": "object.spec.containers[0].name.endsWith('x') && object.spec.priority.endsWith('x')"},
        {"expression": "object.metadata.creationTimestamp < 'x'"},
        {"expression": "'web' in object.metadata.labels && 1 in object.metadata.finalizers"},
        {"expression": "object.metadata.finalizers[0] == 'a' && object.metadata.labels[1] == 'a'"},
        {"expression": "object.spec.containers.map(c, c.name) + [1] == []"},
        {"expression": "(object.spec.hostNetwork ? object.spec.priority : 'a') == 'a'"}]},
    "two-kinds": {"matchConstraints": _rules("apps", ["deployments", "replicasets"]), "validations": [
        {"expression": "object.spec.replicas > 0 && object.spec.foo == 1"},
        {"expression": "object.spec.replicas > 0"}]},
    "singular-and-subresources": {"matchConstraints": {"resourceRules": [
        {"operations": ["CREATE"], "apiGroups": ["apps"], "apiVersions": ["v1", "v1beta1"],
         "resources": ["deployment", "replicasets/status", "*"]}]}, "validations": [
        {"expression": "object.spec.foo == 1"}]},
    "params-without-schema": {"matchConstraints": CONFIG_MAPS, "paramKind": {"apiVersion": "example.com/v1", "kind": "Nope"},
                              "validations": [
        {"expression": "object.foo == 1"},
        {"expression": "object.foo == params.x"}]},
    "wildcard-group": {"matchConstraints": _rules("*", ["deployments"]), "validations": [
        {"expression": "object.spec.foo == 1"}]},
    "logic-and-null": {"matchConstraints": DEPLOYMENTS, "validations": [
        {"expression": "object.spec.replicas && object.spec.paused"},
        {"expression": "object.spec.paused || object.metadata.name"},
        {"expression": "!object.spec.replicas"},
        {"expression": "object.spec.template.spec.containers.all(c, c.name)"},
        {"expression": "object.metadata.creationTimestamp == null && object.spec.selector != null"},
        {"expression": "object.spec.minReadySeconds == null || object.metadata.labels == null"},
        {"expression": "object.spec.replicas == 1.0 || object.spec.replicas < 1.5"},
        {"expression": "size(object.spec.replicas) == 1 || object.spec.replicas.size() == 1"},
        {"expression": "int(object.spec.paused) == 1 || double(object.metadata.name) > 1.0"}]},
    "clean": {"matchConstraints": CONFIG_MAPS, "validations": [
        {"expression": "object.metadata.namespace == 'x'"},
        {"expression": "object.data.x == 'y'", "messageExpression": "'data: ' + object.data.x"},
        {"expression": "object.data.all(k, k.size() < 10) && object.immutable"}]},
    "widget": {"matchConstraints": WIDGETS, "validations": [
        {"expression": "object.spec.size > 1"},
        {"expression": "object.spec.sizze > 1"},
        {"expression": "object.spec.color == 1"},
        {"expression": "object.spec.tags.exists(t, t.foo == 1)"},
        {"expression": "object.spec.labels.x == 'a' && object.metadata.name == 'x' && object.metadata.labels.y == 'a'"},
        {"expression": "object.spec.port == 1 || object.spec.port == 'a'"}]},
    "macro-expansions-and-optionals": {"matchConstraints": WIDGETS, "validations": [
        {"expression": "object.spec.tags.exists_one(t, object.spec.size)"},
        {"expression": "object.spec.tags.filter(t, object.spec.size).size() > 0"},
        {"expression": "object.spec.tags.map(t, object.spec.size, t).size() > 0"},
        {"expression": "object.spec.tags.sortBy(t, object.spec.labels).size() > 0"},
        {"expression": "object.spec.labels.sortBy(k, k).size() > 0"},
        {"expression": "object.spec.tags.sortBy(t, t.size())[0] == 1"},
        {"expression": "object.spec.tags.sortBy(t, t.size()) == ['a'] && object.spec.port.sortBy(p, p) == []"},
        {"expression": "optional.of(object.spec.size).optFlatMap(s, s).hasValue()"},
        {"expression": "optional.of(object.spec.size).optMap(s, s).value() == 'a'"},
        {"expression": "object.spec.tags.hasValue() || object.spec.size.value() == 1"},
        {"expression": "optional.unwrap(object.spec.tags).size() > 0 || object.spec.tags.unwrapOpt() == []"},
        {"expression": "optional.unwrap([optional.of(object.spec.size)])[0] == 'a'"},
        {"expression": "optional.none().hasValue() || optional.none() == optional.of(object.spec.size)"},
        {"expression": "object.spec.labels.transformMap(k, v, object.spec.size, v).size() > 0"},
        {"expression": "object.spec.labels.transformMapEntry(k, v, object.spec.size).size() > 0"},
        {"expression": "object.spec.labels.transformMap(k, v, v)['a'] == 1"},
        {"expression": "(object.spec.size > 1 ? [] : object.spec.tags) == [1]"},
        {"expression": "(object.spec.size > 1 ? {} : object.spec.labels) == {1: 2}"}]},
    "everyday": {"matchConstraints": CONFIG_MAPS, "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}, "validations": [
        {"expression": "!has(object.data) || object.data.all(k, size(object.data[k]) <= 5)"},
        {"expression": "object == null && !has(oldObject.data.keep)"},
        {"expression": "oldObject == null || int(object.data.v) >= int(oldObject.data.v)"},
        {"expression": "has(object.metadata.labels) && 'refuse' in object.metadata.labels"},
        {"expression": "params == null || !has(object.data) || !(params.data.forbidden in object.data)"},
        {"expression": "object.metadata.name.endsWith(params.data.suffix)"},
        {"expression": "object.metadata.name.split('-')[0] == params.data.prefix && object.data.x.substring(1) == 'a'"},
        {"expression": "object.data.x.split(',')[0] == object.metadata.generation"},
        {"expression": "object.metadata.finalizers.join(',') == object.metadata.generation"},
        {"expression": "object.metadata.name.replace('a', 'b').charAt(0) == object.data.keys"},
        {"expression": "request.operation != 'UPDATE' || oldObject != null"},
        {"expression": "(has(object.data) ? object.data : {}).size() >= 0"},
        {"expression": "1 / (size(object.data) - 1) > 0"},
        {"expression": "object.missing.field == 1"}]},
    "request-and-namespace": {"matchConstraints": DEPLOYMENTS, "validations": [
        {"expression": "request.operation == 'CREATE' && object.spec.replicaz > 1"},
        {"expression": "request.userInfo.username == object.metadata.name && request.userInfo.groups.exists(g, g == 'x')"},
        {"expression": "request.dryRun == object.spec.paused && request.options.x == object.spec.replicas"},
        {"expression": "request.name == object.spec.replicas"},
        {"expression": "namespaceObject == null || namespaceObject.metadata.labels.tier == object.metadata.labels.tier"},
        {"expression": "namespaceObject.metadata.creationTimestamp < object.metadata.creationTimestamp"},
        {"expression": "namespaceObject.metadata.generation == object.metadata.name"},
        {"expression": "request.userInfo.extra.x.exists(e, e == object.spec.minReadySeconds)"}]},
    "benchmark": {"matchConstraints": PODS, "validations": [
        {"expression": "object.spec.containers.all(c, c.image.startsWith('registry.example/')) && "
                       "(!has(object.spec.initContainers) || "
                       "object.spec.initContainers.all(c, c.image.startsWith('registry.example/')))"},
        {"expression": "object.spec.containers.all(c, !has(c.securityContext) || "
                       "!has(c.securityContext.privileged) || !c.securityContext.privileged)"},
        {"expression": "size(object.spec.containers) <= 8"}]},
    "core-kinds": {"matchConstraints": {"resourceRules": [
        {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
         "resources": ["services", "secrets", "persistentvolumeclaims", "namespaces", "nodes"]}]}, "validations": [
        {"expression": "object.spec.ports.all(p, p.targetPort == 80 || p.targetPort == 'http')"},
        {"expression": "object.data.x == b'a' || object.data.y == 'a'"},
        {"expression": "object.spec.resources.requests.storage == '1Gi'"},
        {"expression": "object.spec.finalizers.exists(f, f == 'kubernetes')"},
        {"expression": "object.metadata.ownerReferences.exists(r, r.controller == true && r.uid == 'x')"},
        {"expression": "object.metadata.managedFields.exists(m, m.fieldsV1.x == 1)"},
        {"expression": "object.metadata.deletionGracePeriodSeconds > 1 && object.metadata.generation > 0"},
        {"expression": "object.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')"}]},
    "apps-batch-networking": {"matchConstraints": {"resourceRules": [
        {"operations": ["CREATE"], "apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["statefulsets"]},
        {"operations": ["CREATE"], "apiGroups": ["batch"], "apiVersions": ["v1"], "resources": ["cronjobs", "jobs"]},
        {"operations": ["CREATE"], "apiGroups": ["networking.k8s.io"], "apiVersions": ["v1"],
         "resources": ["ingresses", "networkpolicies"]}]}, "validations": [
        {"expression": "object.spec.replicas <= 3 && object.spec.serviceName != ''"},
        {"expression": "object.spec.jobTemplate.spec.template.spec.containers.size() < 3"},
        {"expression": "object.spec.backoffLimit < 10 && object.spec.completions == object.spec.parallelism"},
        {"expression": "object.spec.rules.all(r, r.http.paths.all(p, p.backend.service.port.number > 0))"},
        {"expression": "object.spec.ingress.all(i, i.ports.all(p, p.port == 80))"},
        {"expression": "object.spec.template.spec.containers.all(c, c.resources.limits.cpu == '1')"}]},
    "params": {"matchConstraints": CONFIG_MAPS, "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}, "validations": [
        {"expression": "params.data.x == object.data.x"},
        {"expression": "params.dta.x == 'a'"},
        {"expression": "params.data.x > 1"}]},
    "widget-params": {"matchConstraints": CONFIG_MAPS,
                      "paramKind": {"apiVersion": "typecheck.example.com/v1", "kind": "Widget"}, "validations": [
        {"expression": "params.spec.size > 1 && params.spec.nope"},
        {"expression": "object.data.x == params.spec.color"},
        {"expression": "object.data.x == params.spec.size"}]},
    "variables": {"matchConstraints": CONFIG_MAPS, "variables": [
        {"name": "d", "expression": "object.data"}, {"name": "bad", "expression": "object.nope"},
        {"name": "n", "expression": "variables.d.size()"}], "validations": [
        {"expression": "variables.d.x == 1"},
        {"expression": "variables.bad == 1"},
        {"expression": "variables.d.x == 'a' && variables.n == 1"}]},
}


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, outcomes: list[Outcome]) -> Iterator[Pair]:
    workdir = tmp_path_factory.mktemp("typecheck-oracle")
    with Etcd(workdir / "etcd") as etcd, KubeAPIServer(workdir / "apiserver", etcd.client_url) as real, \
            ControllerManager(workdir / "kcm", real.kubeconfig, controllers="validatingadmissionpolicy-status-controller",
                              leader_elect=False), \
            ServerProcess(tmp_path_factory.mktemp("typecheck-fakeapi"), "--controllers",
                          "validatingadmissionpolicy-status-controller") as fake:
        both = Pair(fake.http, real.http)
        both.outcomes = outcomes
        for client in (fake.http, real.http):
            response = client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD)
            assert response.status_code == 201, response.text
            eventually(lambda c=client: c.get("/apis/typecheck.example.com/v1/widgets").status_code == 200,
                       "the CRD served")
        yield both


def _status(answer: Any, _is_fake: bool) -> Any:
    """A policy's status only: what the controller wrote."""
    return answer.get("status") if isinstance(answer, dict) and answer.get("kind") == "ValidatingAdmissionPolicy" \
        else answer


def _checked(pair: Pair, name: str, generation: int) -> None:
    """Wait until both servers' controllers have written the status of ``generation``."""
    for client in (pair.fake, pair.real):
        eventually(lambda c=client: (c.get(f"{POLICIES}/{name}").json().get("status") or {}).get(
            "observedGeneration") == generation, f"{name}'s status of generation {generation}")


def _compare(pair: Pair, case: str, name: str) -> Outcome:
    outcome = pair.send(case, "ValidatingAdmissionPolicy", "get", "GET", f"{POLICIES}/{name}", rewrite=_status)
    assert outcome.matched, _warning_differences(outcome)
    return outcome


def _warning_differences(outcome: Outcome) -> str:
    """Each warning that differs, whole: the differ shortens long values."""
    warnings = [{(w["fieldRef"], w["warning"]) for w in (answer.body or {}).get("typeChecking", {}).get("expressionWarnings", [])}
                for answer in (outcome.fake, outcome.real)]
    return "\n".join([*outcome.differences, *(f"only fakeapi: {w}" for w in sorted(warnings[0] - warnings[1])),
                      *(f"only kube: {w}" for w in sorted(warnings[1] - warnings[0]))])


@pytest.mark.parametrize("case", sorted(CASES))
def test_type_checking_is_kubes(pair: Pair, case: str) -> None:
    name = f"typecheck-{case}"
    body = json.dumps({"metadata": {"name": name}, "spec": {"failurePolicy": "Fail", **CASES[case]}}).encode()
    created = pair.send(f"typecheck-{case}-create", "ValidatingAdmissionPolicy", "create", "POST", POLICIES, body=body)
    assert created.fake.status == 201 and created.matched, "\n".join(created.differences)
    _checked(pair, name, 1)
    _compare(pair, f"typecheck-{case}", name)


def test_a_changed_policy_is_checked_again(pair: Pair) -> None:
    name = "typecheck-changed"
    spec = {"failurePolicy": "Fail", "matchConstraints": DEPLOYMENTS, "validations": [{"expression": "object.spec.replicas > 1"}]}
    for client in (pair.fake, pair.real):
        assert client.post(POLICIES, json={"metadata": {"name": name}, "spec": spec}).status_code == 201
    _checked(pair, name, 1)
    _compare(pair, "typecheck-changed-clean", name)
    patch = json.dumps({"spec": {"validations": [{"expression": "object.spec.replicaz > 1"}]}}).encode()
    pair.send("typecheck-changed-patch", "ValidatingAdmissionPolicy", "patch", "PATCH", f"{POLICIES}/{name}",
              body=patch, content_type="application/merge-patch+json")
    _checked(pair, name, 2)
    outcome = _compare(pair, "typecheck-changed-warned", name)
    assert "undefined field 'replicaz'" in json.dumps(outcome.fake.body)
    patch = json.dumps({"spec": {"validations": [{"expression": "object.spec.replicas > 2"}]}}).encode()
    pair.send("typecheck-changed-patch-again", "ValidatingAdmissionPolicy", "patch", "PATCH", f"{POLICIES}/{name}",
              body=patch, content_type="application/merge-patch+json")
    _checked(pair, name, 3)
    _compare(pair, "typecheck-changed-clean-again", name)


#: Expressions that kube refuses when a policy is written, ``object`` a dyn: errors cel-go's
#: checker finds in macro expansions, and kube's validator's in a literal whose first element is
#: an empty literal (its type bound by none of the others).
REFUSED = ["object.spec.tags.exists_one(t, t.size())", "object.spec.tags.filter(t, t.size()).size() > 0",
           "object.spec.tags.sortBy(t, [t]).size() > 0", "optional.of(1).optFlatMap(s, s + 1).hasValue()",
           "optional.unwrap([1]).size() > 0", "[[], object.spec.tags] == [[1]]"]


def test_type_errors_refuse_the_policy_when_it_is_written(pair: Pair) -> None:
    spec = {"failurePolicy": "Fail", "matchConstraints": WIDGETS,
            "validations": [{"expression": expression} for expression in REFUSED]}
    body = json.dumps({"metadata": {"name": "typecheck-refused"}, "spec": spec}).encode()
    created = pair.send("typecheck-refused-create", "ValidatingAdmissionPolicy", "create", "POST", POLICIES, body=body)
    assert created.real.status == 422 and created.matched, "\n".join(created.differences)
