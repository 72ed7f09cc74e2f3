"""An aggregated API server that authenticates fakeapi as kube's aggregated servers do: ``fakeapi
serve --tls`` publishes its front proxy's CA in ``kube-system/extension-apiserver-authentication``
(with kube-apiserver's keys, as kubeadm's flags make it write them), the server reads it and
accepts only clients whose certificate that CA signed; the APIService verifies the server with its
``caBundle`` for ``<service>.<namespace>.svc`` (the Service an ExternalName one naming 127.0.0.1:
an EndpointSlice may not name a loopback address). The availability check and the proxied requests both present the
front proxy's certificate (``front-proxy-client``); the backend's discovery reaches fakeapi's
aggregated discovery. The server runs RBAC: a user not allowed the verb on the aggregated
resource is refused by fakeapi, and the backend never hears of it. A slow answer costs only its
own request; a watch its client leaves is ended at the server too."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from aggregated_backend import GROUP, SLOW_SECONDS, VERSION, AggregatedBackend

from fakeapi.testing import ServerProcess
from fakeapi.testing.eventually import eventually

_NAMESPACE = "wardle"
_SERVICE = "api"
_AUTHENTICATION = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication"
_API_SERVICE = f"/apis/apiregistration.k8s.io/v1/apiservices/{VERSION}.{GROUP}"
_AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
#: A user of the token file, in the group devs, whom RBAC grants nothing until the test does.
_JANE_TOKEN = "jane-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir = tmp_path_factory.mktemp("fakeapi")
    (workdir / "tokens.csv").write_text(f'{_JANE_TOKEN},jane,jane-uid,"devs"\n')
    with ServerProcess(workdir, "--tls", "--authorization-mode", "RBAC", "--token", "admin-token",
                       "--token-file", str(workdir / "tokens.csv")) as srv:  # the kubeconfig's: the admin's
        yield srv


def test_the_front_proxy_is_published_as_kube_publishes_it(server: ServerProcess) -> None:
    config_map = server.http.get(_AUTHENTICATION).json()
    data = config_map["data"]
    # kube-apiserver's keys and values with kubeadm's --requestheader-* flags.
    assert {key: value for key, value in data.items() if not key.endswith("-file")} == {
        "requestheader-allowed-names": '["front-proxy-client"]',
        "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]',
        "requestheader-group-headers": '["X-Remote-Group"]',
        "requestheader-username-headers": '["X-Remote-User"]',
    }
    pki = Path(server.kubeconfig).parent / "fakeapi-pki"
    assert data["client-ca-file"] == (pki / "ca.crt").read_text()
    assert data["requestheader-client-ca-file"] == (pki / "front-proxy-ca.crt").read_text()
    [managed] = config_map["metadata"]["managedFields"]
    assert (managed["manager"], managed["operation"]) == ("kube-apiserver", "Update")
    assert sorted(managed["fieldsV1"]["f:data"]) == [".", *(f"f:{key}" for key in sorted(data))]


@pytest.fixture(scope="module")
def backend(server: ServerProcess) -> Iterator[AggregatedBackend]:
    http = server.http
    front_proxy_ca = http.get(_AUTHENTICATION).json()["data"]["requestheader-client-ca-file"]
    with AggregatedBackend(service_name=f"{_SERVICE}.{_NAMESPACE}.svc", client_ca_pem=front_proxy_ca) as backend:
        assert http.post("/api/v1/namespaces", json={"metadata": {"name": _NAMESPACE}}).status_code == 201
        assert http.post(f"/api/v1/namespaces/{_NAMESPACE}/services", json={"metadata": {"name": _SERVICE}, "spec": {
            "type": "ExternalName", "externalName": "127.0.0.1"}}).status_code == 201
        ca_bundle = base64.b64encode(backend.ca.certificate_pem).decode()
        assert http.post("/apis/apiregistration.k8s.io/v1/apiservices", json={
            "metadata": {"name": f"{VERSION}.{GROUP}"}, "spec": {
                "group": GROUP, "version": VERSION, "groupPriorityMinimum": 1000, "versionPriority": 15,
                "caBundle": ca_bundle, "service": {"namespace": _NAMESPACE, "name": _SERVICE, "port": backend.port}}}
        ).status_code == 201
        yield backend


def _available(http: httpx.Client) -> bool:
    conditions = (http.get(_API_SERVICE).json().get("status") or {}).get("conditions") or ()
    return any(c["type"] == "Available" and c["status"] == "True" for c in conditions)


def test_the_server_sees_fakeapi_as_its_front_proxy(server: ServerProcess, backend: AggregatedBackend) -> None:
    http = server.http
    eventually(lambda: _available(http), "the APIService Available: the check presented the front proxy's certificate")
    echo = http.get(f"/apis/{GROUP}/{VERSION}/namespaces/{_NAMESPACE}/flunders/one").json()["echo"]
    assert echo["client"] == "front-proxy-client"
    assert echo["headers"]["x-remote-user"] == ["admin"]

    def fetched() -> bool:
        document = http.get("/apis", headers={"Accept": _AGGREGATED}).json()
        group = next((g for g in document["items"] if g["metadata"]["name"] == GROUP), None)
        return group is not None and group["versions"][0].get("freshness") == "Current"

    eventually(fetched, "the backend's discovery in fakeapi's")


def test_a_slow_backend_costs_only_its_requests(server: ServerProcess, backend: AggregatedBackend) -> None:
    http = server.http
    eventually(lambda: _available(http), "the APIService Available")
    flunder = f"/apis/{GROUP}/{VERSION}/namespaces/{_NAMESPACE}/flunders/one"
    answers: list[httpx.Response] = []
    started = time.monotonic()
    slow = threading.Thread(target=lambda: answers.append(http.get(flunder, params={"slow": "true"})))
    slow.start()
    time.sleep(0.5)  # the slow request is at the backend
    for path in ("/api/v1/namespaces", flunder):
        before = time.monotonic()
        assert http.get(path).status_code == 200
        assert time.monotonic() - before < 1.0, path
    slow.join()
    # Not a discovery request: it waits for its answer, however long.
    assert answers[0].status_code == 200 and time.monotonic() - started >= SLOW_SECONDS


def test_a_watch_left_by_its_client_is_left_at_the_server(server: ServerProcess, backend: AggregatedBackend) -> None:
    http = server.http
    eventually(lambda: _available(http), "the APIService Available")
    backend.release.clear()
    flunders = f"/apis/{GROUP}/{VERSION}/namespaces/{_NAMESPACE}/flunders"
    with http.stream("GET", flunders, params={"watch": "true"}) as watch:
        assert watch.status_code == 200
        assert '"f1"' in next(watch.iter_lines())  # streamed while the server holds the rest
    assert backend.watch_cut.wait(10), "fakeapi kept the server's watch open"


def test_authorization_comes_before_the_proxy(server: ServerProcess, backend: AggregatedBackend) -> None:
    http = server.http
    eventually(lambda: _available(http), "the APIService Available")
    flunder = f"/apis/{GROUP}/{VERSION}/namespaces/{_NAMESPACE}/flunders/one"
    with httpx.Client(base_url=server.url, verify=server.verify,
                      headers={"Authorization": f"Bearer {_JANE_TOKEN}"}) as jane:
        asked = len(backend.requests)
        denied = jane.get(flunder)
        assert denied.status_code == 403 and denied.json()["message"] == (
            f'flunders.{GROUP} "one" is forbidden: User "jane" cannot get resource "flunders" in API group "{GROUP}" '
            f'in the namespace "{_NAMESPACE}"')
        assert all(path.partition("?")[0] != flunder for _method, path, _headers in backend.requests[asked:])
        assert http.post(f"/apis/rbac.authorization.k8s.io/v1/namespaces/{_NAMESPACE}/roles", json={
            "metadata": {"name": "flunder-reader"},
            "rules": [{"apiGroups": [GROUP], "resources": ["flunders"], "verbs": ["get"]}]}).status_code == 201
        assert http.post(f"/apis/rbac.authorization.k8s.io/v1/namespaces/{_NAMESPACE}/rolebindings", json={
            "metadata": {"name": "devs-read-flunders"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "flunder-reader"},
            "subjects": [{"kind": "Group", "name": "devs"}]}).status_code == 201
        allowed = eventually(lambda: (answer := jane.get(flunder)).status_code == 200 and answer,
                             "the binding in force")
        headers = allowed.json()["echo"]["headers"]
        assert (headers["x-remote-user"], headers["x-remote-uid"]) == (["jane"], ["jane-uid"])
        assert headers["x-remote-group"] == ["devs", "system:authenticated"]
