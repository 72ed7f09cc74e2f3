"""Subresources and create-only APIs, on fakeapi and on the real kube-apiserver: ``pods/binding``
and ``bindings``, ``pods/eviction`` with PodDisruptionBudgets, ``serviceaccounts/token`` and the
issuer's OpenID documents, ``TokenReview``, ``SelfSubjectReview`` (with impersonation), the
access reviews, and how discovery lists all of them.

The corpus's lifecycle does not fit requests that create nothing, so each test sends its requests
with ``pair.send``. Where a request changes a stored object, only the fields it owns are compared
(``pod_view``, ``budget_view``): the pod and budget defaults are the apis helpers' corpus. What
differs between two servers by nature is made comparable by ``scrub``: uids, times, URLs (the
issuers), and signed tokens, which are compared by their decoded claims (times relative to
``iat``).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from differ import Json, Outcome, Pair, check

from fakeapi.auth.authentication import ADMIN_TOKEN
from fakeapi.testing.eventually import eventually

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")
_URL = re.compile(r"https?://[A-Za-z0-9.\-:\[\]]+")
_JWT = re.compile(r"^eyJ[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$")
_RESOURCE_VERSION_IN_MESSAGE = re.compile(r"(ResourceVersion in object meta: |ResourceVersion in record \()\d+")
MERGE = "application/merge-patch+json"


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def decoded_token(token: str) -> Json:
    """A JWT as comparable data: its header (key id elided) and claims, times relative to
    ``iat``."""
    header, payload, _signature = token.split(".")
    claims = json.loads(_unb64(payload))
    issued = claims.get("iat", 0)
    for key in ("exp", "nbf"):
        if key in claims:
            claims[key] = f"iat+{claims[key] - issued}"
    private = claims.get("kubernetes.io") or {}
    if "warnafter" in private:
        private["warnafter"] = f"iat+{private['warnafter'] - issued}"
    claims["iat"] = "<iat>"
    return {"header": {**json.loads(_unb64(header)), "kid": "<kid>"}, "claims": scrub(claims)}


def scrub(value: Any) -> Any:
    """What differs between the servers by nature, made comparable (see the module doc)."""
    if isinstance(value, dict):
        return {key: scrub(item) for key, item in value.items()}
    if isinstance(value, list):
        return [scrub(item) for item in value]
    if isinstance(value, str):
        if _JWT.match(value):
            return decoded_token(value)
        value = _RESOURCE_VERSION_IN_MESSAGE.sub(r"\1<rv>", value)
        return _URL.sub("<server>", _TIME.sub("<time>", _UUID.sub("<uid>", value)))
    return value


def scrubbed(answer: Json, _is_fake: bool) -> Json:
    return scrub(answer)


def _manager_order(manager: tuple[str, str, str | None]) -> tuple[str, str, str]:
    """(manager, operation, subresource) in kube's order without the second of its time, which
    two writes share on one server and not on the other: operation, then manager."""
    name, operation, subresource = manager
    return operation, name, subresource or ""


def pod_view(pod: Json, _is_fake: bool = False) -> Json:
    """What binding and eviction change of a pod (or the Status of a failed read)."""
    if pod.get("kind") != "Pod":
        return scrub(pod)
    meta = pod["metadata"]
    return scrub({
        "metadata": {key: meta.get(key) for key in ("name", "labels", "annotations", "generation", "resourceVersion",
                                                    "deletionTimestamp", "deletionGracePeriodSeconds", "finalizers")}
        | {"managers": sorted(((m["manager"], m["operation"], m.get("subresource")) for m in meta.get("managedFields") or ()),
                              key=_manager_order)},
        "spec": {"nodeName": pod["spec"].get("nodeName")},
        "status": {"phase": pod["status"].get("phase"), "nominatedNodeName": pod["status"].get("nominatedNodeName"),
                   # Go writes an unset time of a condition as null: that is the encoding's business.
                   "conditions": [{key: value for key, value in condition.items() if value is not None}
                                  for condition in pod["status"].get("conditions") or ()]},
    })


def budget_view(budget: Json, _is_fake: bool = False) -> Json:
    """What an eviction changes of a PodDisruptionBudget: its status, who wrote it."""
    if budget.get("kind") != "PodDisruptionBudget":
        return scrub(budget)
    # status Update entries, in manager order (see _manager_order)
    managers = sorted(((m["manager"], m.get("subresource"), m["fieldsV1"])
                       for m in budget["metadata"].get("managedFields") or () if m.get("subresource") == "status"),
                      key=lambda manager: manager[0])
    # A zero count is written by kube's Go struct and absent here until the budget's defaults are
    # ported (the policy group's work): compared as absent.
    status = {key: value for key, value in (budget.get("status") or {}).items() if value != 0}
    return scrub({"status": status, "resourceVersion": budget["metadata"]["resourceVersion"], "statusManagers": managers})


class Servers:
    """The pair, working in a namespace of its own on both servers; ``setup`` requests are
    sent to both without comparing (they must succeed on both), ``send`` ones are compared."""

    def __init__(self, pair: Pair, namespace: str) -> None:
        self.pair = pair
        self.namespace = namespace
        self.setup("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}}, allow=(409,))

    def setup(self, method: str, path: str, body: Any = None, *, content_type: str = "application/json",
              allow: tuple[int, ...] = ()) -> tuple[Json, Json]:
        answers = []
        for client in (self.pair.fake, self.pair.real):
            content = None if body is None else json.dumps(body).encode()
            response = client.request(method, path, content=content,
                                      headers={"Content-Type": content_type} if content is not None else {})
            assert response.status_code < 300 or response.status_code in allow, \
                f"{method} {path} on {'fakeapi' if client is self.pair.fake else 'kube'}: {response.text}"
            answers.append(response.json())
        return answers[0], answers[1]

    def send(self, case: str, kind: str, verb: str, method: str, path: str, body: Any = None, *,
             rewrite: Callable[[Json, bool], Json] = scrubbed, headers: dict[str, str] | None = None,
             content_type: str = "application/json") -> Outcome:
        raw = body.encode() if isinstance(body, str) else None if body is None else json.dumps(body).encode()
        return self.pair.send(case, kind, verb, method, path, body=raw, rewrite=rewrite, headers=headers,
                              content_type=content_type)

    def path(self, resource: str, name: str = "", subresource: str = "", group: str = "") -> str:
        root = f"/apis/{group}" if group else "/api/v1"
        return f"{root}/namespaces/{self.namespace}/{resource}" + (f"/{name}" if name else "") + \
            (f"/{subresource}" if subresource else "")

    def pod(self, name: str, *, labels: dict[str, str] | None = None, phase: str | None = None, ready: bool = False,
            spec: Json | None = None, finalizers: list[str] | None = None) -> None:
        metadata: Json = {"name": name, "labels": labels or {}}
        if finalizers:
            metadata["finalizers"] = finalizers
        self.setup("POST", self.path("pods"), {"metadata": metadata, "spec": {
            "containers": [{"name": "c", "image": "nginx"}], "schedulerName": "default-scheduler", **(spec or {})}})
        if phase is not None:
            conditions = [{"type": "Ready", "status": "True" if ready else "False"}]
            self.setup("PATCH", self.path("pods", name, "status"), {"status": {"phase": phase, "conditions": conditions}},
                       content_type=MERGE)

    def budget(self, name: str, selector: Json | None, status: Json | None = None, **spec: Any) -> None:
        body: Json = {"metadata": {"name": name}, "spec": {"minAvailable": 1, **spec}}
        if selector is not None:
            body["spec"]["selector"] = selector
        self.setup("POST", self.path("poddisruptionbudgets", group="policy/v1"), body)
        if status is not None:
            # Zero counts are kube's defaults: setting them would own them on fakeapi only.
            self.setup("PATCH", self.path("poddisruptionbudgets", name, "status", group="policy/v1"),
                       {"status": {key: value for key, value in {"observedGeneration": 1, **status}.items() if value}},
                       content_type=MERGE)


@pytest.fixture
def servers(pair: Pair, request: pytest.FixtureRequest) -> Iterator[Servers]:
    start = len(pair.outcomes)
    yield Servers(pair, "sub-" + request.node.name.removeprefix("test_").replace("_", "-"))
    check(pair, start)


# ----------------------------------------------------------------------------- discovery

_OWN_SUBRESOURCES = ("binding", "eviction", "ephemeralcontainers", "resize", "status", "token")


def _own_entries(group_version: str) -> Callable[[Json, bool], Json]:
    """A resource list cut to what this module covers: the create-only resources, and pods' and
    service accounts' entries with the subresources fakeapi serves (kube's connect
    subresources — exec, attach, log, proxy, portforward — need a kubelet)."""
    def view(body: Json, _is_fake: bool) -> Json:
        kept = []
        for entry in body.get("resources", ()):
            name = entry["name"]
            base, _, sub = name.partition("/")
            if entry["verbs"] == ["create"] or base in ("pods", "serviceaccounts") and (not sub or sub in _OWN_SUBRESOURCES):
                kept.append(entry)
        return {"groupVersion": body.get("groupVersion"), "resources": kept}
    return view


def test_discovery(servers: Servers) -> None:
    for group_version, path in (("v1", "/api/v1"), ("authorization.k8s.io/v1", "/apis/authorization.k8s.io/v1"),
                                ("authentication.k8s.io/v1", "/apis/authentication.k8s.io/v1")):
        servers.send(f"discovery-{group_version}", "APIResourceList", "get", "GET", path, rewrite=_own_entries(group_version))

    def groups(body: Json, _is_fake: bool) -> Json:
        return [group for group in body["groups"] if group["name"] in ("authentication.k8s.io", "authorization.k8s.io")]
    servers.send("discovery-groups", "APIGroupList", "get", "GET", "/apis", rewrite=groups)


#: kube's connect subresources, which need a kubelet (or a service's pod) behind them: fakeapi
#: does not serve them, so it does not list them.
_CONNECT_SUBRESOURCES = ("attach", "exec", "log", "portforward", "proxy")


def _subresource_entries(body: Json, _is_fake: bool) -> Json:
    """A resource list's subresource entries, but kube's connect subresources, by name: kube lists
    a custom group's resources in the order its discovery controller meets the CRDs (its informer's,
    a map's), which no client may rely on."""
    return sorted((entry for entry in body.get("resources", ())
                   if "/" in entry["name"] and entry["name"].partition("/")[2] not in _CONNECT_SUBRESOURCES),
                  key=lambda entry: entry["name"])


def test_discovery_lists_every_served_subresource(servers: Servers) -> None:
    """Every group version's subresources as kube lists them: a client looks one up before it
    uses it (the Certificates API conformance spec expects ``certificatesigningrequests/approval``
    in the list before it approves)."""
    servers.send("discovery-subresources", "APIResourceList", "v1", "GET", "/api/v1", rewrite=_subresource_entries)
    # Those both servers list: a custom group another test deleted may linger in kube's (its
    # crdregistration controller removes the APIServices after the CRD).
    fake, real = ({version["groupVersion"] for group in client.get("/apis").json()["groups"]
                   for version in group["versions"]} for client in (servers.pair.fake, servers.pair.real))
    for group_version in sorted(fake & real):
        servers.send("discovery-subresources", "APIResourceList", group_version, "GET", f"/apis/{group_version}",
                     rewrite=_subresource_entries)


# ----------------------------------------------------------------------------- binding

def _binding(name: str, node: str = "node-a", **metadata: Any) -> Json:
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, **metadata},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}}


def test_binding(servers: Servers) -> None:
    s = servers
    s.setup("POST", "/api/v1/nodes", {"metadata": {"name": "zoned-node", "labels": {
        "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1", "other": "x"}}}, allow=(409,))
    s.pod("p1")
    # The scheduler's own condition, which the binding replaces.
    s.setup("PATCH", s.path("pods", "p1", "status"), {"status": {"nominatedNodeName": "zoned-node", "conditions": [{
        "type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/0 nodes"}]}},
        content_type=MERGE)
    s.send("binding", "Binding", "create", "POST", s.path("pods", "p1", "binding"),
           _binding("p1", "zoned-node", labels={"from": "binding"}, annotations={"a": "b"}))
    s.send("binding", "Pod", "get-bound", "GET", s.path("pods", "p1"), rewrite=pod_view)
    s.send("binding", "Binding", "create-again", "POST", s.path("pods", "p1", "binding"), _binding("p1", "node-b"))
    s.send("binding", "Binding", "create-missing-pod", "POST", s.path("pods", "nope", "binding"), _binding("nope"))
    s.send("binding", "Binding", "create-name-mismatch", "POST", s.path("pods", "p1", "binding"), _binding("other"))
    for case, target in (("no-name", {}), ("bad-kind", {"kind": "Pod", "name": "x"}), ("both", {"kind": "Pod"})):
        s.send(f"binding-{case}", "Binding", "create-invalid", "POST", s.path("pods", "p1", "binding"),
               {"metadata": {"name": "p1"}, "target": target})
    s.send("binding", "Binding", "create-wrong-kind", "POST", s.path("pods", "p1", "binding"),
           {**_binding("p1"), "kind": "Pod"})
    s.send("binding", "Binding", "create-wrong-version", "POST", s.path("pods", "p1", "binding"),
           {**_binding("p1"), "apiVersion": "policy/v1"})
    s.send("binding", "Binding", "create-not-object", "POST", s.path("pods", "p1", "binding"), [])
    s.send("binding", "Binding", "create-other-namespace", "POST", s.path("pods", "p1", "binding"),
           _binding("p1", namespace="elsewhere"))
    for method in ("GET", "PUT", "DELETE"):
        s.send("binding", "Binding", f"{method.lower()}-not-allowed", method, s.path("pods", "p1", "binding"),
               None if method != "PUT" else _binding("p1"))

    s.pod("p2")
    s.send("binding", "Binding", "create-dry-run", "POST", s.path("pods", "p2", "binding") + "?dryRun=All", _binding("p2"))
    s.send("binding", "Pod", "get-after-dry-run", "GET", s.path("pods", "p2"), rewrite=pod_view)
    s.send("binding", "Binding", "create-uid-precondition", "POST", s.path("pods", "p2", "binding"),
           _binding("p2", uid="00000000-0000-0000-0000-000000000000"))
    s.send("binding", "Binding", "create-rv-precondition", "POST", s.path("pods", "p2", "binding"),
           _binding("p2", resourceVersion="1"))

    s.pod("gated", spec={"schedulingGates": [{"name": "example.com/wait"}]})
    s.send("binding", "Binding", "create-gated", "POST", s.path("pods", "gated", "binding"), _binding("gated"))

    s.pod("leaving", finalizers=["example.com/hold"])
    s.setup("DELETE", s.path("pods", "leaving"))
    s.send("binding", "Binding", "create-deleting", "POST", s.path("pods", "leaving", "binding"), _binding("leaving"))
    s.setup("PATCH", s.path("pods", "leaving"), {"metadata": {"finalizers": None}}, content_type=MERGE)

    # The deprecated collection: the binding names its pod.
    s.pod("p3")
    s.send("bindings", "Binding", "create", "POST", s.path("bindings"), _binding("p3", annotations={"via": "bindings"}))
    s.send("bindings", "Pod", "get-bound", "GET", s.path("pods", "p3"), rewrite=pod_view)
    s.send("bindings", "Binding", "create-nameless", "POST", s.path("bindings"), {"target": {"name": "node-a"}})
    s.send("bindings", "Binding", "list-not-allowed", "GET", s.path("bindings"))
    s.send("bindings", "Binding", "get-not-found", "GET", s.path("bindings", "p3"))


# ----------------------------------------------------------------------------- eviction

def _eviction(name: str, api_version: str = "policy/v1", **fields: Any) -> Json:
    return {"apiVersion": api_version, "kind": "Eviction", "metadata": {"name": name}, **fields}


def test_eviction_without_budget(servers: Servers) -> None:
    s = servers
    s.pod("running", phase="Running", ready=True)
    s.send("evict-no-budget", "Eviction", "create", "POST", s.path("pods", "running", "eviction"), _eviction("running"))
    s.send("evict-no-budget", "Pod", "get-evicted", "GET", s.path("pods", "running"), rewrite=pod_view)
    # A pod that stays (a finalizer holds it) shows the condition the eviction set.
    s.pod("held", phase="Running", ready=True, finalizers=["example.com/hold"])
    s.send("evict-held", "Eviction", "create", "POST", s.path("pods", "held", "eviction"),
           _eviction("held", deleteOptions={"gracePeriodSeconds": 5}))
    s.send("evict-held", "Pod", "get-evicted", "GET", s.path("pods", "held"), rewrite=pod_view)
    s.send("evict-held", "Eviction", "create-again", "POST", s.path("pods", "held", "eviction"), _eviction("held"))
    s.setup("PATCH", s.path("pods", "held"), {"metadata": {"finalizers": None}}, content_type=MERGE)

    s.send("evict", "Eviction", "create-missing-pod", "POST", s.path("pods", "nope", "eviction"), _eviction("nope"))
    s.send("evict", "Eviction", "create-name-mismatch", "POST", s.path("pods", "nope", "eviction"), _eviction("other"))
    s.pod("kept", phase="Running", ready=True)
    s.send("evict", "Eviction", "create-v1beta1", "POST", s.path("pods", "kept", "eviction") + "?dryRun=All",
           _eviction("kept", "policy/v1beta1"))
    s.send("evict", "Eviction", "create-wrong-version", "POST", s.path("pods", "kept", "eviction"), _eviction("kept", "v1"))
    s.send("evict", "Eviction", "create-bare", "POST", s.path("pods", "kept", "eviction") + "?dryRun=All",
           {"metadata": {"name": "kept"}})
    s.send("evict", "Eviction", "create-store-read-option", "POST", s.path("pods", "kept", "eviction"),
           _eviction("kept", deleteOptions={"ignoreStoreReadErrorWithClusterBreakingPotential": True}))
    s.send("evict", "Eviction", "create-dry-run-mismatch", "POST", s.path("pods", "kept", "eviction") + "?dryRun=All",
           _eviction("kept", deleteOptions={"dryRun": ["Other"]}))
    s.send("evict", "Eviction", "create-uid-precondition", "POST", s.path("pods", "kept", "eviction"),
           _eviction("kept", deleteOptions={"preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}}))
    s.send("evict", "Pod", "get-kept", "GET", s.path("pods", "kept"), rewrite=pod_view)
    s.send("evict", "Eviction", "get-not-allowed", "GET", s.path("pods", "kept", "eviction"))


def test_eviction_with_budget(servers: Servers) -> None:
    s = servers
    app = {"matchLabels": {"app": "web"}}
    s.budget("web", app)
    for name in ("web-1", "web-2", "web-3"):
        s.pod(name, labels={"app": "web"}, phase="Running", ready=True)
    budget = s.path("poddisruptionbudgets", "web", group="policy/v1")
    # A budget the disruption controller has not looked at yet.
    s.send("evict-budget", "Eviction", "create-unobserved", "POST", s.path("pods", "web-1", "eviction"), _eviction("web-1"))
    s.setup("PATCH", budget + "/status", {"status": {"observedGeneration": 1, "currentHealthy": 3, "desiredHealthy": 3,
                                                     "expectedPods": 3}}, content_type=MERGE)
    s.send("evict-budget", "Eviction", "create-exhausted", "POST", s.path("pods", "web-1", "eviction"), _eviction("web-1"))
    s.setup("PATCH", budget + "/status", {"status": {"currentHealthy": 3, "desiredHealthy": 1, "conditions": [{
        "type": "DisruptionAllowed", "status": "False", "reason": "SyncFailed", "message": "boom",
        "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}, content_type=MERGE)
    s.send("evict-budget", "Eviction", "create-sync-failed", "POST", s.path("pods", "web-1", "eviction"), _eviction("web-1"))
    s.setup("PATCH", budget + "/status", {"status": {"disruptionsAllowed": 2, "conditions": None}}, content_type=MERGE)
    s.send("evict-budget", "Eviction", "create-dry-run", "POST", s.path("pods", "web-1", "eviction") + "?dryRun=All",
           _eviction("web-1"))
    s.send("evict-budget", "PodDisruptionBudget", "get-after-dry-run", "GET", budget, rewrite=budget_view)
    s.send("evict-budget", "Eviction", "create", "POST", s.path("pods", "web-1", "eviction"), _eviction("web-1"))
    s.send("evict-budget", "PodDisruptionBudget", "get-spent-one", "GET", budget, rewrite=budget_view)
    s.send("evict-budget", "Pod", "get-evicted", "GET", s.path("pods", "web-1"), rewrite=pod_view)
    s.send("evict-budget", "Eviction", "create-last", "POST", s.path("pods", "web-2", "eviction"), _eviction("web-2"))
    s.send("evict-budget", "PodDisruptionBudget", "get-spent-all", "GET", budget, rewrite=budget_view)
    s.send("evict-budget", "Eviction", "create-none-left", "POST", s.path("pods", "web-3", "eviction"), _eviction("web-3"))


def test_eviction_unhealthy_and_many_budgets(servers: Servers) -> None:
    s = servers
    # An unready pod under a budget that has its healthy pods is deleted without spending it.
    s.budget("db", {"matchLabels": {"app": "db"}}, {"disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2})
    s.pod("db-unready", labels={"app": "db"}, phase="Running", ready=False)
    s.send("evict-unready", "Eviction", "create", "POST", s.path("pods", "db-unready", "eviction"), _eviction("db-unready"))
    s.send("evict-unready", "PodDisruptionBudget", "get-unspent", "GET",
           s.path("poddisruptionbudgets", "db", group="policy/v1"), rewrite=budget_view)
    # AlwaysAllow lets unready pods go whatever the budget says.
    s.budget("cache", {"matchLabels": {"app": "cache"}}, {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 2},
             unhealthyPodEvictionPolicy="AlwaysAllow")
    s.pod("cache-unready", labels={"app": "cache"}, phase="Running", ready=False)
    s.send("evict-always-allow", "Eviction", "create", "POST", s.path("pods", "cache-unready", "eviction"),
           _eviction("cache-unready"))
    s.pod("cache-ready", labels={"app": "cache"}, phase="Running", ready=True)
    s.send("evict-always-allow", "Eviction", "create-ready", "POST", s.path("pods", "cache-ready", "eviction"),
           _eviction("cache-ready"))
    # A Pending pod has not started: nothing to disrupt.
    s.pod("cache-pending", labels={"app": "cache"})
    s.send("evict-pending", "Eviction", "create", "POST", s.path("pods", "cache-pending", "eviction"),
           _eviction("cache-pending"))
    s.send("evict-pending", "Pod", "get-evicted", "GET", s.path("pods", "cache-pending"), rewrite=pod_view)
    # Two budgets over one pod: a failure Status, sent with 201.
    s.budget("all", {}, {"disruptionsAllowed": 5})
    s.pod("shared", labels={"app": "db"}, phase="Running", ready=True)
    s.send("evict-two-budgets", "Eviction", "create", "POST", s.path("pods", "shared", "eviction"), _eviction("shared"))
    # A budget without a selector covers no pod.
    s.setup("DELETE", s.path("poddisruptionbudgets", "all", group="policy/v1"))
    s.setup("DELETE", s.path("poddisruptionbudgets", "db", group="policy/v1"))
    s.budget("nothing", None, {"disruptionsAllowed": 0})
    s.send("evict-unselected", "Eviction", "create", "POST", s.path("pods", "shared", "eviction"), _eviction("shared"))


# ----------------------------------------------------------------------------- tokens

def _token_request(**spec: Any) -> Json:
    return {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}


def test_service_account_token(servers: Servers) -> None:
    s = servers
    s.setup("POST", s.path("serviceaccounts"), {"metadata": {"name": "robot"}})
    token = s.path("serviceaccounts", "robot", "token")
    s.send("token", "TokenRequest", "create", "POST", token, _token_request())
    s.send("token", "TokenRequest", "create-audiences", "POST", token,
           _token_request(audiences=["vault", "other"], expirationSeconds=7200))
    s.send("token", "TokenRequest", "create-empty-body", "POST", token, {})
    for seconds in (599, (1 << 32) + 1):
        s.send("token", "TokenRequest", f"create-expiration-{seconds}", "POST", token, _token_request(expirationSeconds=seconds))
    s.send("token", "TokenRequest", "create-name-mismatch", "POST", token, {**_token_request(), "metadata": {"name": "x"}})
    s.send("token", "TokenRequest", "create-uid-mismatch", "POST", token,
           {**_token_request(), "metadata": {"uid": "00000000-0000-0000-0000-000000000000"}})
    s.send("token", "TokenRequest", "create-missing-account", "POST", s.path("serviceaccounts", "nobody", "token"),
           _token_request())
    s.send("token", "TokenRequest", "get-not-allowed", "GET", token)


def test_bound_service_account_token(servers: Servers) -> None:
    s = servers
    s.setup("POST", s.path("serviceaccounts"), {"metadata": {"name": "robot"}})
    s.setup("POST", "/api/v1/nodes", {"metadata": {"name": "token-node"}}, allow=(409,))
    s.pod("runner", spec={"serviceAccountName": "robot", "nodeName": "token-node"})
    s.pod("lost", spec={"serviceAccountName": "robot", "nodeName": "gone-node"})
    s.pod("stranger", spec={"serviceAccountName": "default"})
    s.setup("POST", s.path("secrets"), {"metadata": {"name": "bound"}})
    token = s.path("serviceaccounts", "robot", "token")
    for case, ref in (("pod", {"kind": "Pod", "apiVersion": "v1", "name": "runner"}),
                      ("pod-gone-node", {"kind": "Pod", "apiVersion": "v1", "name": "lost"}),
                      ("secret", {"kind": "Secret", "apiVersion": "v1", "name": "bound"}),
                      ("node", {"kind": "Node", "apiVersion": "v1", "name": "token-node"}),
                      ("other-account", {"kind": "Pod", "apiVersion": "v1", "name": "stranger"}),
                      ("missing-pod", {"kind": "Pod", "apiVersion": "v1", "name": "nope"}),
                      ("configmap", {"kind": "ConfigMap", "apiVersion": "v1", "name": "x"}),
                      ("uid-mismatch", {"kind": "Secret", "apiVersion": "v1", "name": "bound",
                                        "uid": "00000000-0000-0000-0000-000000000000"})):
        s.send(f"token-bound-{case}", "TokenRequest", "create", "POST", token, _token_request(boundObjectRef=ref))
    # What kubelet asks for: an hour and 7 s, extended to a year that warns after the hour.
    s.send("token-bound-kubelet", "TokenRequest", "create", "POST", token, _token_request(
        expirationSeconds=3607, boundObjectRef={"kind": "Pod", "apiVersion": "v1", "name": "runner"}))


def _issued(client: Any, path: str, body: Json) -> str:
    response = client.post(path, json=body)
    assert response.status_code == 201, response.text
    return response.json()["status"]["token"]


def test_token_review(servers: Servers, real_server: Any) -> None:
    s = servers
    s.setup("POST", s.path("serviceaccounts"), {"metadata": {"name": "robot"}})
    s.pod("runner", spec={"serviceAccountName": "robot"})
    path = s.path("serviceaccounts", "robot", "token")
    reviews = "/apis/authentication.k8s.io/v1/tokenreviews"

    def review(case: str, tokens: tuple[str, str], rewrite: Callable[[Json, bool], Json] = scrubbed, **spec: Any) -> None:
        bodies = tuple(json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                                   "spec": {"token": token, **spec}}).encode() for token in tokens)
        s.pair.send(case, "TokenReview", "create", "POST", reviews, body=bodies, rewrite=rewrite)  # type: ignore[arg-type]

    plain = (_issued(s.pair.fake, path, _token_request()), _issued(s.pair.real, path, _token_request()))
    review("token-review-service-account", plain)
    review("token-review-other-audience", plain, audiences=["vault"])
    bound = tuple(_issued(client, path, _token_request(audiences=["vault"], boundObjectRef={
        "kind": "Pod", "apiVersion": "v1", "name": "runner"})) for client in (s.pair.fake, s.pair.real))
    review("token-review-bound", bound, audiences=["vault"])  # type: ignore[arg-type]
    review("token-review-tampered", (plain[0][:-4] + "AAAA", plain[1][:-4] + "AAAA"))
    review("token-review-static", (ADMIN_TOKEN, real_server.token), rewrite=_without_token)
    review("token-review-unknown", ("not-a-token", "not-a-token"))
    s.send("token-review-empty", "TokenReview", "create", "POST", reviews, {"spec": {}})
    # A success is remembered 10 s: a token reviewed before its pod went still authenticates.
    bound_again = tuple(_issued(client, path, _token_request(boundObjectRef={"kind": "Pod", "apiVersion": "v1",
                                                                             "name": "runner"}))
                        for client in (s.pair.fake, s.pair.real))
    s.setup("DELETE", s.path("pods", "runner") + "?gracePeriodSeconds=0")
    review("token-review-cached", bound, audiences=["vault"])  # type: ignore[arg-type]
    # One never reviewed is checked afresh: the pod is gone (once kube's informer has seen it).
    eventually(lambda: _review_error(s.pair.real, reviews, bound_again[1]), "kube-apiserver sees the pod gone")
    review("token-review-pod-gone", bound_again)  # type: ignore[arg-type]


def _without_token(answer: Json, _is_fake: bool) -> Json:
    """A review of each server's own static token: the tokens differ, not what they are."""
    return scrub({**answer, "spec": {**answer.get("spec", {}), "token": "<static token>"}})


def _review_error(client: Any, path: str, token: str) -> str:
    response = client.post(path, json={"spec": {"token": token}})
    assert response.status_code == 201, response.text
    return response.json()["status"].get("error", "")


def test_openid_discovery(servers: Servers) -> None:
    s = servers
    s.send("openid", "OpenIDConfiguration", "get", "GET", "/.well-known/openid-configuration")

    def key_shape(body: Json, _is_fake: bool) -> Json:
        return [{name: "<value>" if name in ("kid", "n") else value for name, value in key.items()} for key in body["keys"]]
    s.send("openid", "JSONWebKeySet", "get", "GET", "/openid/v1/jwks", rewrite=key_shape)
    # The keys verify the tokens (on fakeapi; kube's are the oracle of the format only).
    s.setup("POST", s.path("serviceaccounts"), {"metadata": {"name": "robot"}})
    token = _issued(s.pair.fake, s.path("serviceaccounts", "robot", "token"), _token_request())
    keys = s.pair.fake.get("/openid/v1/jwks").json()["keys"]
    header, payload, signature = token.split(".")
    (key,) = [k for k in keys if k["kid"] == json.loads(_unb64(header))["kid"]]
    public = rsa.RSAPublicNumbers(int.from_bytes(_unb64(key["e"]), "big"), int.from_bytes(_unb64(key["n"]), "big")).public_key()
    public.verify(_unb64(signature), f"{header}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())


# ----------------------------------------------------------------------------- reviews

_AUTHORIZATION = "/apis/authorization.k8s.io/v1"


def _review(kind: str, **spec: Any) -> Json:
    return {"apiVersion": "authorization.k8s.io/v1", "kind": kind, "spec": spec}


def test_access_reviews(servers: Servers) -> None:
    s = servers
    ssar = f"{_AUTHORIZATION}/selfsubjectaccessreviews"
    pods = {"namespace": s.namespace, "verb": "get", "resource": "pods"}
    s.send("ssar", "SelfSubjectAccessReview", "create", "POST", ssar, _review("SelfSubjectAccessReview", resourceAttributes=pods))
    s.send("ssar", "SelfSubjectAccessReview", "create-non-resource", "POST", ssar,
           _review("SelfSubjectAccessReview", nonResourceAttributes={"path": "/healthz", "verb": "get"}))
    s.send("ssar", "SelfSubjectAccessReview", "create-empty", "POST", ssar, _review("SelfSubjectAccessReview"))
    s.send("ssar", "SelfSubjectAccessReview", "create-both", "POST", ssar, {
        **_review("SelfSubjectAccessReview", resourceAttributes=pods, nonResourceAttributes={"path": "/x", "verb": "get"}),
        "metadata": {"name": "named", "labels": {"b": "1", "a": "2"}}})
    s.send("ssar", "SelfSubjectAccessReview", "create-system-fields", "POST", ssar, {
        **_review("SelfSubjectAccessReview", resourceAttributes=pods),
        "metadata": {"uid": "00000000-0000-0000-0000-000000000000", "creationTimestamp": "2026-01-01T00:00:00Z"}})
    selectors = {**pods, "verb": "list",
                 "labelSelector": {"requirements": [{"key": "a", "operator": "In", "values": ["1"]},
                                                    {"key": "b", "operator": "Bogus"}]},
                 "fieldSelector": {"rawSelector": "spec.nodeName"}}
    s.send("ssar", "SelfSubjectAccessReview", "create-selectors", "POST", ssar,
           _review("SelfSubjectAccessReview", resourceAttributes=selectors))
    s.send("ssar", "SelfSubjectAccessReview", "create-bad-selectors", "POST", ssar, _review(
        "SelfSubjectAccessReview", resourceAttributes={**pods, "labelSelector": {}, "fieldSelector": {
            "rawSelector": "a=b", "requirements": [{"operator": "In", "values": []}]}}))
    s.send("ssar", "SelfSubjectAccessReview", "create-bad-label-requirement", "POST", ssar, _review(
        "SelfSubjectAccessReview", resourceAttributes={**pods, "labelSelector": {"requirements": [
            {"key": "-bad-", "operator": "Exists", "values": ["x"]}, {"key": "k", "operator": "In", "values": ["a b"]}]}}))
    s.send("ssar", "SelfSubjectAccessReview", "list-not-allowed", "GET", ssar)
    s.send("ssar", "SelfSubjectAccessReview", "create-namespaced-path", "POST",
           f"{_AUTHORIZATION}/namespaces/{s.namespace}/selfsubjectaccessreviews", _review("SelfSubjectAccessReview"))

    sar = f"{_AUTHORIZATION}/subjectaccessreviews"
    s.send("sar", "SubjectAccessReview", "create", "POST", sar,
           _review("SubjectAccessReview", user="jane", groups=["devs"], resourceAttributes=pods))
    s.send("sar", "SubjectAccessReview", "create-no-subject", "POST", sar, _review("SubjectAccessReview", resourceAttributes=pods))
    s.send("sar", "SubjectAccessReview", "create-namespaced-body", "POST", sar,
           {**_review("SubjectAccessReview", user="jane", resourceAttributes=pods), "metadata": {"namespace": "x"}})

    lsar = f"{_AUTHORIZATION}/namespaces/{s.namespace}/localsubjectaccessreviews"
    s.send("lsar", "LocalSubjectAccessReview", "create", "POST", lsar,
           _review("LocalSubjectAccessReview", user="jane", resourceAttributes=pods))
    s.send("lsar", "LocalSubjectAccessReview", "create-other-namespace", "POST", lsar,
           _review("LocalSubjectAccessReview", user="jane", resourceAttributes={**pods, "namespace": "other"}))
    s.send("lsar", "LocalSubjectAccessReview", "create-non-resource", "POST", lsar,
           _review("LocalSubjectAccessReview", user="jane", nonResourceAttributes={"path": "/x", "verb": "get"}))
    s.send("lsar", "LocalSubjectAccessReview", "create-body-namespace", "POST", lsar,
           {**_review("LocalSubjectAccessReview", user="jane", resourceAttributes=pods), "metadata": {"namespace": "other"}})
    s.send("lsar", "LocalSubjectAccessReview", "create-cluster-path", "POST", f"{_AUTHORIZATION}/localsubjectaccessreviews",
           _review("LocalSubjectAccessReview", user="jane", resourceAttributes=pods))

    ssrr = f"{_AUTHORIZATION}/selfsubjectrulesreviews"
    s.send("ssrr", "SelfSubjectRulesReview", "create", "POST", ssrr, _review("SelfSubjectRulesReview", namespace=s.namespace))
    s.send("ssrr", "SelfSubjectRulesReview", "create-no-namespace", "POST", ssrr, _review("SelfSubjectRulesReview"))
    s.send("ssrr", "SelfSubjectRulesReview", "create-wrong-kind", "POST", ssrr, _review("SelfSubjectAccessReview"))


def test_self_subject_review(servers: Servers) -> None:
    s = servers
    ssr = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    s.send("ssr", "SelfSubjectReview", "create", "POST", ssr, body)
    s.send("ssr", "SelfSubjectReview", "create-with-status", "POST", ssr,
           {**body, "metadata": {"name": "x"}, "status": {"userInfo": {"username": "mallory"}}})
    for case, headers in (
            ("user", {"Impersonate-User": "jane"}),
            ("user-groups-extra", {"Impersonate-User": "jane", "Impersonate-Group": "devs", "Impersonate-Uid": "u-1",
                                   "Impersonate-Extra-Scopes": "view", "Impersonate-Extra-Example.com%2fteam": "blue"}),
            ("service-account", {"Impersonate-User": f"system:serviceaccount:{s.namespace}:robot"}),
            ("service-account-with-groups", {"Impersonate-User": f"system:serviceaccount:{s.namespace}:robot",
                                             "Impersonate-Group": "devs"}),
            ("not-a-service-account", {"Impersonate-User": "system:serviceaccount:Bad_Namespace:robot"}),
            ("anonymous", {"Impersonate-User": "system:anonymous"}),
            ("authenticated-group", {"Impersonate-User": "jane", "Impersonate-Group": "system:authenticated"}),
            ("group-without-user", {"Impersonate-Group": "devs"}),
            ("uid-without-user", {"Impersonate-Uid": "u-1", "Impersonate-Extra-Scopes": "view"})):
        s.send(f"ssr-impersonate-{case}", "SelfSubjectReview", "create", "POST", ssr, body, headers=headers)
    # A service-account token the server issued identifies its service account.
    s.setup("POST", s.path("serviceaccounts"), {"metadata": {"name": "robot"}})
    path = s.path("serviceaccounts", "robot", "token")
    tokens = tuple(_issued(client, path, _token_request()) for client in (s.pair.fake, s.pair.real))
    for client, token in zip((s.pair.fake, s.pair.real), tokens, strict=True):
        response = client.post(ssr, json=body, headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 201, response.text
    fake_user, real_user = (client.post(ssr, json=body, headers={"Authorization": f"Bearer {token}"}).json()["status"]
                            for client, token in zip((s.pair.fake, s.pair.real), tokens, strict=True))
    assert scrub(fake_user) == scrub(real_user)


# ----------------------------------------------------------------------------- pod spec subresources

def spec_view(pod: Json, _is_fake: bool = False) -> Json:
    """What the pod's spec subresources change: containers' resources, ephemeral containers,
    generation, who wrote what (the rest of a pod is its defaults' business)."""
    if pod.get("kind") != "Pod":
        return scrub(pod)
    meta, spec = pod["metadata"], pod["spec"]
    return scrub({
        "generation": meta.get("generation"), "labels": meta.get("labels"), "resourceVersion": meta["resourceVersion"],
        "managers": sorted(((m["manager"], m.get("subresource"), m["fieldsV1"]) for m in meta.get("managedFields") or ()
                            if m.get("subresource")), key=lambda manager: (manager[0], manager[1])),
        # An empty resources is how kube's Go struct writes none (the encoding's business).
        "containers": [{key: c.get(key) or None for key in ("name", "image", "resources", "resizePolicy")}
                       for c in spec["containers"]],
        "ephemeralContainers": [{key: c.get(key) for key in ("name", "image", "targetContainerName")}
                                for c in spec.get("ephemeralContainers") or ()],
    })


STRATEGIC = "application/strategic-merge-patch+json"


def test_pod_resize(servers: Servers) -> None:
    s = servers
    # No memory limit: kube would default a removed memory request to it.
    resources = {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "200m"}}
    s.pod("sized", spec={"containers": [{"name": "c", "image": "nginx", "resources": resources}]})
    resize = s.path("pods", "sized", "resize")
    s.send("resize", "Pod", "get", "GET", resize, rewrite=spec_view)
    s.send("resize", "Pod", "patch", "PATCH", resize, {"metadata": {"labels": {"ignored": "yes"}}, "spec": {"containers": [
        {"name": "c", "image": "ignored:latest", "resources": {"requests": {"cpu": "150m"}}}]}},
        content_type=STRATEGIC, rewrite=spec_view)
    s.send("resize", "Pod", "patch-remove-request", "PATCH", resize, [
        {"op": "remove", "path": "/spec/containers/0/resources/requests/memory"}],
        content_type="application/json-patch+json", rewrite=spec_view)
    s.send("resize", "Pod", "patch-other-resource", "PATCH", resize, {"spec": {"containers": [
        {"name": "c", "resources": {"limits": {"ephemeral-storage": "1Gi"}}}]}}, content_type=STRATEGIC, rewrite=spec_view)
    s.send("resize", "Pod", "patch-add-container", "PATCH", resize, {"spec": {"containers": [
        {"name": "d", "image": "nginx"}]}}, content_type=STRATEGIC, rewrite=spec_view)
    s.send("resize", "Pod", "get-after", "GET", s.path("pods", "sized"), rewrite=spec_view)
    s.send("resize", "Pod", "post-not-allowed", "POST", resize, {})


def test_pod_ephemeral_containers(servers: Servers) -> None:
    s = servers
    s.pod("debugged")
    path = s.path("pods", "debugged", "ephemeralcontainers")
    s.send("ephemeral", "Pod", "get", "GET", path, rewrite=spec_view)
    debugger = {"name": "debugger", "image": "busybox", "targetContainerName": "c", "stdin": True, "tty": True,
                "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}
    s.send("ephemeral", "Pod", "patch", "PATCH", path, {"spec": {"ephemeralContainers": [debugger],
                                                                 "containers": [{"name": "c", "image": "ignored"}]}},
           content_type=STRATEGIC, rewrite=spec_view)
    s.send("ephemeral", "Pod", "patch-remove", "PATCH", path, {"spec": {"ephemeralContainers": None}},
           content_type=MERGE, rewrite=spec_view)
    s.send("ephemeral", "Pod", "get-after", "GET", s.path("pods", "debugged"), rewrite=spec_view)


def test_pod_status(servers: Servers) -> None:
    s = servers
    s.pod("reported")
    status = s.path("pods", "reported", "status")
    s.send("pod-status", "Pod", "get", "GET", status, rewrite=pod_view)
    s.send("pod-status", "Pod", "patch", "PATCH", status, {"status": {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}},
        content_type=STRATEGIC, rewrite=pod_view)
    # What the pod's status strategy keeps of the rest of the request: its labels, not its spec.
    s.send("pod-status", "Pod", "patch-metadata", "PATCH", status, {"metadata": {"labels": {"via": "status"}},
                                                                    "spec": {"nodeName": "ignored"}},
           content_type=MERGE, rewrite=pod_view)
    s.send("pod-status", "Pod", "post-not-allowed", "POST", status, {})
    # A PUT of the status is decoded as the pod's own PUT: fieldValidation reaches its fields.
    unknown = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "reported"},
               "status": {"phase": "Running", "invalidStatusField": "x"}}
    s.send("pod-status", "Pod", "put-unknown-strict", "PUT", status + "?fieldValidation=Strict", unknown)


def test_namespace_lifecycle(servers: Servers) -> None:
    """Creates in a namespace that does not exist: refused, but for the local access review
    (which must not tell whether a namespace exists)."""
    s = servers
    missing = "/api/v1/namespaces/sub-no-such-namespace"
    s.send("lifecycle", "Binding", "create", "POST", f"{missing}/pods/p/binding", _binding("p"))
    s.send("lifecycle", "Binding", "create-legacy", "POST", f"{missing}/bindings", _binding("p"))
    s.send("lifecycle", "Eviction", "create", "POST", f"{missing}/pods/p/eviction", _eviction("p"))
    s.send("lifecycle", "TokenRequest", "create", "POST", f"{missing}/serviceaccounts/robot/token", _token_request())
    s.send("lifecycle", "LocalSubjectAccessReview", "create", "POST",
           f"{_AUTHORIZATION}/namespaces/sub-no-such-namespace/localsubjectaccessreviews",
           _review("LocalSubjectAccessReview", user="jane", resourceAttributes={"namespace": "sub-no-such-namespace"}))


def test_namespace_terminating(servers: Servers) -> None:
    s = servers
    s.setup("POST", s.path("serviceaccounts"), {"metadata": {"name": "robot"}})
    s.pod("p")
    # Without a namespace controller on either server, a deleted namespace stays Terminating.
    s.setup("DELETE", f"/api/v1/namespaces/{s.namespace}")
    s.send("terminating", "TokenRequest", "create", "POST", s.path("serviceaccounts", "robot", "token"), _token_request())
    s.send("terminating", "Binding", "create", "POST", s.path("pods", "p", "binding"), _binding("p"))
    s.send("terminating", "Pod", "create", "POST", s.path("pods"), {"metadata": {"name": "late"}, "spec": {
        "containers": [{"name": "c", "image": "nginx"}]}})
