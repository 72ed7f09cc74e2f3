"""Admission webhooks against the real kube-apiserver: one webhook server (``webhook_server``,
TLS with its CA in ``caBundle``) registered in both servers, the same requests sent to both;
the answers clients get and the AdmissionReviews each server sends (normalised: uids, times,
resourceVersions) must be kube's.

Every case works in a namespace of its own, labelled for it, and its configurations select that
namespace only (the session's other cases never meet them). Kube learns of a configuration
through an informer: each configuration carries a probe webhook (objectSelector ``probe=yes``),
and a case starts once a dry-run probe has reached it on both servers."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from differ import Outcome, Pair, check, compared_reviews
from webhook_server import WebhookServer

Json = Any

MUTATING = "mutatingwebhookconfigurations"
VALIDATING = "validatingwebhookconfigurations"
_CONFIGS = "/apis/admissionregistration.k8s.io/v1/"
_NOT_PROBE = {"matchExpressions": [{"key": "probe", "operator": "DoesNotExist"}]}


@pytest.fixture(scope="module")
def hooks() -> Iterator[WebhookServer]:
    with WebhookServer() as server:
        yield server


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Case:
    """One case's namespace and configurations on both servers."""

    def __init__(self, pair: Pair, hooks: WebhookServer, name: str) -> None:
        self.pair, self.hooks, self.name = pair, hooks, name
        self.namespace = f"wh-{name}"
        self.configs: list[tuple[str, str]] = []
        for client in (pair.fake, pair.real):
            response = client.post("/api/v1/namespaces", json={
                "metadata": {"name": self.namespace, "labels": {"webhook-case": name}}})
            assert response.status_code in (201, 409), response.text

    def hook(self, behaviour: str, server: str, **fields: Any) -> Json:
        """A webhook calling ``behaviour`` for ``server`` (``fake``/``kube``); by default for
        configmaps (CREATE, UPDATE, DELETE) in the case's namespace, failing closed."""
        url = fields.pop("url", None) or self.hooks.url(f"/{server}/{self.name}/{behaviour}")
        hook = {
            "name": fields.pop("name", f"{behaviour}.kasdiff.dev"),
            "clientConfig": {"url": url, "caBundle": self.hooks.ca_bundle},
            "rules": [{"operations": ["CREATE", "UPDATE", "DELETE"], "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": ["configmaps"]}],
            "namespaceSelector": {"matchLabels": {"webhook-case": self.name}},
            "objectSelector": _NOT_PROBE,
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
            "timeoutSeconds": 1,
        }
        hook.update(fields)
        return hook

    def configure(self, kind: str, *hooks: dict[str, Any]) -> None:
        """A configuration of ``hooks`` (the fields of ``hook``, each with its ``behaviour``) on
        both servers, waited for until each server calls it."""
        name = f"{self.name}-{len(self.configs)}"
        for server, client in (("fake", self.pair.fake), ("kube", self.pair.real)):
            webhooks = [self.hook(**{**h, "server": server}) for h in hooks]
            webhooks.append(self.hook("allow", server, name="probe.kasdiff.dev",
                                      url=self.hooks.url(f"/{server}/probe/{name}/allow"),
                                      objectSelector={"matchLabels": {"probe": "yes"}}))
            response = client.post(_CONFIGS + kind, json={"metadata": {"name": name}, "webhooks": webhooks})
            assert response.status_code == 201, response.text
        self.configs.append((kind, name))
        for server, client in (("fake", self.pair.fake), ("kube", self.pair.real)):
            self._wait_active(server, client, name)

    def _wait_active(self, server: str, client: httpx.Client, config: str) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            start = len(self.hooks.records)
            client.post(f"/api/v1/namespaces/{self.namespace}/configmaps", params={"dryRun": "All"},
                        json={"metadata": {"name": "probe", "labels": {"probe": "yes"}}})
            if self.hooks.reviews(f"/{server}/probe/{config}/", start):
                return
            time.sleep(0.2)
        raise AssertionError(f"{server} never called the webhooks of {config}")

    def send(self, verb: str, method: str, path: str, body: Json = None, *, api: str = "/api/v1",
             kind: str = "ConfigMap", **kwargs: Any) -> Outcome:
        """One request to both servers for ``path`` in the case's namespace of ``api`` (a group
        version's path); the reviews each sent for it are compared too."""
        start = len(self.hooks.records)
        outcome = self.pair.send(self.name, kind, verb, method, f"{api}/namespaces/{self.namespace}/{path}",
                                 body=None if body is None else orjson.dumps(body), rewrite=self._same_paths,
                                 **kwargs)
        fake = self.hooks.reviews(f"/fake/{self.name}/", start)
        kube = self.hooks.reviews(f"/kube/{self.name}/", start)
        self.pair.outcomes.append(compared_reviews(self.name, "AdmissionReview", verb, fake, kube))
        return outcome

    def _same_paths(self, answer: Json, is_fake: bool) -> Json:
        """The answer with the server's own webhook paths (in a failed call's message) as the
        other server's: the only difference the test made between them."""
        if not is_fake:
            return answer
        return orjson.loads(orjson.dumps(answer).replace(f"/fake/{self.name}/".encode(), f"/kube/{self.name}/".encode()))

    def close(self) -> None:
        for kind, name in self.configs:
            for client in (self.pair.fake, self.pair.real):
                client.delete(_CONFIGS + f"{kind}/{name}")


@pytest.fixture
def case(request: pytest.FixtureRequest, pair: Pair, hooks: WebhookServer) -> Iterator[Case]:
    start = len(pair.outcomes)
    name = request.node.name.removeprefix("test_").replace("_", "-")[:40]
    opened = Case(pair, hooks, name)
    try:
        yield opened
    finally:
        opened.close()
    check(pair, start)


CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "labels": {"app": "x"}},
              "data": {"a": "b"}}


def test_mutating_patch_and_validating_warnings(case: Case) -> None:
    case.configure(MUTATING, {"behaviour": "label"})
    case.configure(VALIDATING, {"behaviour": "warn"})
    created = case.send("create", "POST", "configmaps", CONFIG_MAP)
    assert created.real.status == 201 and created.real.body["metadata"]["labels"]["webhook-label"] == "yes"
    case.send("update", "PUT", "configmaps/cm", {**CONFIG_MAP, "data": {"a": "c"}})
    case.send("patch", "PATCH", "configmaps/cm", {"data": {"a": "d"}},
              content_type="application/merge-patch+json")
    case.send("dry-run create", "POST", "configmaps?dryRun=All", {**CONFIG_MAP, "metadata": {"name": "dry"}})
    case.send("delete", "DELETE", "configmaps/cm")
    case.send("create another", "POST", "configmaps", {**CONFIG_MAP, "metadata": {"name": "other"}})
    case.send("delete collection", "DELETE", "configmaps?labelSelector=app%3Dx")


def test_refusals(case: Case) -> None:
    case.configure(VALIDATING, {"behaviour": "deny", "objectSelector": {"matchLabels": {"refuse": "deny"}}},
                   {"behaviour": "deny-bare", "objectSelector": {"matchLabels": {"refuse": "bare"}}},
                   {"behaviour": "deny-invalid", "objectSelector": {"matchLabels": {"refuse": "invalid"}}})
    for refuse in ("deny", "bare", "invalid"):
        outcome = case.send(f"create refused ({refuse})", "POST", "configmaps",
                            {**CONFIG_MAP, "metadata": {"name": f"r-{refuse}", "labels": {"refuse": refuse}}})
        assert outcome.real.status in (400, 403, 422)
    outcome = case.send("create unrefused", "POST", "configmaps", {**CONFIG_MAP, "metadata": {"name": "fine"}})
    assert outcome.real.status == 201


def test_failing_webhooks(case: Case) -> None:
    dead = f"https://127.0.0.1:{_closed_port()}/dead"
    case.configure(VALIDATING,
                   {"behaviour": "dead", "url": dead, "objectSelector": {"matchLabels": {"fail": "dead"}}},
                   {"behaviour": "dead", "name": "dead-ignored.kasdiff.dev", "url": dead, "failurePolicy": "Ignore",
                    "objectSelector": {"matchLabels": {"fail": "dead-ignored"}}},
                   {"behaviour": "slow", "objectSelector": {"matchLabels": {"fail": "slow"}}},
                   {"behaviour": "slow", "name": "slow-ignored.kasdiff.dev", "failurePolicy": "Ignore",
                    "objectSelector": {"matchLabels": {"fail": "slow-ignored"}}},
                   {"behaviour": "error", "objectSelector": {"matchLabels": {"fail": "error"}}},
                   {"behaviour": "bad-uid", "objectSelector": {"matchLabels": {"fail": "bad-uid"}}},
                   {"behaviour": "patch-in-validating", "objectSelector": {"matchLabels": {"fail": "patch"}}})
    for fail in ("dead", "dead-ignored", "slow", "slow-ignored", "error", "bad-uid", "patch"):
        case.send(f"create ({fail})", "POST", "configmaps",
                  {**CONFIG_MAP, "metadata": {"name": f"f-{fail}", "labels": {"fail": fail}}})


def test_dry_run_and_side_effects(case: Case) -> None:
    case.configure(VALIDATING, {"behaviour": "allow", "objectSelector": {"matchLabels": {"effects": "none"}}},
                   {"behaviour": "allow", "name": "none-on-dry-run.kasdiff.dev", "sideEffects": "NoneOnDryRun",
                    "objectSelector": {"matchLabels": {"effects": "none-on-dry-run"}}})
    for effects in ("none", "none-on-dry-run"):
        case.send(f"dry-run create ({effects})", "POST", "configmaps?dryRun=All",
                  {**CONFIG_MAP, "metadata": {"name": f"d-{effects}", "labels": {"effects": effects}}})
        case.send(f"create ({effects})", "POST", "configmaps",
                  {**CONFIG_MAP, "metadata": {"name": f"d-{effects}", "labels": {"effects": effects}}})


def test_reinvocation(case: Case) -> None:
    case.configure(MUTATING, {"behaviour": "label-first", "reinvocationPolicy": "IfNeeded"})
    case.configure(MUTATING, {"behaviour": "label-second"})
    case.send("create", "POST", "configmaps", CONFIG_MAP)


def test_selectors_and_operations(case: Case) -> None:
    case.configure(VALIDATING, {"behaviour": "deny", "objectSelector": {"matchLabels": {"app": "refused"}},
                                "rules": [{"operations": ["UPDATE"], "apiGroups": [""], "apiVersions": ["v1"],
                                           "resources": ["configmaps"], "scope": "Namespaced"}]})
    case.send("create (no update rule)", "POST", "configmaps",
              {**CONFIG_MAP, "metadata": {"name": "s", "labels": {"app": "refused"}}})
    case.send("update (old object selected)", "PATCH", "configmaps/s", {"metadata": {"labels": {"app": "other"}}},
              content_type="application/merge-patch+json")
    case.send("update (neither selected)", "PATCH", "configmaps/s", {"data": {"x": "y"}},
              content_type="application/merge-patch+json")


def test_match_conditions(case: Case) -> None:
    case.configure(VALIDATING,
                   {"behaviour": "deny", "matchConditions": [
                       {"name": "marked", "expression": "has(object.metadata.labels) && 'refuse' in object.metadata.labels"},
                       {"name": "by-admin", "expression": "request.userInfo.username == 'admin'"}]},
                   {"behaviour": "deny", "name": "on-update.kasdiff.dev", "matchConditions": [
                       {"name": "changed", "expression": "oldObject != null && object.data != oldObject.data"}]},
                   {"behaviour": "deny", "name": "broken.kasdiff.dev", "matchConditions": [
                       {"name": "needs-spec", "expression": "object.spec.size > 1"}],
                    "objectSelector": {"matchLabels": {"broken": "fail"}}},
                   {"behaviour": "deny", "name": "broken-ignored.kasdiff.dev", "failurePolicy": "Ignore",
                    "matchConditions": [{"name": "needs-spec", "expression": "object.spec.size > 1"}],
                    "objectSelector": {"matchLabels": {"broken": "ignore"}}})
    case.send("create (conditions false)", "POST", "configmaps", {**CONFIG_MAP, "metadata": {"name": "plain"}})
    case.send("create (conditions true)", "POST", "configmaps",
              {**CONFIG_MAP, "metadata": {"name": "marked", "labels": {"refuse": "yes"}}})
    case.send("update (data unchanged)", "PATCH", "configmaps/plain", {"metadata": {"labels": {"x": "y"}}},
              content_type="application/merge-patch+json")
    case.send("update (data changed)", "PATCH", "configmaps/plain", {"data": {"a": "changed"}},
              content_type="application/merge-patch+json")
    case.send("create (condition fails, Fail)", "POST", "configmaps",
              {**CONFIG_MAP, "metadata": {"name": "broken", "labels": {"broken": "fail"}}})
    case.send("create (condition fails, Ignore)", "POST", "configmaps",
              {**CONFIG_MAP, "metadata": {"name": "ignored", "labels": {"broken": "ignore"}}})



def test_match_conditions_with_the_authorizer(case: Case) -> None:
    """Match conditions asking the authorizer (the suite's servers allow everyone everything):
    the request's own resource, a path, a service account, a decision's reason and error, and
    failing the request under ``Fail``: the library's error, and a third check in one condition
    (kube's runtime cost limit allows two)."""
    delete = "authorizer.group('apps').resource('deployments').namespace(object.metadata.namespace).check('delete')"
    case.configure(VALIDATING,
                   {"behaviour": "deny", "name": "allowed.kasdiff.dev", "matchConditions": [
                       {"name": "updater", "expression": "authorizer.requestResource.check('update').allowed()"},
                       {"name": "health", "expression": "authorizer.path('/healthz').check('get').allowed()"}],
                    "objectSelector": {"matchLabels": {"authz": "allowed"}}},
                   {"behaviour": "deny", "name": "not-allowed.kasdiff.dev", "matchConditions": [
                       {"name": "never", "expression": f"!{delete}.allowed()"}],
                    "objectSelector": {"matchLabels": {"authz": "allowed"}}},
                   {"behaviour": "deny", "name": "decision.kasdiff.dev", "matchConditions": [
                       {"name": "reason", "expression": f"{delete}.reason() == '' && {delete}.error() == ''"},
                       {"name": "account", "expression": "authorizer.serviceAccount(request.namespace, 'robot')"
                                                         ".group('').resource('secrets').check('get').allowed()"}],
                    "objectSelector": {"matchLabels": {"authz": "decision"}}},
                   {"behaviour": "deny", "name": "error.kasdiff.dev", "matchConditions": [
                       {"name": "account", "expression": "authorizer.serviceAccount('a', object.metadata.labels.sa)"
                                                         ".path('/x').check('get').allowed()"}],
                    "objectSelector": {"matchLabels": {"authz": "error"}}},
                   {"behaviour": "deny", "name": "three-checks.kasdiff.dev", "matchConditions": [
                       {"name": "three", "expression": f"{delete}.reason() == '' && !{delete}.errored() && "
                                                       f"{delete}.error() == ''"}],
                    "objectSelector": {"matchLabels": {"authz": "three-checks"}}})
    for name, labels in (("allowed", {"authz": "allowed"}), ("decision", {"authz": "decision"}),
                         ("error", {"authz": "error", "sa": "Bad_Name"}),
                         ("valid-account", {"authz": "error", "sa": "ok"}), ("three-checks", {"authz": "three-checks"})):
        case.send(f"create ({name})", "POST", "configmaps",
                  {**CONFIG_MAP, "metadata": {"name": name, "labels": labels}})
    case.send("create (allowed, as another user)", "POST", "configmaps",
              {**CONFIG_MAP, "metadata": {"name": "as-jane", "labels": {"authz": "allowed"}}},
              headers={"Impersonate-User": "jane", "Impersonate-Group": "devs"})

def test_create_only_subresource(case: Case) -> None:
    case.configure(VALIDATING, {"behaviour": "deny", "rules": [
        {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods/eviction"]}]})
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "evicted"},
           "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    case.send("create pod", "POST", "pods", pod)
    case.send("evict (refused)", "POST", "pods/evicted/eviction",
              {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "evicted"}})


def test_scale_subresource(case: Case) -> None:
    """A ``/scale`` write is admitted as kube's ScaleREST admits it: an autoscaling/v1 Scale
    written through ``deployments/scale`` (the new and the stored Scale, mutating then
    validating), not as a write of the Deployment."""
    scale_rules = [{"operations": ["UPDATE"], "apiGroups": ["apps"], "apiVersions": ["v1"],
                    "resources": ["deployments/scale"]}]
    case.configure(MUTATING, {"behaviour": "label", "rules": scale_rules})
    case.configure(VALIDATING, {"behaviour": "warn", "rules": scale_rules})
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {
        "replicas": 1, "selector": {"matchLabels": {"app": "d"}},
        "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    apps = {"api": "/apis/apps/v1", "kind": "Deployment"}
    case.send("create deployment (no scale rule)", "POST", "deployments", deployment, **apps)
    case.send("scale (merge patch)", "PATCH", "deployments/d/scale", {"spec": {"replicas": 3}},
              content_type="application/merge-patch+json", **apps)
    case.send("scale (update)", "PUT", "deployments/d/scale",
              {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "d"}, "spec": {"replicas": 2}},
              **apps)
    case.send("update deployment (no deployments rule)", "PATCH", "deployments/d", {"spec": {"replicas": 4}},
              content_type="application/merge-patch+json", **apps)


def test_match_policy_across_versions(case: Case) -> None:
    """A rule naming autoscaling/v1 HorizontalPodAutoscalers: under ``matchPolicy: Equivalent``
    it matches a write sent in autoscaling/v2 (the same storage), and the webhook is sent the
    object converted to v1 (``kind`` and ``resource`` v1, ``requestKind`` and
    ``requestResource`` v2; a mutating webhook's patch applies to the v1 object); under
    ``Exact`` it matches only writes sent in v1."""
    v1_rule = [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v1"],
                "resources": ["horizontalpodautoscalers"]}]
    case.configure(MUTATING, {"behaviour": "label", "rules": v1_rule, "matchPolicy": "Equivalent"})
    case.configure(VALIDATING, {"behaviour": "allow", "name": "exact.kasdiff.dev", "rules": v1_rule,
                                "matchPolicy": "Exact"},
                   {"behaviour": "allow", "name": "equivalent.kasdiff.dev", "rules": v1_rule,
                    "matchPolicy": "Equivalent"})
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"}, "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "minReplicas": 1,
        "maxReplicas": 3, "metrics": [{"type": "Resource", "resource": {
            "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}}
    v2 = {"api": "/apis/autoscaling/v2", "kind": "HorizontalPodAutoscaler"}
    v1 = {"api": "/apis/autoscaling/v1", "kind": "HorizontalPodAutoscaler"}
    case.send("create in v2", "POST", "horizontalpodautoscalers", hpa, **v2)
    case.send("update in v2", "PATCH", "horizontalpodautoscalers/h", {"spec": {"maxReplicas": 4}},
              content_type="application/merge-patch+json", **v2)
    case.send("update in v1", "PATCH", "horizontalpodautoscalers/h", {"spec": {"maxReplicas": 5}},
              content_type="application/merge-patch+json", **v1)
    case.send("create in v1", "POST", "horizontalpodautoscalers",
              {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h1"},
               "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
                        "maxReplicas": 2, "targetCPUUtilizationPercentage": 70}}, **v1)


def test_match_policy_across_groups(case: Case) -> None:
    """Events are stored once and served as core/v1 and events.k8s.io/v1: a rule naming
    events.k8s.io matches a core Event's write under ``Equivalent`` only, and is sent it as an
    events.k8s.io/v1 Event; one written through events.k8s.io is admitted as such."""
    events_rule = [{"operations": ["CREATE"], "apiGroups": ["events.k8s.io"], "apiVersions": ["v1"],
                    "resources": ["events"]}]
    case.configure(VALIDATING, {"behaviour": "allow", "name": "exact.kasdiff.dev", "rules": events_rule,
                                "matchPolicy": "Exact"},
                   {"behaviour": "allow", "name": "equivalent.kasdiff.dev", "rules": events_rule,
                    "matchPolicy": "Equivalent"})  # one path: they are called at once, in any order
    involved = {"apiVersion": "v1", "kind": "Pod", "name": "p", "namespace": case.namespace}
    case.send("create core event", "POST", "events", {
        "apiVersion": "v1", "kind": "Event", "metadata": {"name": "core"}, "involvedObject": involved,
        "reason": "Tested", "message": "through core/v1", "type": "Normal",
        "firstTimestamp": "2026-01-02T03:04:05Z", "lastTimestamp": "2026-01-02T03:04:05Z"}, kind="Event")
    case.send("create events.k8s.io event", "POST", "events", {
        "apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "grouped"},
        "eventTime": "2026-01-02T03:04:05.000000Z", "regarding": involved, "reason": "Tested",
        "note": "through events.k8s.io/v1", "type": "Normal", "action": "Testing",
        "reportingController": "kasdiff.dev/test", "reportingInstance": "kasdiff"},
              api="/apis/events.k8s.io/v1", kind="Event")


def test_match_policy_across_custom_resource_versions(case: Case) -> None:
    """A custom resource served in v1 (its storage version) and v2: a rule naming v1 matches a
    write sent in v2 under ``Equivalent`` only, and is sent the object in v1."""
    group = "match.kasdiff.example.com"
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": f"gadgets.{group}"},
           "spec": {"group": group, "scope": "Namespaced",
                    "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                    "versions": [{"name": version, "served": True, "storage": version == "v1", "schema": {
                        "openAPIV3Schema": {"type": "object", "properties": {"spec": {
                            "type": "object", "properties": {"size": {"type": "integer"}}}}}}}
                        for version in ("v1", "v2")]}}
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    for client in (case.pair.fake, case.pair.real):
        assert client.post(crds, json=crd).status_code == 201
    try:
        for client in (case.pair.fake, case.pair.real):  # kube serves a new CRD once it is established
            deadline = time.monotonic() + 30
            while client.get(f"/apis/{group}/v2/namespaces/{case.namespace}/gadgets").status_code != 200:
                assert time.monotonic() < deadline, f"{client.base_url} never served gadgets"
                time.sleep(0.1)
        v1_rule = [{"operations": ["CREATE", "UPDATE"], "apiGroups": [group], "apiVersions": ["v1"],
                    "resources": ["gadgets"]}]
        case.configure(MUTATING, {"behaviour": "label", "rules": v1_rule, "matchPolicy": "Equivalent"},
                       {"behaviour": "allow", "name": "exact.kasdiff.dev", "rules": v1_rule, "matchPolicy": "Exact"})
        v2 = {"api": f"/apis/{group}/v2", "kind": "Gadget"}
        case.send("create in v2", "POST", "gadgets",
                  {"apiVersion": f"{group}/v2", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"size": 1}}, **v2)
        case.send("update in v2", "PATCH", "gadgets/g", {"spec": {"size": 2}},
                  content_type="application/merge-patch+json", **v2)
        case.send("update in v1", "PATCH", "gadgets/g", {"spec": {"size": 3}},
                  content_type="application/merge-patch+json", api=f"/apis/{group}/v1", kind="Gadget")
    finally:
        for client in (case.pair.fake, case.pair.real):
            client.delete(f"{crds}/gadgets.{group}")
