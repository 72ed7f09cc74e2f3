"""The RBAC authorizer, kube's rule matching, the request attributes authorization sees, and the
authenticator chain, in-process (the differential suite ``tests/kasdiff/test_access.py`` checks
the same answers against a real kube-apiserver)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from cryptography.hazmat.primitives import serialization

from fakeapi.http.access import request_attributes
from fakeapi.http.pki import issue, new_ca
from fakeapi.http.request_info import request_info
from fakeapi.auth.authentication import (
    ANONYMOUS_USER,
    UserInfo,
    certificate_user,
    read_token_file,
)
from fakeapi.auth.authorization import RBAC, AccessControl, Attributes, Decision
from fakeapi.auth.rbac import PolicyRule
from fakeapi.testing import FakeAPI

JANE = UserInfo("jane", "", ("devs", "system:authenticated"))
RBAC_ONLY = {"access": AccessControl(authorization_modes=(RBAC,))}


def _rule(**fields: list[str]) -> PolicyRule:
    names = {"verbs": "verbs", "groups": "apiGroups", "resources": "resources", "names": "resourceNames",
             "urls": "nonResourceURLs"}
    return PolicyRule.from_json({names[key]: value for key, value in fields.items()})


def _resource(verb: str, resource: str, group: str = "", subresource: str = "", name: str = "",
              namespace: str = "ns") -> Attributes:
    return Attributes(JANE, verb, True, api_group=group, resource=resource, subresource=subresource, name=name,
                      namespace=namespace)


@pytest.mark.parametrize(("rule", "attributes", "allowed"), [
    (_rule(verbs=["get"], groups=[""], resources=["pods"]), _resource("get", "pods"), True),
    (_rule(verbs=["get"], groups=[""], resources=["pods"]), _resource("list", "pods"), False),
    (_rule(verbs=["*"], groups=[""], resources=["pods"]), _resource("delete", "pods"), True),
    (_rule(verbs=["get"], groups=["apps"], resources=["pods"]), _resource("get", "pods"), False),
    (_rule(verbs=["get"], groups=["*"], resources=["deployments"]), _resource("get", "deployments", "apps"), True),
    (_rule(verbs=["get"], groups=["*"], resources=["*"]), _resource("get", "deployments", "apps", "scale"), True),
    # A resource alone does not grant its subresources; "*/scale" grants every resource's scale.
    (_rule(verbs=["get"], groups=["apps"], resources=["deployments"]), _resource("get", "deployments", "apps", "scale"), False),
    (_rule(verbs=["get"], groups=["apps"], resources=["deployments/scale"]),
     _resource("get", "deployments", "apps", "scale"), True),
    (_rule(verbs=["get"], groups=["apps"], resources=["*/scale"]), _resource("get", "statefulsets", "apps", "scale"), True),
    (_rule(verbs=["get"], groups=["apps"], resources=["*/scale"]), _resource("get", "statefulsets", "apps"), False),
    # resourceNames: only requests that name one of them (a list names nothing).
    (_rule(verbs=["get", "list"], groups=[""], resources=["configmaps"], names=["a"]),
     _resource("get", "configmaps", name="a"), True),
    (_rule(verbs=["get", "list"], groups=[""], resources=["configmaps"], names=["a"]),
     _resource("get", "configmaps", name="b"), False),
    (_rule(verbs=["get", "list"], groups=[""], resources=["configmaps"], names=["a"]),
     _resource("list", "configmaps"), False),
    # Non-resource URLs: exact, or a prefix ending in "*"; never for resource requests.
    (_rule(verbs=["get"], urls=["/healthz"]), Attributes(JANE, "get", False, path="/healthz"), True),
    (_rule(verbs=["get"], urls=["/healthz"]), Attributes(JANE, "get", False, path="/healthz/etcd"), False),
    (_rule(verbs=["get"], urls=["/apis/*"]), Attributes(JANE, "get", False, path="/apis/apps/v1"), True),
    (_rule(verbs=["get"], urls=["/apis/*"]), Attributes(JANE, "get", False, path="/apis"), False),
    (_rule(verbs=["*"], urls=["*"]), Attributes(JANE, "post", False, path="/anything"), True),
    (_rule(verbs=["get"], urls=["*"]), _resource("get", "pods"), False),
])
def test_rule_matching(rule: PolicyRule, attributes: Attributes, allowed: bool) -> None:
    assert rule.allows(attributes) is allowed


#: A registry serving nothing: the attributes are kube's of any path, served or not.
_NOTHING_SERVED = SimpleNamespace(resources={}, create_only={})


def _attributes(method: str, path: str, query: bytes) -> Attributes:
    """JANE's attributes of a request, from its ``RequestInfo``."""
    scope = {"type": "http", "method": method, "path": path, "query_string": query, "headers": []}
    return request_attributes(JANE, request_info(_NOTHING_SERVED, scope))  # type: ignore[arg-type]


@pytest.mark.parametrize(("method", "path", "query", "expected"), [
    ("GET", "/api/v1/namespaces/ns/pods", b"", ("list", "", "pods", "", "", "ns")),
    ("GET", "/api/v1/namespaces/ns/pods", b"watch=true", ("watch", "", "pods", "", "", "ns")),
    ("GET", "/api/v1/namespaces/ns/pods", b"watch=1&fieldSelector=metadata.name%3Dweb",
     ("watch", "", "pods", "", "web", "ns")),
    ("GET", "/api/v1/namespaces/ns/pods", b"fieldSelector=metadata.name%21%3Dweb", ("list", "", "pods", "", "", "ns")),
    ("GET", "/api/v1/namespaces/ns/pods/web/log", b"", ("get", "", "pods", "log", "web", "ns")),
    ("DELETE", "/api/v1/namespaces/ns/pods", b"", ("deletecollection", "", "pods", "", "", "ns")),
    ("PATCH", "/apis/apps/v1/namespaces/ns/deployments/web/scale", b"", ("patch", "apps", "deployments", "scale", "web", "ns")),
    ("POST", "/api/v1/namespaces", b"", ("create", "", "namespaces", "", "", "")),
    # A namespace is in its own namespace (RoleBindings there apply), and so are its subresources.
    ("GET", "/api/v1/namespaces/ns", b"", ("get", "", "namespaces", "", "ns", "ns")),
    ("PUT", "/api/v1/namespaces/ns/finalize", b"", ("update", "", "namespaces", "finalize", "ns", "ns")),
    ("GET", "/api/v1/watch/namespaces/ns/pods", b"", ("watch", "", "pods", "", "", "ns")),
    ("GET", "/api/v1/proxy/namespaces/ns/pods/web/x", b"", ("proxy", "", "pods", "", "web", "ns")),
])
def test_request_attributes(method: str, path: str, query: bytes, expected: tuple[str, ...]) -> None:
    attributes = _attributes(method, path, query)
    assert attributes.resource_request
    assert (attributes.verb, attributes.api_group, attributes.resource, attributes.subresource, attributes.name,
            attributes.namespace) == expected


@pytest.mark.parametrize("path", ["/healthz", "/api", "/api/v1", "/apis/apps", "/apis/apps/v1", "/version", "/"])
def test_non_resource_attributes(path: str) -> None:
    attributes = _attributes("GET", path, b"")
    assert not attributes.resource_request and attributes.verb == "get" and attributes.path == path


def _authorize(fakeapi: FakeAPI, attributes: Attributes) -> tuple[Decision, str]:
    verdict = fakeapi.server_call(lambda server: server.registry.authorizer.authorize(attributes))
    return verdict.decision, verdict.reason


@pytest.mark.fakeapi(config=RBAC_ONLY)
def test_bindings_by_user_group_and_service_account(fakeapi: FakeAPI) -> None:
    fakeapi.apply([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "reader", "namespace": "ns"},
         "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "devs", "namespace": "ns"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
         "subjects": [{"kind": "Group", "name": "devs"}, {"kind": "ServiceAccount", "name": "robot"}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "jane-view"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
         "subjects": [{"kind": "User", "name": "jane"}]},
    ])
    fakeapi.wait_for("clusterroles.rbac.authorization.k8s.io", "view", condition=lambda role: bool(role.get("rules")))
    robot = UserInfo("system:serviceaccount:ns:robot", "", ("system:serviceaccounts", "system:authenticated"))
    list_pods = _resource("list", "pods")
    assert _authorize(fakeapi, list_pods) == (
        Decision.ALLOW, 'RBAC: allowed by ClusterRoleBinding "jane-view" of ClusterRole "view" to User "jane"')
    assert _authorize(fakeapi, Attributes(robot, "list", True, resource="pods", namespace="ns"))[0] is Decision.ALLOW
    assert _authorize(fakeapi, Attributes(robot, "list", True, resource="pods", namespace="other"))[0] is Decision.NO_OPINION
    # view (aggregated from system:aggregate-to-view) reads deployments everywhere; no writes.
    assert _authorize(fakeapi, _resource("list", "deployments", "apps", namespace="other"))[0] is Decision.ALLOW
    assert _authorize(fakeapi, _resource("delete", "pods", name="p")) == (Decision.NO_OPINION, "")
    # A change reaches the authorizer through the watch cache: the decision is not kept.
    fakeapi.delete("clusterrolebindings.rbac.authorization.k8s.io", "jane-view")
    fakeapi.wait_for_deleted("clusterrolebindings.rbac.authorization.k8s.io", "jane-view")
    assert _authorize(fakeapi, _resource("list", "deployments", "apps", namespace="other"))[0] is Decision.NO_OPINION
    assert _authorize(fakeapi, list_pods) == (
        Decision.ALLOW, 'RBAC: allowed by RoleBinding "devs/ns" of Role "reader" to Group "devs"')


@pytest.mark.fakeapi(config=RBAC_ONLY)
def test_missing_roles_are_the_reason(fakeapi: FakeAPI) -> None:
    fakeapi.apply([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "b", "namespace": "ns"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "gone"},
         "subjects": [{"kind": "User", "name": "jane"}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "c"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "gone-too"},
         "subjects": [{"kind": "User", "name": "jane"}]},
    ])
    fakeapi.wait_for("rolebindings.rbac.authorization.k8s.io", "b", namespace="ns")
    reason = ('RBAC: [clusterrole.rbac.authorization.k8s.io "gone-too" not found, '
              'role.rbac.authorization.k8s.io "gone" not found]')
    assert _authorize(fakeapi, _resource("get", "pods", name="p")) == (Decision.NO_OPINION, reason)
    response = fakeapi.http.get("/api/v1/namespaces/ns/pods/p", headers={"Impersonate-User": "jane"})
    assert response.status_code == 403
    assert response.json()["message"] == (
        'pods "p" is forbidden: User "jane" cannot get resource "pods" in API group "" in the namespace "ns": '
        + reason)
    rules = fakeapi.server_call(lambda server: server.registry.authorizer.rules_for(JANE, "ns"))
    assert rules.error == reason[len("RBAC: "):]


@pytest.mark.fakeapi(config=RBAC_ONLY)
def test_masters_bypass_and_anonymous(fakeapi: FakeAPI) -> None:
    """``system:masters`` is allowed whatever RBAC says (the plugin's client is the admin);
    anonymous requests get what the bootstrap policy gives ``system:unauthenticated``."""
    assert fakeapi.http.delete("/api/v1/namespaces/default/pods").status_code == 200
    anonymous = {"Authorization": ""}
    assert fakeapi.http.get("/healthz", headers=anonymous).status_code == 200
    assert fakeapi.http.get("/version", headers=anonymous).status_code == 200
    denied = fakeapi.http.get("/api", headers=anonymous)
    assert denied.status_code == 403 and denied.json()["message"] == \
        'forbidden: User "system:anonymous" cannot get path "/api"'
    assert denied.headers["x-content-type-options"] == "nosniff"


def test_token_file(tmp_path: Path) -> None:
    path = tmp_path / "tokens.csv"
    path.write_text('t1,alice,uid-1,"g1,g2"\nt2,bob,uid-2\n,skipped,x\nt1,alice-again,uid-3\n\n')
    tokens = read_token_file(str(path))
    assert tokens == {"t1": UserInfo("alice-again", "uid-3"), "t2": UserInfo("bob", "uid-2")}
    path.write_text("t1,alice\n")
    with pytest.raises(ValueError, match="must have at least 3 columns"):
        read_token_file(str(path))


def test_certificate_user() -> None:
    ca = new_ca("test-ca")
    pair = issue(ca, "jane", organizations=["devs", "qa"], client=True)
    der = pair.certificate.public_bytes(serialization.Encoding.DER)
    user = certificate_user(der)
    assert user is not None and (user.name, user.groups) == ("jane", ("devs", "qa", "system:authenticated"))
    assert user.extra["authentication.kubernetes.io/credential-id"][0].startswith("X509SHA256=")


def test_anonymous_user_is_kubes() -> None:
    assert ANONYMOUS_USER.to_json() == {"username": "system:anonymous", "groups": ["system:unauthenticated"]}


def test_aggregated_roles_follow_their_members(fakeapi: FakeAPI) -> None:
    """The aggregation controller gives ``view`` the rules of each ClusterRole labelled
    aggregate-to-view, as the member is now: a member created, changed and deleted (each rule
    once, in member name order, by server-side apply as clusterrole-aggregation-controller).
    ``view`` feeds ``edit`` and ``edit`` feeds ``admin``: each follows too."""
    roles = "clusterroles.rbac.authorization.k8s.io"
    member = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
              "metadata": {"name": "widgets-view", "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
              "rules": [{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get", "list"]},
                        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}]}

    def widget_rules(role: dict) -> list[dict]:  # type: ignore[type-arg]
        return [rule for rule in role.get("rules") or () if "example.com" in rule.get("apiGroups", ())]

    fakeapi.apply(member)
    for name in ("view", "edit", "admin"):
        role = fakeapi.wait_for(roles, name, condition=widget_rules)
        assert widget_rules(role) == [{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get", "list"]}]
    view = fakeapi.get(roles, "view")
    assert [(entry["manager"], entry["operation"]) for entry in view["metadata"]["managedFields"]
            if "f:rules" in entry["fieldsV1"]] == [("clusterrole-aggregation-controller", "Apply")]
    assert len(view["rules"]) == len({repr(rule) for rule in view["rules"]})  # pods/get,list,watch once

    member["rules"][0]["verbs"] = ["get", "list", "watch"]
    fakeapi.apply(member)
    for name in ("view", "edit", "admin"):
        fakeapi.wait_for(roles, name, condition=lambda role: [rule["verbs"] for rule in widget_rules(role)]
                         == [["get", "list", "watch"]])

    fakeapi.delete(roles, "widgets-view")
    for name in ("view", "edit", "admin"):
        fakeapi.wait_for(roles, name, condition=lambda role: role.get("rules") and not widget_rules(role))
