"""Authentication and RBAC, on fakeapi and on a real kube-apiserver configured alike: HTTPS,
``--authorization-mode=RBAC``, ``--anonymous-auth=true``, the same static token file (the
administrator, ``jane`` in ``devs``, ``joe``), and the ClusterRole aggregation controller (the
real kube-controller-manager runs it for the oracle: without it ``admin``, ``edit`` and ``view``
grant nothing on either side).

Compared: 401s (bad tokens, with impersonation), anonymous requests (what the bootstrap policy
gives ``system:anonymous``: health and version yes, discovery and resources 403 with kube's
exact message and details), impersonation refused and allowed, a user's requests before and after
RoleBindings (to a Role, to an aggregated ClusterRole, to a missing role: the ``RBAC:`` reason),
the access reviews and the rules review of the same users, a controller's RBAC manifest (a
ServiceAccount bound to a Role) used with its own token on each server, and
``kubectl auth can-i`` run against both. The certificate admission plugins, which ask the
authorizer themselves: a user who may update a CertificateSigningRequest's ``/approval`` and
``/status`` but may not ``approve`` or ``sign`` for its signer is refused with kube's 403, and
allowed once granted the verb on the signer by name or on its domain (``<domain>/*``). Each
server answers with its own cache behind its writes, so a check that follows an RBAC change
waits until both have it (as a client would retry).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from differ import Json, Outcome, Pair
from fakeapi.testing import ServerProcess
from fakeapi.cluster.control_plane import ControllerManager, Etcd, KubeAPIServer, kubectl_binary
from fakeapi.testing.eventually import eventually

NS = "access"
RBAC_V1 = "/apis/rbac.authorization.k8s.io/v1"
#: Users of both servers' static token file besides the administrator.
TOKEN_LINES = ('jane-token,jane,jane-uid,"devs"', "joe-token,joe,joe-uid", "ann-token,ann,ann-uid")
JANE = {"Authorization": "Bearer jane-token"}
JOE = {"Authorization": "Bearer joe-token"}
JANE_TOKENS = ("jane-token", "jane-token")
JOE_TOKENS = ("joe-token", "joe-token")


class Servers:
    """The two RBAC servers, their administrators side by side, and anonymous clients."""

    def __init__(self, fake: ServerProcess, real: KubeAPIServer, outcomes: list[Outcome]) -> None:
        self.fake, self.real = fake, real
        self.outcomes = outcomes
        self.admin = self._pair(fake.http, real.http)
        self.anonymous = self.as_tokens(None, None)

    def _pair(self, fake: httpx.Client, real: httpx.Client) -> Pair:
        pair = Pair(fake, real)
        pair.outcomes = self.outcomes
        return pair

    def clients(self, fake_token: str | None, real_token: str | None) -> tuple[httpx.Client, httpx.Client]:
        """A client of each server with a bearer token each (None: anonymous)."""
        return tuple(httpx.Client(base_url=url, verify=verify, timeout=30,  # type: ignore[return-value]
                                  headers={"Authorization": f"Bearer {token}"} if token else {})
                     for url, verify, token in ((self.fake.url, self.fake.verify, fake_token),
                                                (self.real.url, self.real.ssl_context, real_token)))

    def as_tokens(self, fake_token: str | None, real_token: str | None) -> Pair:
        """Both servers with a bearer token each (a service account's, issued by each)."""
        return self._pair(*self.clients(fake_token, real_token))

    def setup(self, method: str, path: str, body: Json) -> None:
        """An administrator's write on both servers that must succeed."""
        for client in (self.fake.http, self.real.http):
            response = client.request(method, path, json=body)
            assert response.status_code in (200, 201), response.text

    def until_both(self, tokens: tuple[str, str], path: str, status: int) -> None:
        """Wait until a request gets ``status`` from both servers (their RBAC caches caught up)."""
        for client in self.clients(*tokens):
            eventually(lambda c=client: c.get(path).status_code == status, f"{path} answers {status}")


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory, outcomes: list[Outcome]) -> Iterator[Servers]:
    workdir = tmp_path_factory.mktemp("rbac-oracle")
    tokens = workdir / "tokens.csv"
    tokens.write_text("".join(f"{line}\n" for line in TOKEN_LINES))
    with Etcd(workdir / "etcd") as etcd, \
            KubeAPIServer(workdir / "apiserver", etcd.client_url, "--anonymous-auth=true",
                          authorization_mode="RBAC", token_lines=TOKEN_LINES) as real, \
            ControllerManager(workdir / "kcm", real.kubeconfig, controllers="clusterrole-aggregation",
                              leader_elect=False), \
            ServerProcess(tmp_path_factory.mktemp("rbac-fakeapi"), "--tls", "--authorization-mode", "RBAC",
                          "--anonymous-auth", "true", "--token", "fakeapi-admin", "--token-file", str(tokens),
                          "--controllers", "clusterrole-aggregation-controller") as fake:
        both = Servers(fake, real, outcomes)
        both.setup("POST", "/api/v1/namespaces", {"metadata": {"name": NS}})
        # The aggregation controller has filled the aggregated roles on both.
        for client in (fake.http, real.http):
            eventually(lambda c=client: c.get(f"{RBAC_V1}/clusterroles/view").json().get("rules"),
                       "the aggregated view ClusterRole")
        yield both


def _sorted_rules(answer: Json, _is_fake: bool) -> Json:
    """A rules review with its rules in a fixed order (kube's follow its informer's map order)."""
    status = answer.get("status") if isinstance(answer, dict) else None
    if isinstance(status, dict):
        for key in ("resourceRules", "nonResourceRules"):
            if key in status:
                status[key] = sorted(status[key], key=repr)
    return answer


def _reason_free(answer: Json, _is_fake: bool) -> Json:
    """An access review without ``status.reason`` where several bindings may allow it: kube
    names the first its informer's map order visits."""
    if isinstance(answer, dict) and answer.get("status", {}).get("allowed"):
        answer["status"].pop("reason", None)
    return answer


def _matched(outcome: Outcome) -> None:
    assert outcome.matched, "\n".join(outcome.differences)


def test_unauthenticated(servers: Servers) -> None:
    pods = f"/api/v1/namespaces/{NS}/pods"
    for case, headers in (("bad-token", {"Authorization": "Bearer nope"}),
                          ("bad-token-impersonating", {"Authorization": "Bearer nope", "Impersonate-User": "jane"}),
                          ("bad-token-group-only", {"Authorization": "Bearer nope", "Impersonate-Group": "g"})):
        outcome = servers.anonymous.send(f"access-{case}", "Status", "get", "GET", pods, headers=headers)
        assert outcome.fake.status == 401
        _matched(outcome)
    _matched(servers.anonymous.send("access-bad-token-version", "Status", "get", "GET", "/version",
                                    headers={"Authorization": "Bearer nope"}))


@pytest.mark.parametrize("path", [
    "/api/v1/namespaces/access/pods", "/api/v1/pods", "/api/v1/namespaces/access", "/api/v1/namespaces",
    "/apis/apps/v1/namespaces/access/deployments/web/scale", "/api/v1/namespaces/access/pods/web/log",
    "/api/v1/namespaces/access/pods?watch=1&fieldSelector=metadata.name%3Dweb", "/api/v1/foos",
    "/api/v1/namespaces/access/pods/a/b/c", "/api/v1/proxy/namespaces/access/pods/web", "/api", "/apis",
    "/apis/apps/v1", "/api/v1", "/openapi/v3", "/metrics", "/healthz", "/livez", "/readyz",
])
def test_anonymous_get(servers: Servers, path: str) -> None:
    outcome = servers.anonymous.send("access-anonymous", "Status", "get", "GET", path,
                                     rewrite=lambda answer, _: answer if path.startswith("/api") or path == "/metrics"
                                     else str(answer)[:2])
    _matched(outcome)


def test_anonymous_writes_and_impersonation(servers: Servers) -> None:
    cm = f"/api/v1/namespaces/{NS}/configmaps"
    _matched(servers.anonymous.send("access-anonymous-create", "Status", "create", "POST", cm,
                                    body=b'{"metadata":{"name":"x"}}'))
    _matched(servers.anonymous.send("access-anonymous-delete", "Status", "deletecollection", "DELETE", cm))
    _matched(servers.anonymous.send("access-anonymous-review", "Status", "create", "POST",
                                    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                                    body=b'{"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}'))
    for case, headers in (("user", {"Impersonate-User": "jane"}),
                          ("service-account", {"Impersonate-User": "system:serviceaccount:access:robot"}),
                          ("group-only", {"Impersonate-Group": "g"}),
                          ("everything", {"Impersonate-User": "jane", "Impersonate-Group": "g",
                                          "Impersonate-Uid": "u", "Impersonate-Extra-Team": "x"})):
        _matched(servers.anonymous.send(f"access-anonymous-impersonating-{case}", "Status", "list", "GET",
                                        "/api/v1/nodes", headers=headers))


def test_user_with_roles(servers: Servers) -> None:
    jane = servers.anonymous
    pods = f"/api/v1/namespaces/{NS}/pods"

    def send(case: str, verb: str, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] = JANE, rewrite: Any = None) -> Outcome:
        outcome = jane.send(f"access-jane-{case}", "Status", verb, method, path, body=body, headers=headers,
                            rewrite=rewrite)
        _matched(outcome)
        return outcome

    assert send("no-roles", "list", "GET", pods).fake.status == 403
    send("whoami", "create", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", b"{}")
    send("discovery", "get", "GET", "/apis", rewrite=lambda answer, _: answer.get("kind"))  # allowed: the groups are discovery's
    # A Role for pods and a named ConfigMap, bound to the group devs.
    servers.setup("POST", f"{RBAC_V1}/namespaces/{NS}/roles", {"metadata": {"name": "pod-reader"}, "rules": [
        {"apiGroups": [""], "resources": ["pods", "pods/log"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["settings"], "verbs": ["get", "update"]},
        {"apiGroups": ["apps"], "resources": ["*/scale"], "verbs": ["get"]},
    ]})
    servers.setup("POST", f"{RBAC_V1}/namespaces/{NS}/rolebindings", {
        "metadata": {"name": "devs-read-pods"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
        "subjects": [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "devs"}]})
    servers.until_both(JANE_TOKENS, pods, 200)
    send("list-pods", "list", "GET", pods)
    send("watch-pods", "watch", "GET", pods + "?watch=1&timeoutSeconds=1")
    send("create-pod", "create", "POST", pods, b'{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}')
    send("other-namespace", "list", "GET", "/api/v1/namespaces/default/pods")
    send("all-namespaces", "list", "GET", "/api/v1/pods")
    send("named-configmap", "get", "GET", f"/api/v1/namespaces/{NS}/configmaps/settings")
    send("other-configmap", "get", "GET", f"/api/v1/namespaces/{NS}/configmaps/other")
    send("list-configmaps", "list", "GET", f"/api/v1/namespaces/{NS}/configmaps")
    send("scale", "get", "GET", f"/apis/apps/v1/namespaces/{NS}/deployments/web/scale")
    send("deployment", "get", "GET", f"/apis/apps/v1/namespaces/{NS}/deployments/web")
    send("joe-no-roles", "list", "GET", pods, headers=JOE)
    # The aggregated ClusterRole "edit" through a RoleBinding, and a binding to a missing role.
    servers.setup("POST", f"{RBAC_V1}/namespaces/{NS}/rolebindings", {
        "metadata": {"name": "joe-edit"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
        "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "joe"}]})
    servers.setup("POST", f"{RBAC_V1}/clusterrolebindings", {
        "metadata": {"name": "joe-missing"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "no-such-role"},
        "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "joe"}]})
    servers.until_both(JOE_TOKENS, f"/apis/apps/v1/namespaces/{NS}/deployments", 200)
    send("joe-edit-deployments", "list", "GET", f"/apis/apps/v1/namespaces/{NS}/deployments", headers=JOE)
    send("joe-edit-create-configmap", "create", "POST", f"/api/v1/namespaces/{NS}/configmaps",
         b'{"metadata":{"name":"by-joe"}}', headers=JOE)
    send("joe-edit-no-roles", "list", "GET", f"{RBAC_V1}/namespaces/{NS}/roles", headers=JOE)
    send("joe-missing-role", "list", "GET", "/api/v1/nodes", headers=JOE)
    # Impersonation by an administrator, and by jane who may not.
    send("impersonated-by-admin", "list", "GET", pods, headers={"Impersonate-User": "joe"})
    send("impersonating", "list", "GET", pods, headers={**JANE, "Impersonate-User": "joe"})


def test_access_reviews(servers: Servers) -> None:
    reviews = "/apis/authorization.k8s.io/v1"

    def review(case: str, resource: str, body: str, headers: dict[str, str] | None = None) -> None:
        pair = servers.admin if headers is None else servers.anonymous
        rewrite = _sorted_rules if resource == "selfsubjectrulesreviews" else _reason_free
        _matched(pair.send(f"access-review-{case}", "Review", "create", "POST", f"{reviews}/{resource}",
                           body=body.encode(), headers=headers, rewrite=rewrite))

    review("sar-jane-pods", "subjectaccessreviews", '{"spec":{"user":"jane","groups":["devs"],'
           '"resourceAttributes":{"namespace":"access","verb":"list","resource":"pods"}}}')
    review("sar-jane-delete", "subjectaccessreviews", '{"spec":{"user":"jane","groups":["devs"],'
           '"resourceAttributes":{"namespace":"access","verb":"delete","resource":"pods"}}}')
    review("sar-nobody-healthz", "subjectaccessreviews", '{"spec":{"user":"nobody","groups":["system:unauthenticated"],'
           '"nonResourceAttributes":{"path":"/healthz","verb":"get"}}}')
    review("sar-masters", "subjectaccessreviews", '{"spec":{"user":"root","groups":["system:masters"],'
           '"resourceAttributes":{"verb":"delete","resource":"nodes"}}}')
    review("ssar-jane", "selfsubjectaccessreviews", '{"spec":{"resourceAttributes":{"namespace":"access",'
           '"verb":"get","resource":"pods","subresource":"log"}}}', JANE)
    review("ssar-jane-denied", "selfsubjectaccessreviews", '{"spec":{"resourceAttributes":{"namespace":"access",'
           '"verb":"create","resource":"deployments","group":"apps"}}}', JANE)
    review("ssrr-jane", "selfsubjectrulesreviews", '{"spec":{"namespace":"access"}}', JANE)
    review("ssrr-joe", "selfsubjectrulesreviews", '{"spec":{"namespace":"default"}}', JOE)


def test_controller_manifest(servers: Servers, tmp_path: Path) -> None:
    """A controller's RBAC as it ships: a ServiceAccount, a Role, a RoleBinding; its token
    (TokenRequest, on each server) allows what the Role says and nothing else, on both."""
    servers.setup("POST", f"/api/v1/namespaces/{NS}/serviceaccounts", {"metadata": {"name": "ctrl"}})
    servers.setup("POST", f"{RBAC_V1}/namespaces/{NS}/roles", {"metadata": {"name": "ctrl"}, "rules": [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch", "create", "update"]},
        {"apiGroups": ["apps"], "resources": ["deployments", "deployments/status"], "verbs": ["get", "patch"]},
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["*"]},
    ]})
    servers.setup("POST", f"{RBAC_V1}/namespaces/{NS}/rolebindings", {
        "metadata": {"name": "ctrl"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "ctrl"},
        "subjects": [{"kind": "ServiceAccount", "name": "ctrl", "namespace": NS}]})
    tokens = []
    for client in (servers.fake.http, servers.real.http):
        response = client.post(f"/api/v1/namespaces/{NS}/serviceaccounts/ctrl/token", json={"spec": {}})
        assert response.status_code == 201, response.text
        tokens.append(response.json()["status"]["token"])
    ctrl = servers.as_tokens(*tokens)
    servers.until_both((tokens[0], tokens[1]), f"/api/v1/namespaces/{NS}/configmaps", 200)
    configmaps = f"/api/v1/namespaces/{NS}/configmaps"
    for case, verb, method, path, body in (
        ("list", "list", "GET", configmaps, None),
        ("create", "create", "POST", configmaps, b'{"metadata":{"name":"ctrl-state"}}'),
        ("delete-denied", "delete", "DELETE", f"{configmaps}/ctrl-state", None),
        ("secrets-denied", "list", "GET", f"/api/v1/namespaces/{NS}/secrets", None),
        ("other-namespace-denied", "list", "GET", "/api/v1/namespaces/default/configmaps", None),
        ("lease", "create", "POST", f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases",
         b'{"metadata":{"name":"ctrl-leader"},"spec":{"holderIdentity":"ctrl"}}'),
        ("deployment-status", "patch", "PATCH", f"/apis/apps/v1/namespaces/{NS}/deployments/none/status", b"{}"),
        ("deployment-create-denied", "create", "POST", f"/apis/apps/v1/namespaces/{NS}/deployments", b"{}"),
        ("whoami", "create", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", b"{}"),
    ):
        headers = {"Content-Type": "application/merge-patch+json"} if method == "PATCH" else None
        outcome = ctrl.send(f"access-controller-{case}", "Status", verb, method, path, body=body, headers=headers,
                            rewrite=_without_credential_id)
        _matched(outcome)
    # kubectl auth can-i, impersonating the service account, answers alike on both.
    kubectl = str(kubectl_binary())
    for args in (("list", "configmaps"), ("delete", "configmaps"), ("patch", "deployments.apps/status"),
                 ("get", "secrets"), ("create", "leases.coordination.k8s.io"), ("list", "configmaps", "-n", "default")):
        answers = []
        for kubeconfig in (servers.fake.kubeconfig, servers.real.kubeconfig):
            result = subprocess.run([kubectl, "auth", "can-i", *args, "-n", NS, "--as", f"system:serviceaccount:{NS}:ctrl"]
                                    if "-n" not in args else
                                    [kubectl, "auth", "can-i", *args, "--as", f"system:serviceaccount:{NS}:ctrl"],
                                    capture_output=True, text=True, timeout=60,
                                    env={**os.environ, "KUBECONFIG": str(kubeconfig),
                                         "KUBECACHEDIR": str(tmp_path / "kubecache")})
            answers.append((result.stdout.strip(), result.returncode))
        assert answers[0] == answers[1], (args, answers)
    listed = []
    for kubeconfig in (servers.fake.kubeconfig, servers.real.kubeconfig):
        result = subprocess.run([kubectl, "auth", "can-i", "--list", "-n", NS, "--as", f"system:serviceaccount:{NS}:ctrl"],
                                capture_output=True, text=True, timeout=60,
                                env={**os.environ, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(tmp_path / "c2")})
        listed.append(sorted(result.stdout.splitlines()))
    assert listed[0] == listed[1]


def test_escalation_prevention(servers: Servers) -> None:
    """ann is admin of the namespace (the aggregated ClusterRole ``admin``): she may write Roles
    and RoleBindings, but grant only what she holds herself."""
    servers.setup("POST", f"{RBAC_V1}/namespaces/{NS}/rolebindings", {
        "metadata": {"name": "ann-admin"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "admin"},
        "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "ann"}]})
    servers.until_both(("ann-token", "ann-token"), f"{RBAC_V1}/namespaces/{NS}/roles", 200)
    ann = servers.as_tokens("ann-token", "ann-token")
    roles, bindings = f"{RBAC_V1}/namespaces/{NS}/roles", f"{RBAC_V1}/namespaces/{NS}/rolebindings"

    def send(case: str, path: str, body: Json) -> None:
        _matched(ann.send(f"access-escalation-{case}", "Status", "create", "POST", path, body=json.dumps(body).encode(),
                          rewrite=lambda answer, _: answer if answer.get("kind") == "Status" else answer.get("kind")))

    rule = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}
    send("role-held", roles, {"metadata": {"name": "ann-pods"}, "rules": [rule]})
    send("role-not-held", roles, {"metadata": {"name": "ann-nodes"}, "rules": [
        rule, {"apiGroups": [""], "resources": ["nodes", "pods/exec"], "verbs": ["list", "create"]},
        {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["a", "b"], "verbs": ["escalate"]},
        {"nonResourceURLs": ["/metrics", "/logs/*"], "verbs": ["get"]}]})
    send("bind-held", bindings, {"metadata": {"name": "ann-binds"}, "subjects": [{"kind": "User", "name": "joe"}],
                                 "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"}})
    send("bind-cluster-admin", bindings, {"metadata": {"name": "ann-root"}, "subjects": [{"kind": "User", "name": "ann"}],
                                          "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                                      "name": "cluster-admin"}})
    send("bind-missing-role", bindings, {"metadata": {"name": "ann-nope"}, "subjects": [{"kind": "User", "name": "ann"}],
                                         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "nope"}})


def _without_credential_id(answer: Json, _is_fake: bool) -> Json:
    """A service account's user names its token's id (``JTI=...``): each server's own."""
    if isinstance(answer, dict) and answer.get("kind") == "SelfSubjectReview":
        extra: dict[str, Any] = answer["status"]["userInfo"].get("extra") or {}
        extra.pop("authentication.kubernetes.io/credential-id", None)
    return answer


# --------------------------------------------------- CertificateApproval, CertificateSigning

CSR_PATH = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
CSR_USER = "csr-approver"
AS_CSR_USER = {"Impersonate-User": CSR_USER}
#: A PEM CERTIFICATE REQUEST (the corpus's), base64 as the API takes it.
REQUEST = ("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIeE1JR1lBZ0VBTURZeEhUQWJCZ05WQkFNTUZITjVjM1JsYlRwdWIyUm"
           "xPbmR2Y210bGNpMHhNUlV3RXdZRApWUVFLREF4emVYTjBaVzA2Ym05a1pYTXdXVEFUQmdjcWhrak9QUUlCQmdncWhrak9QUU1CQndOQ0FB"
           "U2RSWXROCk9GWXZoZFZENDVZOGlnU3R6VjVWajFyR1VYcGRmT3lmcm9GeXE2aHdnSEhRQm9RaEo5ZERpL2phbFh1Ym84TUMKVEw4VFlX"
           "Ym1XdzllRUJGZW9BQXdDZ1lJS29aSXpqMEVBd0lEU0FBd1JRSWdNWnY5Z09zOFR6bk1OWjBNTUI2ZAphcXkrSm5SL2NVZjR1THl3K3N2"
           "VS9SVUNJUURIMjJPWGVsSk5mWWp5ZEp6TjNxOGZST0RzQ0RQYXRLZytPR0RZClhYSTRwdz09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJF"
           "UVVFU1QtLS0tLQo=")
#: Sent with every condition: kube stamps a condition without one with the write's time.
CONDITION_UPDATED = "2026-01-02T03:04:05Z"


def _grant_cluster_role(servers: Servers, name: str, rules: list[Json]) -> None:
    servers.setup("POST", f"{RBAC_V1}/clusterroles", {"metadata": {"name": name}, "rules": rules})
    servers.setup("POST", f"{RBAC_V1}/clusterrolebindings", {
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
        "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": CSR_USER}]})


def _until_allowed(servers: Servers, verb: str, resource: str, name: str = "", subresource: str = "") -> None:
    """Wait until both servers' RBAC (which the plugins ask) lets the user ``verb`` the
    certificates.k8s.io ``resource`` (and ``subresource``) named ``name``."""
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {
        "user": CSR_USER, "resourceAttributes": {"group": "certificates.k8s.io", "version": "*", "resource": resource,
                                             "subresource": subresource, "verb": verb, "name": name}}}
    for client in (servers.fake.http, servers.real.http):
        eventually(lambda c=client: c.post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                                           json=review).json()["status"].get("allowed"),
                   f"{CSR_USER} may {verb} {resource} {name}")


def _csr(servers: Servers, name: str, signer: str) -> None:
    servers.setup("POST", CSR_PATH, {"metadata": {"name": name},
                                     "spec": {"request": REQUEST, "signerName": signer, "usages": ["client auth"]}})


def _csr_write(servers: Servers, case: str, name: str, subresource: str, conditions: list[Json]) -> int:
    """The user's PUT of ``conditions`` through ``subresource`` on both servers, compared; the
    status code."""
    bodies = []
    for client in (servers.fake.http, servers.real.http):
        stored = client.get(f"{CSR_PATH}/{name}").json()
        stored["status"] = {"conditions": conditions}
        bodies.append(json.dumps(stored).encode())
    outcome = servers.admin.send(f"csr-admission-{case}", "CertificateSigningRequest", "update", "PUT",
                                 f"{CSR_PATH}/{name}/{subresource}", body=(bodies[0], bodies[1]), headers=AS_CSR_USER)
    assert outcome.matched, "\n".join(outcome.differences)
    return outcome.fake.status


def _approved(reason: str) -> list[Json]:
    return [{"type": "Approved", "status": "True", "reason": reason, "message": "by the test",
             "lastUpdateTime": CONDITION_UPDATED}]


@pytest.fixture(scope="module")
def csr_writer(servers: Servers) -> Servers:
    """The servers, the user allowed to write CSRs' ``/approval`` and ``/status`` on both."""
    _grant_cluster_role(servers, "csr-writer", [
        {"apiGroups": ["certificates.k8s.io"], "resources": ["certificatesigningrequests"], "verbs": ["get"]},
        {"apiGroups": ["certificates.k8s.io"],
         "resources": ["certificatesigningrequests/approval", "certificatesigningrequests/status"],
         "verbs": ["get", "update", "patch"]}])
    for subresource in ("approval", "status"):
        _until_allowed(servers, "update", "certificatesigningrequests", subresource=subresource)
    return servers


def test_approval_needs_approve_on_the_signer(csr_writer: Servers) -> None:
    servers = csr_writer
    _csr(servers, "approve-by-name", "example.com/approve")
    _csr(servers, "approve-by-domain", "wild.example.com/any")
    assert _csr_write(servers, "approve-not-permitted", "approve-by-name", "approval", _approved("NotYet")) == 403
    _grant_cluster_role(servers, "approve-one-signer", [{"apiGroups": ["certificates.k8s.io"], "resources": ["signers"],
                                            "resourceNames": ["example.com/approve"], "verbs": ["approve"]}])
    _until_allowed(servers, "approve", "signers", "example.com/approve")
    assert _csr_write(servers, "approve-by-name", "approve-by-name", "approval", _approved("ByName")) == 200
    assert _csr_write(servers, "approve-other-domain", "approve-by-domain", "approval", _approved("NotYet")) == 403
    _grant_cluster_role(servers, "approve-a-domain", [{"apiGroups": ["certificates.k8s.io"], "resources": ["signers"],
                                          "resourceNames": ["wild.example.com/*"], "verbs": ["approve"]}])
    _until_allowed(servers, "approve", "signers", "wild.example.com/*")
    assert _csr_write(servers, "approve-by-domain", "approve-by-domain", "approval", _approved("ByDomain")) == 200


def test_status_needs_sign_on_the_signer(csr_writer: Servers) -> None:
    servers = csr_writer
    failed = [{"type": "Failed", "status": "True", "reason": "SignerDown", "message": "by the test",
               "lastUpdateTime": CONDITION_UPDATED}]
    _csr(servers, "sign-by-name", "example.com/sign")
    _csr(servers, "sign-by-domain", "signers.example.com/any")
    assert _csr_write(servers, "sign-not-permitted", "sign-by-name", "status", failed) == 403
    assert _csr_write(servers, "sign-unchanged", "sign-by-name", "status", []) == 200  # nothing signed: no check
    _grant_cluster_role(servers, "sign-one-signer", [{"apiGroups": ["certificates.k8s.io"], "resources": ["signers"],
                                         "resourceNames": ["example.com/sign"], "verbs": ["sign"]}])
    _until_allowed(servers, "sign", "signers", "example.com/sign")
    assert _csr_write(servers, "sign-by-name", "sign-by-name", "status", failed) == 200
    assert _csr_write(servers, "sign-other-domain", "sign-by-domain", "status", failed) == 403
    _grant_cluster_role(servers, "sign-a-domain", [{"apiGroups": ["certificates.k8s.io"], "resources": ["signers"],
                                       "resourceNames": ["signers.example.com/*"], "verbs": ["sign"]}])
    _until_allowed(servers, "sign", "signers", "signers.example.com/*")
    assert _csr_write(servers, "sign-by-domain", "sign-by-domain", "status", failed) == 200
