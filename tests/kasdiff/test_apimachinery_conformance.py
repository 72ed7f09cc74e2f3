"""The requests of upstream's sig-api-machinery conformance specs (k8s v1.35.4
``test/e2e/apimachinery``), sent to fakeapi and to the real kube-apiserver side by side, in the
order each spec sends them: ResourceQuota's update, lifecycle and ``/status`` specs.

What a controller of a full cluster would do (kube-controller-manager's quota controller filling
``status.used``) is no part of either server here: the specs' requests and their answers are.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from differ import Pair, check
from test_subresources import MERGE, STRATEGIC, Servers


@pytest.fixture
def servers(pair: Pair, request: pytest.FixtureRequest) -> Iterator[Servers]:
    start = len(pair.outcomes)
    yield Servers(pair, "conf-" + request.node.name.removeprefix("test_").replace("_", "-"))
    check(pair, start)


def _quota(name: str, hard: dict[str, str], labels: dict[str, str] | None = None) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "labels": labels or {}},
            "spec": {"hard": hard}}


def test_resource_quota_update_and_delete(servers: Servers) -> None:
    """"should be able to update and delete ResourceQuota": the update is the created object
    sent again, changed, without a resourceVersion (an unconditional update)."""
    s = servers
    case = "quota-update-delete"
    quota = _quota("test-quota", {"cpu": "1", "memory": "500Mi"})
    s.send(case, "ResourceQuota", "create", "POST", s.path("resourcequotas"), quota)
    s.send(case, "ResourceQuota", "get", "GET", s.path("resourcequotas", "test-quota"))
    quota["spec"] = {"hard": {"cpu": "2", "memory": "1Gi"}}
    s.send(case, "ResourceQuota", "update", "PUT", s.path("resourcequotas", "test-quota"), quota)
    s.send(case, "ResourceQuota", "get-updated", "GET", s.path("resourcequotas", "test-quota"))
    s.send(case, "ResourceQuota", "delete", "DELETE", s.path("resourcequotas", "test-quota"))
    s.send(case, "ResourceQuota", "get-deleted", "GET", s.path("resourcequotas", "test-quota"))


def test_resource_quota_lifecycle(servers: Servers) -> None:
    """"should manage the lifecycle of a ResourceQuota": a list across namespaces by label, a
    strategic merge patch of labels and spec, a delete-collection by label."""
    s = servers
    case = "quota-lifecycle"
    name = "e2e-quota-lifecycle"
    selector = f"?labelSelector=e2e-rq-label%3D{name}"
    s.send(case, "ResourceQuota", "create", "POST", s.path("resourcequotas"),
           _quota(name, {"cpu": "1", "memory": "500Mi"}, {"e2e-rq-label": name}))
    s.send(case, "ResourceQuota", "get", "GET", s.path("resourcequotas", name))
    s.send(case, "ResourceQuota", "list-all-namespaces", "GET", "/api/v1/resourcequotas" + selector)
    s.send(case, "ResourceQuota", "patch", "PATCH", s.path("resourcequotas", name),
           {"metadata": {"labels": {name: "patched"}}, "spec": {"hard": {"memory": "750Mi"}}}, content_type=STRATEGIC)
    s.send(case, "ResourceQuota", "delete-collection", "DELETE", s.path("resourcequotas") + selector)
    s.send(case, "ResourceQuota", "get-deleted", "GET", s.path("resourcequotas", name))


def test_resource_quota_status(servers: Servers) -> None:
    """"should apply changes to a resourcequota status": an update of ``/status`` with the
    object just read, strategic merge patches of the spec and of ``/status``, a read of
    ``/status``, and the watch that sees each status."""
    s = servers
    case = "quota-status"
    name = "e2e-rq-status"
    selector = f"labelSelector=e2e-rq-label%3D{name}"
    listed = s.send(case, "ResourceQuota", "list-all-namespaces", "GET", f"/api/v1/resourcequotas?{selector}")
    s.send(case, "ResourceQuota", "create", "POST", s.path("resourcequotas"),
           _quota(name, {"cpu": "500m", "memory": "500Mi"}, {"e2e-rq-label": name}))
    fake, real = (server.get(s.path("resourcequotas", name)).json() for server in (s.pair.fake, s.pair.real))
    for stored in (fake, real):
        stored["status"] = {"hard": stored["spec"]["hard"]}
    s.pair.send(case, "ResourceQuota", "update-status", "PUT", s.path("resourcequotas", name, "status"),
                body=(json.dumps(fake).encode(), json.dumps(real).encode()))
    s.send(case, "ResourceQuota", "patch-spec", "PATCH", s.path("resourcequotas", name),
           {"spec": {"hard": {"cpu": "1", "memory": "1Gi"}}}, content_type=STRATEGIC)
    s.send(case, "ResourceQuota", "patch-status", "PATCH", s.path("resourcequotas", name, "status"),
           {"status": {"hard": {"cpu": "1", "memory": "1Gi"}}}, content_type=STRATEGIC)
    s.send(case, "ResourceQuota", "get-status", "GET", s.path("resourcequotas", name, "status"))
    s.send(case, "ResourceQuota", "repatch-status", "PATCH", s.path("resourcequotas", name, "status"),
           {"status": {"hard": {"cpu": "2", "memory": "2Gi"}}}, content_type=STRATEGIC)
    # The spec's informer: every event since the first list, as one watch's lines.
    versions = tuple(answer.raw["metadata"]["resourceVersion"] for answer in (listed.fake, listed.real))
    s.pair.send(case, "ResourceQuota", "watch", "GET", tuple(  # type: ignore[arg-type]
        f"{s.path('resourcequotas')}?watch=1&{selector}&resourceVersion={version}&timeoutSeconds=1"
        for version in versions))
    s.send(case, "ResourceQuota", "patch-status-metadata", "PATCH", s.path("resourcequotas", name, "status"),
           {"metadata": {"labels": {"via": "status"}}, "spec": {"hard": {"cpu": "9"}}}, content_type=MERGE)
