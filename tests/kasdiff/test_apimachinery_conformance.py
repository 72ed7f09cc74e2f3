"""The requests of upstream's sig-api-machinery conformance specs (k8s v1.35.4
``test/e2e/apimachinery``), sent to fakeapi and to the real kube-apiserver side by side, in the
order each spec sends them: ResourceQuota's update, lifecycle and ``/status`` specs.

What a controller of a full cluster would do (kube-controller-manager's quota controller filling
``status.used``) is no part of either server here: the specs' requests and their answers are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import pytest
from differ import Json, Pair, check
from test_corpus import merge_patch
from test_subresources import MERGE, STRATEGIC, Servers, scrubbed

from fakeapi.testing.eventually import eventually


@pytest.fixture
def servers(pair: Pair, request: pytest.FixtureRequest) -> Iterator[Servers]:
    start = len(pair.outcomes)
    name = re.sub(r"[^a-z0-9]+", "-", request.node.name.removeprefix("test_")).strip("-")
    yield Servers(pair, ("conf-" + name)[:63].rstrip("-"))  # a namespace's name is a DNS label
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


_FLOWCONTROL = "/apis/flowcontrol.apiserver.k8s.io/v1"
_FLOW_SCHEMA = {"matchingPrecedence": 10000, "priorityLevelConfiguration": {"name": "global-default"},
                "distinguisherMethod": {"type": "ByUser"},
                "rules": [{"subjects": [{"kind": "User", "user": {"name": "example-e2e-non-existent-user"}}],
                           "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}
_PRIORITY_LEVEL = {"type": "Limited", "limited": {"nominalConcurrencyShares": 2, "limitResponse": {"type": "Reject"}}}


@pytest.mark.parametrize(("resource", "kind", "spec", "spec_patch", "spec_update"), [
    ("flowschemas", "FlowSchema", _FLOW_SCHEMA, {"matchingPrecedence": 9999}, {"matchingPrecedence": 9000}),
    ("prioritylevelconfigurations", "PriorityLevelConfiguration", _PRIORITY_LEVEL,
     {"limited": {"nominalConcurrencyShares": 4}}, {"limited": {"nominalConcurrencyShares": 6}}),
], ids=["flowschemas", "prioritylevelconfigurations"])
def test_flowcontrol_api_operations(servers: Servers, resource: str, kind: str, spec: Json, spec_patch: Json,
                                    spec_update: Json) -> None:
    """"should support FlowSchema API operations" and "... PriorityLevelConfiguration API
    operations": three objects of one generateName; get, list, watch, patch, update; get, patch
    and update of ``/status``; delete, delete-collection.

    Each server's APF configuration controller gives a FlowSchema its Dangling condition after
    its create, and again after the spec's merge patch of the conditions drops it: each step
    that reads it waits for it on both servers first."""
    s = servers
    case = f"flowcontrol-{resource}"
    label = f"example-e2e-label%3D{s.namespace}"
    collection = f"{_FLOWCONTROL}/{resource}"
    s.send(case, "APIResourceList", "discovery", "GET", _FLOWCONTROL, rewrite=_resource_names(resource))
    template = {"metadata": {"generateName": "e2e-example-", "labels": {"example-e2e-label": s.namespace}},
                "spec": spec}
    created: tuple[list[str], list[str]] = ([], [])
    for _ in range(3):
        answer = s.send(case, kind, "create", "POST", collection, template)
        for names, server_answer in zip(created, (answer.fake, answer.real), strict=True):
            names.append(server_answer.raw["metadata"]["name"])
    names = (created[0][-1], created[1][-1])
    servers_and_names = tuple(zip((s.pair.fake, s.pair.real), created, strict=True))

    def item(subresource: str = "") -> tuple[str, str]:
        return tuple(f"{collection}/{name}" + (f"/{subresource}" if subresource else "")  # type: ignore[return-value]
                     for name in names)

    def await_dangling() -> None:
        if kind != "FlowSchema":
            return
        for client, server_names in servers_and_names:
            for name in server_names:
                eventually(lambda: any(c["type"] == "Dangling" for c in (client.get(f"{collection}/{name}").json()
                                                                        .get("status") or {}).get("conditions") or ()),
                           f"the Dangling condition of {name}")

    def in_creation_order(body: Json, is_fake: bool) -> Json:
        """A list's items in the order they were created (by name they are in the random order
        of their generated suffixes)."""
        order = created[0 if is_fake else 1]
        if "items" in body:
            body["items"].sort(key=lambda obj: order.index(obj["metadata"]["name"]))
        return scrubbed(body, is_fake)

    await_dangling()
    s.pair.send(case, kind, "get", "GET", item())
    listed = s.send(case, kind, "list", "GET", f"{collection}?labelSelector={label}", rewrite=in_creation_order)
    s.pair.send(case, kind, "patch", "PATCH", item(), content_type=MERGE, body=json.dumps(
        {"metadata": {"annotations": {"patched": "true"}}, "spec": spec_patch}).encode())
    stored = [client.get(path).json() for client, path in zip((s.pair.fake, s.pair.real), item(), strict=True)]
    for obj in stored:
        obj["metadata"]["annotations"]["updated"] = "true"
        obj["spec"] = merge_patch(obj["spec"], spec_update)
    s.pair.send(case, kind, "update", "PUT", item(), body=tuple(json.dumps(obj).encode() for obj in stored))
    versions = tuple(answer.raw["metadata"]["resourceVersion"] for answer in (listed.fake, listed.real))
    s.pair.send(case, kind, "watch", "GET", tuple(  # type: ignore[arg-type]
        f"{collection}?watch=1&labelSelector={label}&resourceVersion={version}&timeoutSeconds=1"
        for version in versions))
    s.pair.send(case, kind, "get-status", "GET", item("status"))
    s.pair.send(case, kind, "patch-status", "PATCH", item("status"), content_type=MERGE, body=json.dumps(
        {"status": {"conditions": [{"type": "PatchStatusFailed", "status": "False", "reason": "e2e"}]}}).encode())
    await_dangling()
    stored = [client.get(path).json() for client, path in zip((s.pair.fake, s.pair.real), item(), strict=True)]
    for obj in stored:
        obj["status"]["conditions"].append({"type": "StatusUpdateFailed", "status": "False", "reason": "E2E",
                                            "message": "Set from an e2e test"})
    s.pair.send(case, kind, "update-status", "PUT", item("status"),
                body=tuple(json.dumps(obj).encode() for obj in stored))
    s.pair.send(case, kind, "delete", "DELETE", item())
    s.pair.send(case, kind, "get-deleted", "GET", item())
    s.send(case, kind, "list-after-delete", "GET", f"{collection}?labelSelector={label}", rewrite=in_creation_order)
    s.send(case, kind, "delete-collection", "DELETE", f"{collection}?labelSelector={label}", rewrite=in_creation_order)
    s.send(case, kind, "list-empty", "GET", f"{collection}?labelSelector={label}")


def test_flowschema_dangling_follows_its_priority_level(servers: Servers) -> None:
    """The Dangling condition of a FlowSchema whose priority level is created after it, then
    deleted: NotFound, Found, NotFound again (the spec "should ensure that requests can't be
    drowned out" waits for it)."""
    s = servers
    case = "flowschema-dangling"
    level, flow_schema = f"{s.namespace}-level", f"{s.namespace}-schema"
    schema_path = f"{_FLOWCONTROL}/flowschemas/{flow_schema}"

    def await_dangling(status: str) -> None:
        for client in (s.pair.fake, s.pair.real):
            eventually(lambda: any(c["type"] == "Dangling" and c["status"] == status for c in (
                client.get(schema_path).json().get("status") or {}).get("conditions") or ()),
                f"Dangling {status} on {flow_schema}")
        s.send(case, "FlowSchema", f"get-dangling-{status}", "GET", schema_path)

    s.send(case, "FlowSchema", "create", "POST", f"{_FLOWCONTROL}/flowschemas",
           {"metadata": {"name": flow_schema}, "spec": {**_FLOW_SCHEMA, "priorityLevelConfiguration": {"name": level}}})
    await_dangling("True")
    s.send(case, "PriorityLevelConfiguration", "create-level", "POST", f"{_FLOWCONTROL}/prioritylevelconfigurations",
           {"metadata": {"name": level}, "spec": _PRIORITY_LEVEL})
    await_dangling("False")
    s.send(case, "PriorityLevelConfiguration", "delete-level", "DELETE",
           f"{_FLOWCONTROL}/prioritylevelconfigurations/{level}")
    await_dangling("True")
    s.send(case, "FlowSchema", "delete", "DELETE", schema_path)


def _resource_names(resource: str) -> Callable[[Json, bool], Json]:
    """A group version's resource list cut to ``resource`` and its subresources."""
    def view(body: Json, _is_fake: bool) -> Json:
        return [entry for entry in body.get("resources", ()) if entry["name"].partition("/")[0] == resource]
    return view


@contextmanager
def _custom_group(s: Servers, group: str, versions: tuple[str, ...], storage: str) -> Iterator[None]:
    """A CRD of ``group`` serving ``versions`` (``storage`` stored), once both servers list
    them all under ``/apis/<group>/`` (kube's crdregistration controller makes their
    APIServices one by one); deleted after."""
    name = f"gadgets.{group}"
    s.setup("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
        "metadata": {"name": name},
        "spec": {"group": group, "scope": "Cluster",
                 "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
                 "versions": [{"name": version, "served": True, "storage": version == storage,
                               "schema": {"openAPIV3Schema": {"type": "object"}}} for version in versions]}})
    try:
        for client in (s.pair.fake, s.pair.real):
            eventually(lambda: len(_json_or_empty(client.get(f"/apis/{group}/")).get("versions") or ()) == len(versions),
                       f"/apis/{group}/ with its {len(versions)} versions")
        yield
    finally:
        s.setup("DELETE", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")


def _json_or_empty(response: httpx.Response) -> Json:
    return response.json() if response.status_code == 200 else {}


def test_discovery_preferred_version(servers: Servers) -> None:
    """"should validate PreferredVersion for each APIGroup": ``/apis/``, then each group's
    ``/apis/<group>/`` (with the spec's trailing slash), whose preferredVersion must be the one
    ``/apis`` gives; with a custom resource group of three versions among them, whose preferred
    one is kube's version order's first (not the storage version, not the first listed)."""
    s = servers
    case = "discovery-preferred-version"
    with _custom_group(s, "preferred.conformance.fakeapi.dev", ("v2alpha1", "v1beta1", "v1"), "v1beta1"):
        groups = s.send(case, "APIGroupList", "groups", "GET", "/apis/")
        for listed in groups.real.raw["groups"]:
            s.send(case, "APIGroup", f"group {listed['name']}", "GET", f"/apis/{listed['name']}/")


def _group_versions_of_both(s: Servers) -> list[str]:
    """The group versions both servers' ``/apis`` list: a custom group another test deleted may
    linger in kube's (its crdregistration controller removes the APIServices after the CRD)."""
    fake, real = ({version["groupVersion"] for group in client.get("/apis").json()["groups"]
                   for version in group["versions"]} for client in (s.pair.fake, s.pair.real))
    return sorted(fake & real)


def _storage_version_hashes(body: Json, _is_fake: bool) -> Json:
    """A resource list's storage version hashes by resource (a create-only resource has none;
    subresources, which have none either, are left out: kube lists some fakeapi does not
    serve, pods/log and the like)."""
    return {entry["name"]: entry.get("storageVersionHash") for entry in body.get("resources", ())
            if "/" not in entry["name"]}


def test_discovery_storage_version_hashes(servers: Servers) -> None:
    """Each served group version's resources and their storage version hashes (kube's
    "Discovery Custom resource should have storage version hash" spec reads a custom
    resource's): a hash of the group, version and kind they are stored as, so events.k8s.io's
    events have core's, autoscaling/v1's HPAs autoscaling/v2's, and a custom resource's every
    version its storage version's."""
    s = servers
    case = "discovery-storage-version-hashes"
    with _custom_group(s, "hashes.conformance.fakeapi.dev", ("v1", "v1beta1"), "v1beta1"):
        s.send(case, "APIResourceList", "v1", "GET", "/api/v1", rewrite=_storage_version_hashes)
        for group_version in _group_versions_of_both(s):
            s.send(case, "APIResourceList", group_version, "GET", f"/apis/{group_version}",
                   rewrite=_storage_version_hashes)


_AUTHORIZATION = "/apis/authorization.k8s.io/v1"
#: kube's create-only storages, none of which converts to a Table: the spec's
#: SelfSubjectAccessReview and the others, each with an Accept of a Table (and a body that would
#: be refused, which the 406 comes before).
_CREATE_ONLY = [
    f"{_AUTHORIZATION}/selfsubjectaccessreviews", f"{_AUTHORIZATION}/subjectaccessreviews",
    f"{_AUTHORIZATION}/selfsubjectrulesreviews", f"{_AUTHORIZATION}/namespaces/default/localsubjectaccessreviews",
    "/apis/authentication.k8s.io/v1/tokenreviews", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    "/api/v1/namespaces/default/bindings", "/api/v1/namespaces/default/pods/missing/binding",
    "/api/v1/namespaces/default/pods/missing/eviction", "/api/v1/namespaces/default/serviceaccounts/missing/token",
]


@pytest.mark.parametrize("path", _CREATE_ONLY, ids=[path.rsplit("/", 1)[1] for path in _CREATE_ONLY])
def test_table_for_backend_without_metadata(servers: Servers, path: str) -> None:
    """"should return a 406 for a backend which does not implement metadata": a
    SelfSubjectAccessReview created with a Table asked for (406 NotAcceptable, before the body
    is read)."""
    s = servers
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
              "spec": {"nonResourceAttributes": {"path": "/", "verb": "get"}}}
    s.send("table-without-metadata", "Status", "create-as-table", "POST", path, review,
           headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})


#: Subresources read with a Table asked for: whether their storage converts to one (406 before
#: the object is looked for if not, else the missing object's 404).
_SUBRESOURCES = [
    "/api/v1/namespaces/default/pods/missing/status", "/api/v1/namespaces/default/replicationcontrollers/missing/scale",
    "/apis/apps/v1/namespaces/default/deployments/missing/scale", "/apis/apps/v1/namespaces/default/deployments/missing/status",
    "/apis/apps/v1/namespaces/default/replicasets/missing/scale", "/apis/apps/v1/namespaces/default/statefulsets/missing/scale",
    "/api/v1/namespaces/default/pods/missing/ephemeralcontainers", "/api/v1/namespaces/default/pods/missing/resize",
    "/apis/certificates.k8s.io/v1/certificatesigningrequests/missing/approval",
    "/apis/certificates.k8s.io/v1/certificatesigningrequests/missing/status",
]


@pytest.mark.parametrize("path", _SUBRESOURCES, ids=["/".join(path.rsplit("/", 3)[1::2]) for path in _SUBRESOURCES])
def test_table_of_subresource(servers: Servers, path: str) -> None:
    servers.send("table-of-subresource", "Status", "get-as-table", "GET", path,
                 headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})



_TABLE_V1BETA1 = {"Accept": "application/json;as=Table;v=v1beta1;g=meta.k8s.io"}


def test_table_transformation(servers: Servers) -> None:
    """The other specs of "Servers with support for Table transformation": a pod's row
    (meta.k8s.io/v1beta1), twenty pod templates in pages of two and the next page by its
    continue token, the nodes."""
    s = servers
    case = "table-transformation"
    s.pod("pod-1", spec={"restartPolicy": "Never", "containers": [{
        "name": "agnhost-container", "image": "registry.k8s.io/e2e-test-images/agnhost:2.56", "args": ["porter"],
        "ports": [{"containerPort": 8080}], "env": [{"name": "SERVE_PORT_8080", "value": "foo"}]}]})
    s.send(case, "Table", "pod", "GET", s.path("pods", "pod-1"), headers=_TABLE_V1BETA1)
    for i in range(20):
        s.setup("POST", s.path("podtemplates"), {"metadata": {"name": f"template-{i:04d}"}, "template": {
            "spec": {"containers": [{"name": "test", "image": "test2"}]}}})
    page = s.send(case, "Table", "podtemplates-page", "GET", s.path("podtemplates") + "?limit=2", headers=_TABLE_V1BETA1)
    s.pair.send(case, "Table", "podtemplates-next", "GET", tuple(  # type: ignore[arg-type]
        s.path("podtemplates") + f"?continue={answer.raw['metadata']['continue']}" for answer in (page.fake, page.real)),
        headers=_TABLE_V1BETA1, rewrite=scrubbed)
    s.send(case, "Table", "nodes", "GET", "/api/v1/nodes", headers=_TABLE_V1BETA1)


def _column_definitions(body: Json, _is_fake: bool) -> Json:
    return body.get("columnDefinitions") if body.get("kind") == "Table" else scrubbed(body, _is_fake)


def test_table_columns_of_every_resource(servers: Servers) -> None:
    """The Table columns of every listable resource kube serves (its printers'; the default
    Name and Created At for a resource without one), read from an empty list in the suite's
    namespace."""
    s = servers
    for path in ("/api/v1", *(f"/apis/{group_version}" for group_version in _group_versions_of_both(s))):
        for entry in s.pair.real.get(path).json()["resources"]:
            if "/" in entry["name"] or "list" not in entry["verbs"]:
                continue
            scope = f"/namespaces/{s.namespace}" if entry["namespaced"] else ""
            s.send("table-columns", "Table", f"{path} {entry['name']}", "GET", f"{path}{scope}/{entry['name']}",
                   headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}, rewrite=_column_definitions)


def test_table_rows_of_bootstrap_objects(servers: Servers) -> None:
    """The rows of what every cluster has: the API Priority and Fairness configuration (flow
    schemas in their matching order, with the Dangling condition's MissingPL) and the service
    CIDR. Without the rows' objects: fakeapi writes its bootstrap objects in one revision."""
    s = servers
    for path in ("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
                 "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations",
                 "/apis/networking.k8s.io/v1/servicecidrs"):
        s.send("table-rows", "Table", path, "GET", path + "?includeObject=None",
               headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})


_ADMISSION = "/apis/admissionregistration.k8s.io/v1"


def test_table_rows_of_admission_policies(servers: Servers) -> None:
    """The rows of ValidatingAdmissionPolicies (validations, param kind) and their bindings
    (param by name, by namespace and name, by selector, none)."""
    s = servers
    prefix = s.namespace
    match = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                                "resources": ["configmaps"]}]}
    policies = [
        {"metadata": {"name": f"{prefix}-plain"}, "spec": {
            "matchConstraints": match, "validations": [{"expression": "true"}, {"expression": "1 == 1"}]}},
        {"metadata": {"name": f"{prefix}-params"}, "spec": {
            "matchConstraints": match, "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "validations": [{"expression": "true"}]}},
    ]
    bindings = [
        {"metadata": {"name": f"{prefix}-a"}, "spec": {"policyName": f"{prefix}-plain", "validationActions": ["Deny"]}},
        {"metadata": {"name": f"{prefix}-b"}, "spec": {"policyName": f"{prefix}-params", "validationActions": ["Warn"],
                                                        "paramRef": {"name": "p", "parameterNotFoundAction": "Deny"}}},
        {"metadata": {"name": f"{prefix}-c"}, "spec": {"policyName": f"{prefix}-params", "validationActions": ["Warn"],
                                                        "paramRef": {"name": "p", "namespace": "ns",
                                                                     "parameterNotFoundAction": "Allow"}}},
        {"metadata": {"name": f"{prefix}-d"}, "spec": {"policyName": f"{prefix}-params", "validationActions": ["Audit"],
                                                        "paramRef": {"parameterNotFoundAction": "Deny", "selector": {
                                                            "matchLabels": {"b": "2", "a": "1"},
                                                            "matchExpressions": [{"key": "k", "operator": "In",
                                                                                  "values": ["x", "y"]}]}}}},
    ]
    for resource, objects in (("validatingadmissionpolicies", policies), ("validatingadmissionpolicybindings", bindings)):
        for obj in objects:
            s.setup("POST", f"{_ADMISSION}/{resource}", obj)
    try:
        for resource, objects in (("validatingadmissionpolicies", policies),
                                  ("validatingadmissionpolicybindings", bindings)):
            for obj in objects:
                path = f"{_ADMISSION}/{resource}/{obj['metadata']['name']}"
                s.send("table-admission-policies", "Table", path, "GET", path + "?includeObject=None",
                       headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    finally:
        for resource, objects in (("validatingadmissionpolicybindings", bindings), ("validatingadmissionpolicies", policies)):
            for obj in objects:
                s.setup("DELETE", f"{_ADMISSION}/{resource}/{obj['metadata']['name']}")


def test_table_rows_of_endpoint_slices(servers: Servers) -> None:
    """EndpointSlices' rows: none of either (``<unset>``), ports by number, name or ``*``, more
    than three of each."""
    s = servers
    slices = [
        {"metadata": {"name": "empty"}, "addressType": "IPv4", "endpoints": []},
        {"metadata": {"name": "many"}, "addressType": "IPv4",
         "ports": [{"port": 80, "name": "a"}, {"name": "http"}, {}, {"port": 443, "name": "https"}],
         "endpoints": [{"addresses": ["10.0.0.1", "10.0.0.2"]}, {"addresses": ["10.0.0.3"]},
                       {"addresses": ["10.0.0.4"]}]},
    ]
    for obj in slices:
        s.setup("POST", s.path("endpointslices", group="discovery.k8s.io/v1"), obj)
    s.send("table-endpoint-slices", "Table", "list", "GET",
           s.path("endpointslices", group="discovery.k8s.io/v1") + "?includeObject=None",
           headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})

