"""API aggregation against the real kube-apiserver: an aggregated API server started here
(``aggregated_backend``) behind an ExternalName Service naming 127.0.0.1 on both servers (kube
resolves a ClusterIP Service to its cluster IP, which leads nowhere on the host), its
APIService registered on both. Compared: get, list, create, a watch (streamed: its first event
arrives while the backend holds the stream open) through the proxy, what the backend received
(the X-Remote-* headers of the user, an impersonated one's groups and extras, the query as kube
re-encodes it, the body), ``/apis``, ``/apis/<group>``, the aggregated discovery document's
entries (fetched from the backend, or its legacy document when it has no aggregated one, or
Stale for an APIService that is not Available), kube's 503s for an APIService not Available and
for a backend gone, the request deadline, kubectl 1.35's ``get --raw`` and ``api-resources``
through both, the availability metrics, and the local APIServices of a CustomResourceDefinition's
group versions."""

from __future__ import annotations

import base64
import json
import re
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import yaml
from aggregated_backend import ANSWER_HEADERS, GROUP, VERSION, AggregatedBackend
from differ import FAKE_API_SERVERS, NAMESPACE, Outcome, Pair, differences

from fakeapi.cluster.control_plane import free_port, kubectl_binary
from fakeapi.registry.bootstrap import recorded_objects

_API_SERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
_SERVICE = "aggregated-backend"
_LEGACY_GROUP = f"legacy.{GROUP}"
_DOWN_GROUP = f"down.{GROUP}"
_FLUNDERS = f"/apis/{GROUP}/{VERSION}/namespaces/{NAMESPACE}/flunders"
_AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
#: Longer than kube's availability check, its first retries and a discovery fetch.
_TIMEOUT = 30.0


#: A second version of the backend's group, which its discovery does not list, preferred less
#: than VERSION by its versionPriority although kube's version order prefers it.
_OTHER_VERSION = "v1beta1"
#: (group, version) of every APIService the module registers.
_REGISTERED = ((GROUP, VERSION), (GROUP, _OTHER_VERSION), (_LEGACY_GROUP, VERSION), (_DOWN_GROUP, VERSION))


def _register(client: httpx.Client, group: str, port: int, priority: int, version: str = VERSION,
              version_priority: int = 15) -> None:
    body = {"metadata": {"name": f"{version}.{group}"}, "spec": {
        "group": group, "version": version, "groupPriorityMinimum": priority, "versionPriority": version_priority,
        "insecureSkipTLSVerify": True, "service": {"namespace": NAMESPACE, "name": _SERVICE, "port": port}}}
    response = client.post(_API_SERVICES, json=body)
    assert response.status_code == 201, response.text


def _available(client: httpx.Client, group: str, version: str = VERSION) -> str:
    status = client.get(f"{_API_SERVICES}/{version}.{group}").json().get("status") or {}
    return next((c["status"] for c in status.get("conditions") or () if c["type"] == "Available"), "")


def _aggregated_entries(client: httpx.Client) -> list[Any]:
    document = client.get("/apis", headers={"Accept": _AGGREGATED}).json()
    return [item for item in document["items"] if item["metadata"]["name"].endswith(GROUP)]


def _wait(condition: Any, what: str, timeout: float = _TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def backends(pair: Pair) -> Iterator[tuple[AggregatedBackend, AggregatedBackend]]:
    """The aggregated server (aggregated discovery), one of another group with only legacy
    discovery, and an APIService of a third group whose port nobody listens on; registered on
    both servers and, but that one, Available with their discovery fetched."""
    service = {"metadata": {"name": _SERVICE}, "spec": {"type": "ExternalName", "externalName": "127.0.0.1"}}
    with AggregatedBackend() as backend, AggregatedBackend(_LEGACY_GROUP, aggregated=False) as legacy:
        for client in (pair.fake, pair.real):
            assert client.post(f"/api/v1/namespaces/{NAMESPACE}/services", json=service).status_code in (201, 409)
        time.sleep(1)  # kube's availability controller reads Services from an informer
        for client in (pair.fake, pair.real):
            _register(client, GROUP, backend.port, 2000)
            _register(client, GROUP, backend.port, 2000, _OTHER_VERSION, 5)
            _register(client, _LEGACY_GROUP, legacy.port, 1500)
            _register(client, _DOWN_GROUP, free_port(), 1800)
        for client in (pair.fake, pair.real):
            _wait(lambda: [_available(client, group, version) for group, version in _REGISTERED]
                  == ["True", "True", "True", "False"], "the APIServices' conditions")
            _wait(lambda: sum(version.get("freshness") == "Current" for item in _aggregated_entries(client)
                              for version in item["versions"]) == 3, "the backends' discovery")
        yield backend, legacy
    for client in (pair.fake, pair.real):
        for group, version in _REGISTERED:
            client.delete(f"{_API_SERVICES}/{version}.{group}")
        client.delete(f"/api/v1/namespaces/{NAMESPACE}/services/{_SERVICE}")
    for client in (pair.fake, pair.real):  # later modules compare the whole discovery documents
        _wait(lambda: not _aggregated_entries(client), "the groups gone from discovery")


_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


#: Headers of random UUIDs: the request's audit ID (each server's own), kubectl's session.
_RANDOM_IDS = ("audit-id", "kubectl-session")


def _random_ids_masked(answer: Any, is_fake: bool) -> Any:
    """An echo's random IDs as whether each is a UUID."""
    headers = (answer.get("echo") or {}).get("headers") if isinstance(answer, dict) else None
    for name in _RANDOM_IDS:
        if headers and name in headers:
            headers[name] = [bool(_UUID.match(value)) for value in headers[name]]
    return answer


def _same(pair: Pair, verb: str, method: str, path: str, **kwargs: Any) -> Any:
    """The answers of both servers, the same; kube's (as compared)."""
    kwargs.setdefault("rewrite", _random_ids_masked)
    outcome = pair.send("aggregation", "Flunder", verb, method, path, **kwargs)
    assert not outcome.differences, "\n".join(outcome.differences)
    for name in ("content-type", *ANSWER_HEADERS):  # the backend's, passed back as kube passes them
        assert outcome.fake.headers.get(name) == outcome.real.headers.get(name), name
    return outcome.real.body


def test_requests_reach_the_backend_as_kube_sends_them(pair: Pair, backends: Any) -> None:
    echo = _same(pair, "list", "GET", f"{_FLUNDERS}?limit=5&labelSelector=a%3Db&allowWatchBookmarks=true")["echo"]
    assert echo["query"] == "allowWatchBookmarks=true&labelSelector=a%3Db&limit=5"  # as Go's Values.Encode
    assert echo["headers"]["x-remote-group"] and "authorization" not in echo["headers"]
    _same(pair, "get", "GET", f"{_FLUNDERS}/one?pretty=true")
    _same(pair, "create", "POST", _FLUNDERS, body=b'{"kind":"Flunder","metadata":{"name":"two"}}')
    _same(pair, "patch", "PATCH", f"{_FLUNDERS}/two", body=b'{"spec":{}}', content_type="application/merge-patch+json")
    _same(pair, "delete", "DELETE", f"{_FLUNDERS}/two")
    echo = _same(pair, "get-impersonated", "GET", f"{_FLUNDERS}/one", headers={
        "Impersonate-User": "alice", "Impersonate-Group": "wardens", "Impersonate-Extra-Scopes": "view",
        "Impersonate-Extra-Acme.Example%2FTeam": "blue"})["echo"]
    assert echo["headers"]["x-remote-user"] == ["alice"]
    assert echo["headers"]["x-remote-extra-acme.example%2fteam"] == ["blue"]
    _same(pair, "discovery", "GET", f"/apis/{GROUP}/{VERSION}")
    _same(pair, "head", "HEAD", f"{_FLUNDERS}/one")  # the backend's 501: kube passes every method
    _same(pair, "forwarded", "GET", f"{_FLUNDERS}/one", headers={"X-Forwarded-For": "192.0.2.7"})


def test_a_watch_is_streamed_through(pair: Pair, backends: tuple[AggregatedBackend, AggregatedBackend]) -> None:
    backend = backends[0]
    for client in (pair.fake, pair.real):
        backend.release.clear()
        with client.stream("GET", f"{_FLUNDERS}?watch=true") as response:
            assert response.status_code == 200
            lines = response.iter_lines()
            assert json.loads(next(lines))["object"]["metadata"]["name"] == "f1"  # the backend still holds the stream
            backend.release.set()
            assert json.loads(next(lines))["object"]["metadata"]["name"] == "f2"
    backend.release.set()
    _same(pair, "watch", "GET", f"{_FLUNDERS}?watch=true")


def test_a_redirect_is_kubes_502(pair: Pair, backends: Any) -> None:
    """kube-aggregator refuses to pass a backend's redirect on."""
    _same(pair, "redirect", "GET", f"{_FLUNDERS}/one?redirect=true")


def _connection(url: str, kubeconfig: Path) -> socket.socket:
    """A connection to a server (over TLS trusting its kubeconfig's CA for an https URL), as an
    upgrading client opens it: HTTP/1.1 only."""
    parts = urlsplit(url)
    raw = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 443), timeout=10)
    if parts.scheme != "https":
        return raw
    cluster = yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]
    if "certificate-authority-data" in cluster:
        context = ssl.create_default_context(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
    else:
        context = ssl.create_default_context(cafile=cluster["certificate-authority"])
    context.set_alpn_protocols(["http/1.1"])
    return context.wrap_socket(raw, server_hostname=parts.hostname)


#: Headers of an answer that vary by server or request (the date, kube's request ID and priority
#: and fairness' UIDs, which fakeapi does not send).
_PER_SERVER_HEADERS = frozenset((b"date", b"audit-id", b"x-kubernetes-pf-flowschema-uid",
                                 b"x-kubernetes-pf-prioritylevel-uid"))


def _upgraded(server: Any, query: str) -> tuple[bytes, list[bytes], Any, bytes]:
    """An upgrade request (SPDY's, as kubectl exec's) of a flunder's ``exec`` on ``server``
    (fakeapi's ServerProcess or kube's): the answer's status line, its headers' names and values
    but the date and audit ID, then after a 101 the backend's echo of the request and what came
    back of bytes sent through; else the answer's body."""
    token = getattr(server, "token", "") or server.http.headers.get("Authorization", "").removeprefix("Bearer ")
    with _connection(server.url, server.kubeconfig) as conn:
        file = conn.makefile("rb")
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        conn.sendall(f"GET {_FLUNDERS}/one/exec?command=ls&stdout=true{query} HTTP/1.1\r\nHost: kube\r\n{auth}"
                     f"Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n"
                     f"User-Agent: kasdiff\r\n\r\n".encode())
        status = file.readline().rstrip(b"\r\n")
        headers = []
        while (line := file.readline()) not in (b"\r\n", b""):
            name, _, value = line.rstrip(b"\r\n").partition(b":")
            if name.lower() not in _PER_SERVER_HEADERS:
                headers.append(name.lower() + b": " + value.strip())
        if not status.startswith(b"HTTP/1.1 101"):
            length = next((int(h.partition(b":")[2]) for h in headers if h.startswith(b"content-length:")), -1)
            return status, sorted(headers), None, file.read(length) if length >= 0 else file.read()
        echo = _random_ids_masked({"echo": json.loads(file.readline())}, False)["echo"]
        conn.sendall(b"through the tunnel")
        through = b""
        while len(through) < len(b"through the tunnel"):
            through += file.read1(1024)
        return status, headers, echo, through


def test_an_upgrade_is_spliced_to_the_backend(pair: Pair, backends: Any, fake_server: Any, real_server: Any) -> None:
    """An upgrade request (kubectl exec's, to an aggregated server: KubeVirt's consoles are
    these) is passed on as kube passes it, and the connection spliced to the backend's; the
    backend's refusal reaches the client, and an answer that neither switches nor refuses is
    kube's 503."""
    for case, query in (("upgrade", ""), ("upgrade-refused", "&refuse=true"), ("upgrade-not-switched", "&plain=true")):
        fake, real = (_upgraded(server, query) for server in (fake_server, real_server))
        assert fake[:2] == real[:2], case
        assert not list(differences(fake[2], real[2])), (case, list(differences(fake[2], real[2])))
        assert fake[3] == real[3], case
    assert real[0] == b"HTTP/1.1 503 Service Unavailable" and b"invalid upgrade response" in real[3]


def test_discovery_merges_the_backends(pair: Pair, backends: Any) -> None:
    def ours(answer: Any, is_fake: bool) -> Any:
        return [group for group in answer["groups"] if group["name"].endswith(GROUP)]

    _same(pair, "apis", "GET", "/apis", rewrite=ours)
    for group in (GROUP, _LEGACY_GROUP, _DOWN_GROUP, "apps"):
        _same(pair, "apigroup", "GET", f"/apis/{group}")
    _same(pair, "apigroup", "GET", f"/apis/{GROUP}/")
    _same(pair, "apigroup", "GET", f"/apis/{GROUP}", headers={"Accept": "application/vnd.kubernetes.protobuf"})

    def aggregated(answer: Any, is_fake: bool) -> Any:
        return [item for item in answer["items"] if item["metadata"]["name"].endswith(GROUP)]

    items = _same(pair, "aggregated-discovery", "GET", "/apis", headers={"Accept": _AGGREGATED}, rewrite=aggregated)
    # By groupPriorityMinimum, then versionPriority; a version the backend does not list has no
    # resources; the down one's Stale and empty, the legacy one's converted.
    versions = [(item["metadata"]["name"], version) for item in items for version in item["versions"]]
    assert [(group, version["version"], version["freshness"], [r["resource"] for r in version.get("resources", ())])
            for group, version in versions] == [
        (GROUP, VERSION, "Current", ["flunders"]), (GROUP, _OTHER_VERSION, "Current", []),
        (_DOWN_GROUP, VERSION, "Stale", []), (_LEGACY_GROUP, VERSION, "Current", ["flunders"])]


def test_a_slow_discovery_is_kubes_503(pair: Pair, backends: Any) -> None:
    """A discovery request has 5 s (the backend takes longer); others wait for their answer."""
    _same(pair, "slow-discovery", "GET", f"/apis/{GROUP}/{VERSION}?slow=true")


def test_a_proxied_request_has_the_request_deadline(pair: Pair, backends: Any) -> None:
    """kube's filters give a proxied request its deadline (the timeout parameter here): 504 past
    it, a discovery request's too; a malformed timeout is a 400 before the backend is asked."""
    _same(pair, "deadline", "GET", f"{_FLUNDERS}/one?slow=true&timeout=2s")
    _same(pair, "deadline-discovery", "GET", f"/apis/{GROUP}/{VERSION}?slow=true&timeout=2s")
    _same(pair, "deadline-malformed", "GET", f"{_FLUNDERS}/one?timeout=zz")


def test_kube_refuses_for_an_unavailable_api_service(pair: Pair, backends: Any) -> None:
    _same(pair, "unavailable", "GET", f"/apis/{_DOWN_GROUP}/{VERSION}/namespaces/{NAMESPACE}/flunders")
    _same(pair, "unavailable-discovery", "GET", f"/apis/{_DOWN_GROUP}/{VERSION}")


def test_kubectl_reaches_the_backend(pair: Pair, backends: Any, fake_server: Any, real_server: Any,
                                     tmp_path: Path) -> None:
    """kubectl 1.35 (its discovery cache apart for each server): ``get --raw`` through the proxy,
    and ``api-resources`` of the aggregated group from the merged discovery."""
    raw, resources = [], []
    for name, kubeconfig in (("fake", fake_server.kubeconfig), ("real", real_server.kubeconfig)):
        def kubectl(*args: str) -> str:
            proc = subprocess.run([str(kubectl_binary()), "--kubeconfig", str(kubeconfig), "--cache-dir",
                                   str(tmp_path / name), *args], capture_output=True, text=True, timeout=60)
            assert proc.returncode == 0, proc.stderr
            return proc.stdout

        raw.append(_random_ids_masked(json.loads(kubectl("get", "--raw", f"{_FLUNDERS}/one")), False))
        resources.append(kubectl("api-resources", "--api-group", GROUP, "-o", "wide"))
    assert not list(differences(*raw)), list(differences(*raw))
    assert raw[0]["echo"]["headers"]["x-remote-group"]
    assert resources[0] == resources[1] and "flunders" in resources[0]


_CRD_GROUP = f"crd.{GROUP}"
_CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def test_a_custom_resource_group_has_local_api_services(pair: Pair) -> None:
    """kube-aggregator's crdregistration: a local APIService of each version a definition
    serves, gone with the version or the definition."""
    def version(name: str, served: bool, storage: bool) -> dict[str, Any]:
        return {"name": name, "served": served, "storage": storage,
                "schema": {"openAPIV3Schema": {"type": "object"}}}

    crd = {"metadata": {"name": f"gizmos.{_CRD_GROUP}"}, "spec": {
        "group": _CRD_GROUP, "scope": "Namespaced", "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
        "versions": [version("v1", True, True), version("v2beta1", True, False), version("v3alpha1", False, False)]}}
    served = [f"{_API_SERVICES}/v1.{_CRD_GROUP}", f"{_API_SERVICES}/v2beta1.{_CRD_GROUP}"]
    try:
        for client in (pair.fake, pair.real):
            assert client.post(_CRD_PATH, json=crd).status_code == 201
            _wait(lambda: all(client.get(path).status_code == 200 for path in served), "the CRD's APIServices")
        for path in (*served, f"{_API_SERVICES}/v3alpha1.{_CRD_GROUP}"):
            _same(pair, "crd-apiservice", "GET", path)
        for client in (pair.fake, pair.real):  # v2beta1 no longer served
            stored = client.get(f"{_CRD_PATH}/gizmos.{_CRD_GROUP}").json()
            stored["spec"]["versions"][1]["served"] = False
            assert client.put(f"{_CRD_PATH}/gizmos.{_CRD_GROUP}", json=stored).status_code == 200
            _wait(lambda: client.get(served[1]).status_code == 404, "the unserved version's APIService gone")
        _same(pair, "crd-apiservice", "GET", served[0])
    finally:
        for client in (pair.fake, pair.real):
            client.delete(f"{_CRD_PATH}/gizmos.{_CRD_GROUP}")
    for client in (pair.fake, pair.real):
        _wait(lambda: client.get(served[0]).status_code == 404, "the definition's APIServices gone")


#: The local APIServices of the built-in groups, as recorded from kube.
_BUILT_IN = frozenset(o["metadata"]["name"] for o in recorded_objects() if o["kind"] == "APIService")


def _availability_samples(client: httpx.Client, servers: int = 1) -> dict[str, float]:
    """The aggregator's availability samples (series -> value: Go and Python write numbers
    apart) of the built-in groups' and this module's APIServices (other modules' come and go).
    Of ``servers`` API servers (fakeapi's workers) each counts the transitions its own
    controller wrote, as that many kube-apiservers would: the samples of several connections
    (each may reach another), merged."""
    samples: dict[str, float] = {}
    for _ in range(1 if servers == 1 else 8 * servers):
        for line in client.get("/metrics", headers={"Connection": "close"}).text.splitlines():
            name = re.search(r'name="([^"]*)"', line)
            if line.startswith("aggregator_unavailable_apiservice") and name and (
                    name[1].endswith(GROUP) or name[1] in _BUILT_IN):
                series, _, value = line.rpartition(" ")
                samples[series] = max(float(value), samples.get(series, 0.0))
    return samples


def test_the_availability_metrics_are_kubes(pair: Pair, backends: Any) -> None:
    """The gauge of every APIService, then the counter once one that was Available is not."""
    samples = [_availability_samples(client) for client in (pair.fake, pair.real)]
    assert samples[0] == samples[1] and 1.0 in samples[0].values()
    for client in (pair.fake, pair.real):  # v1beta1 of the group loses its Service
        response = client.patch(f"{_API_SERVICES}/{_OTHER_VERSION}.{GROUP}", json={"spec": {"service": {
            "namespace": NAMESPACE, "name": "missing", "port": backends[0].port}}},
            headers={"Content-Type": "application/merge-patch+json"})
        assert response.status_code == 200, response.text
        _wait(lambda: _available(client, GROUP, _OTHER_VERSION) == "False", "the APIService unavailable")
    samples = [_availability_samples(pair.fake, FAKE_API_SERVERS), _availability_samples(pair.real)]
    assert samples[0] == samples[1]
    assert samples[0][f'aggregator_unavailable_apiservice_total{{name="{_OTHER_VERSION}.{GROUP}",'
                      f'reason="ServiceNotFound"}}'] == 1


def test_a_backend_gone_is_kubes_503(pair: Pair, backends: tuple[AggregatedBackend, AggregatedBackend],
                                     fake_server: Any, real_server: Any) -> None:
    """Last: stops the backend. Each server's APIService stays Available until that server's
    next check (every 30 s), so the requests following the stop fail to dial it: an upgrade
    request and a GET. Should a check land in between on either server, that server answers
    ``service unavailable``: both are then asked again once both have marked it unavailable."""
    backends[0].stop()

    def port_free(answer: Any, is_fake: bool) -> Any:
        return answer.replace(str(backends[0].port), "<port>") if isinstance(answer, str) else answer

    def answers() -> tuple[list[tuple[bytes, list[bytes], Any, bytes]], Outcome]:
        upgraded = [_upgraded(server, "") for server in (fake_server, real_server)]
        return upgraded, pair.send("aggregation", "Flunder", "backend-gone", "GET", f"{_FLUNDERS}/one",
                                   rewrite=port_free)

    upgraded, outcome = answers()
    if any(b"service unavailable" in answer[3] for answer in upgraded) or any(
            answer.body == "service unavailable\n" for answer in (outcome.fake, outcome.real)):
        pair.outcomes.remove(outcome)  # the report keeps the step both servers answered alike
        for client in (pair.fake, pair.real):
            _wait(lambda client=client: _available(client, GROUP) == "False", "the APIService unavailable",
                  timeout=2 * _TIMEOUT)
        upgraded, outcome = answers()
        expected = b"service unavailable"
    else:
        expected = b"error dialing backend"
    assert upgraded[0] == upgraded[1] and expected in upgraded[1][3], upgraded
    assert not outcome.differences, "\n".join(outcome.differences)
