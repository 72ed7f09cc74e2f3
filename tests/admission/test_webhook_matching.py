"""Which requests a webhook is for (``fakeapi.admission.webhook.matching``), by kube's
``rules.Matcher`` and selector predicates: operations, groups, versions, resources with ``*``
and subresources (``pods`` is not ``pods/status``; ``*/status`` is every status), scope (a
namespace object is cluster-scoped), the admission configuration resources no webhook sees, and
configurations compiled in name order."""

from __future__ import annotations

import uuid
from typing import Any

import orjson
import pytest

from fakeapi.admission.webhook.matching import compile_configurations, is_exempt
from fakeapi.admission.webhook.request import Attributes, ServedVersion, WebhookRequest
from fakeapi.admission.webhook.review import review_request

REQUEST = WebhookRequest({"username": "u"}, {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"})


def attrs(resource: str = "pods", subresource: str = "", namespace: str = "ns", operation: str = "CREATE",
          group: str = "", labels: dict[str, str] | None = None) -> Attributes:
    obj = {"metadata": {"name": "x", "labels": labels or {}}}
    return Attributes(operation, group, "v1", "Pod", resource, subresource, namespace, "x", obj, None, REQUEST)


def hook(**fields: Any):
    webhook = {"name": "w.test.dev", "clientConfig": {"url": "https://127.0.0.1/"},
               "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"],
                          "scope": "*"}], **fields}
    return compile_configurations([{"metadata": {"name": "c"}, "webhooks": [webhook]}], False)[0]


def no_namespace() -> dict[str, str]:
    raise AssertionError("the namespace is read only when a namespace selector has to decide")


@pytest.mark.parametrize(("resources", "resource", "subresource", "matched"), [
    (["pods"], "pods", "", True),
    (["pods"], "pods", "status", False),
    (["pods/status"], "pods", "status", True),
    (["pods/*"], "pods", "status", True),
    (["pods/*"], "pods", "", True),  # kube's matcher: a "*" subresource matches none too
    (["*"], "deployments", "", True),
    (["*"], "pods", "status", False),
    (["*/status"], "deployments", "status", True),
    (["*/*"], "pods", "eviction", True),
])
def test_resources_and_subresources(resources: list[str], resource: str, subresource: str, matched: bool) -> None:
    rules = [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": resources}]
    assert (hook(rules=rules).invocation(attrs(resource, subresource), no_namespace) is not None) is matched


@pytest.mark.parametrize(("scope", "resource", "namespace", "matched"), [
    ("Namespaced", "pods", "ns", True),
    ("Namespaced", "nodes", "", False),
    ("Namespaced", "namespaces", "ns", False),  # a namespace is named as its own namespace, yet cluster-scoped
    ("Cluster", "namespaces", "ns", True),
    ("Cluster", "nodes", "", True),
    ("Cluster", "pods", "ns", False),
    ("*", "pods", "ns", True),
])
def test_scope(scope: str, resource: str, namespace: str, matched: bool) -> None:
    rules = [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["*"], "scope": scope}]
    labels = {"kubernetes.io/metadata.name": namespace}
    assert (hook(rules=rules).invocation(attrs(resource, namespace=namespace), lambda: labels) is not None) is matched


def test_operations_and_groups() -> None:
    webhook = hook()
    assert webhook.invocation(attrs(), no_namespace)
    assert not webhook.invocation(attrs(operation="UPDATE"), no_namespace)
    assert not webhook.invocation(attrs(group="apps"), no_namespace)


def test_selectors() -> None:
    webhook = hook(namespaceSelector={"matchLabels": {"team": "a"}},
                   objectSelector={"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]})
    assert webhook.invocation(attrs(), lambda: {"team": "a"})
    assert not webhook.invocation(attrs(), lambda: {"team": "b"})
    assert not webhook.invocation(attrs(labels={"skip": "yes"}), lambda: {"team": "a"})
    # a cluster-scoped object other than a namespace is never excluded by the namespace selector
    cluster_rules = [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["nodes"]}]
    assert hook(rules=cluster_rules, namespaceSelector={"matchLabels": {"team": "a"}}).invocation(
        attrs("nodes", namespace=""), no_namespace)


def test_admission_configurations_are_exempt() -> None:
    assert is_exempt(attrs("validatingwebhookconfigurations", namespace="", group="admissionregistration.k8s.io"))
    assert not is_exempt(attrs("validatingwebhookconfigurations", namespace="", group="example.com"))


def test_configurations_in_name_order() -> None:
    webhook = {"name": "w.test.dev", "clientConfig": {}, "rules": []}
    hooks = compile_configurations([{"metadata": {"name": "b"}, "webhooks": [webhook]},
                                    {"metadata": {"name": "a"}, "webhooks": [webhook, {**webhook, "name": "v.test.dev"}]}],
                                   True)
    assert [h.uid for h in hooks] == ["a/w.test.dev/0", "a/v.test.dev/1", "b/w.test.dev/0"]


def _v1(hpa: dict) -> dict:
    return {**hpa, "apiVersion": "autoscaling/v1", "converted": True}


def _v2(hpa: dict) -> dict:
    return {key: value for key, value in hpa.items() if key != "converted"} | {"apiVersion": "autoscaling/v2"}


#: HorizontalPodAutoscalers, stored as autoscaling/v2 and served as v1 too (conversions marked).
HPA_VERSIONS = (ServedVersion("autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", _v1, _v2),
                ServedVersion("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler",
                              lambda obj: obj, lambda obj: obj))


def hpa_attrs(version: str) -> Attributes:
    stored = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"}}
    return Attributes("CREATE", "autoscaling", version, "HorizontalPodAutoscaler", "horizontalpodautoscalers", "",
                      "ns", "h", stored, None, REQUEST, kind_group="autoscaling", versions=HPA_VERSIONS)


@pytest.mark.parametrize(("policy", "request_version", "given"), [
    ("Exact", "v2", None),
    ("Equivalent", "v2", "v1"),
    ("Exact", "v1", "v1"),  # the request's own version: the stored object converted to it
    ("Equivalent", "v1", "v1"),
])
def test_match_policy_equivalent(policy: str, request_version: str, given: str | None) -> None:
    rules = [{"operations": ["CREATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v1"],
              "resources": ["horizontalpodautoscalers"]}]
    versioned = hook(rules=rules, matchPolicy=policy).invocation(hpa_attrs(request_version), no_namespace)
    if given is None:
        assert versioned is None
        return
    assert versioned is not None
    assert (versioned.version, versioned.object) == (given, {**_v1(hpa_attrs("v2").object or {})})
    review_kind = {"group": "autoscaling", "version": given, "kind": "HorizontalPodAutoscaler"}
    request_kind = {"group": "autoscaling", "version": request_version, "kind": "HorizontalPodAutoscaler"}
    assert (versioned.kind_json(), versioned.request_kind) == (review_kind, request_kind)


def test_each_review_names_a_new_random_uuid() -> None:
    """A review's uid is kube's ``uuid.NewUUID``: a random version-4 UUID, as ``uuid`` prints
    it, new for each review."""
    uids = set()
    for _ in range(200):
        uid, body = review_request(attrs(), "v1")
        parsed = uuid.UUID(uid)
        assert (str(parsed), parsed.version, parsed.variant) == (uid, 4, uuid.RFC_4122)
        assert orjson.loads(body)["request"]["uid"] == uid
        uids.add(uid)
    assert len(uids) == 200
