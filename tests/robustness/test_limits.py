"""kube-apiserver's request limits on a ``fakeapi serve`` process (the answers' exact shapes are
compared with the real kube-apiserver in ``tests/kasdiff/test_bad_requests.py`` for the 413s,
the etcd-sized 500s and the ``timeout`` parameter's 400s; the 504 and 429 bodies are kube's
``apierrors.NewTimeoutError``/``tooManyRequests`` as its filters write them):

* ``--request-timeout``: a request still running past it is answered 504 (a latency fault holds
  it), one that finishes in time is not, a shorter ``timeout`` parameter wins, a watch is not
  limited;
* ``--max-requests-inflight`` / ``--max-mutating-requests-inflight``: over the limit, 429 with
  ``Retry-After: 1`` as plain text, counted in ``apiserver_request_total``; the other kind and
  ``system:masters`` are never refused; watches do not count;
* ``--max-request-bytes``: an object whose etcd write would be too large is refused with kube's
  500, after the retry without managedFields kube makes; the store's revision does not move.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from fakeapi.testing import ServerProcess

NS = "limits"


def _server(tmp_path_factory: pytest.TempPathFactory, *args: str) -> ServerProcess:
    server = ServerProcess(tmp_path_factory.mktemp("limits"), "--controllers", "", *args)
    assert server.http.post("/api/v1/namespaces", json={"metadata": {"name": NS}}).status_code == 201
    return server


@pytest.fixture(scope="module")
def timeouts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with _server(tmp_path_factory, "--request-timeout", "2s") as server:
        yield server


@pytest.fixture(scope="module")
def inflight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with _server(tmp_path_factory, "--max-requests-inflight", "2", "--max-mutating-requests-inflight", "1") as server:
        yield server


def service_account_token(server: ServerProcess) -> str:
    """A token of a service account: a user kube's in-flight limits apply to."""
    http = server.http
    http.post(f"/api/v1/namespaces/{NS}/serviceaccounts", json={"metadata": {"name": "limited"}})
    response = http.post(f"/api/v1/namespaces/{NS}/serviceaccounts/limited/token", json={"spec": {}})
    assert response.status_code == 201, response.text
    return response.json()["status"]["token"]


def test_request_timeout_answers_504(timeouts: ServerProcess) -> None:
    """Which request is cut is decided by latencies well apart from the limits (no timed
    assertions): 4 s held against 2 s answers 504, 1 s held does not unless ``timeout=200ms``."""
    http = timeouts.http
    fault = timeouts.inject_latency(verb="list", resource="configmaps", seconds=4)
    response = http.get(f"/api/v1/namespaces/{NS}/configmaps")
    assert response.status_code == 504
    assert response.headers["content-type"].startswith("text/plain")
    assert response.json() == {"metadata": {}, "status": "Failure", "reason": "Timeout", "details": {}, "code": 504,
                               "message": "Timeout: request did not complete within the allotted timeout"}
    timeouts.clear_faults(fault["id"])
    fault = timeouts.inject_latency(verb="list", resource="configmaps", seconds=1)
    assert http.get(f"/api/v1/namespaces/{NS}/configmaps").status_code == 200
    assert http.get(f"/api/v1/namespaces/{NS}/configmaps", params={"timeout": "200ms"}).status_code == 504
    timeouts.clear_faults(fault["id"])
    with http.stream("GET", f"/api/v1/namespaces/{NS}/configmaps", params={"watch": "1", "timeoutSeconds": "4"}) as watch:
        started = time.monotonic()
        for _ in watch.iter_bytes():
            pass
    # A lower bound only (a loaded machine makes it longer, never shorter).
    assert watch.status_code == 200 and time.monotonic() - started > 3.5, "a watch is not cut by --request-timeout"


def _metric(server: ServerProcess, pattern: str) -> float:
    text = server.http.get("/metrics").text
    return sum(float(value) for value in re.findall(pattern, text, re.MULTILINE))


def test_inflight_limits_answer_429(inflight: ServerProcess) -> None:
    token = service_account_token(inflight)
    fault = inflight.inject_latency(verb="list", resource="configmaps", seconds=5)
    limited = httpx.Client(base_url=inflight.url, timeout=10, headers={"Authorization": f"Bearer {token}"})
    results: list[httpx.Response] = []

    def list_configmaps() -> None:
        results.append(limited.get(f"/api/v1/namespaces/{NS}/configmaps"))

    threads = [threading.Thread(target=list_configmaps) for _ in range(6)]
    for thread in threads:
        thread.start()
    # Four are refused at once; the two admitted stay in flight, held by the fault, meanwhile.
    deadline = time.monotonic() + 4
    while len(results) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(results) == 4 and all(r.status_code == 429 for r in results), [r.status_code for r in results]
    during = limited.get(f"/api/v1/namespaces/{NS}/configmaps/nothere")
    admin = inflight.http.get(f"/api/v1/namespaces/{NS}/configmaps/nothere")  # system:masters: never refused
    mutating = limited.post(f"/api/v1/namespaces/{NS}/configmaps", json={"metadata": {"name": "during"}})
    for thread in threads:
        thread.join()
    inflight.clear_faults(fault["id"])
    codes = sorted(r.status_code for r in results)
    assert codes == [200, 200, 429, 429, 429, 429], codes
    assert during.status_code == 429 and admin.status_code == 404 and mutating.status_code == 201
    refused = next(r for r in results if r.status_code == 429)
    assert refused.text == "Too many requests, please try again later.\n"
    assert refused.headers["retry-after"] == "1"
    assert refused.headers["content-type"] == "text/plain; charset=utf-8"
    assert _metric(inflight, r'^apiserver_request_total\{.*code="429".*\} (\S+)$') >= 5
    # Watches are long-running: not counted against the limit.
    with limited.stream("GET", f"/api/v1/namespaces/{NS}/configmaps", params={"watch": "1", "timeoutSeconds": "2"}), \
            limited.stream("GET", f"/api/v1/namespaces/{NS}/configmaps", params={"watch": "1", "timeoutSeconds": "2"}):
        assert limited.get(f"/api/v1/namespaces/{NS}/configmaps").status_code == 200


def test_etcd_request_limit(inflight: ServerProcess) -> None:
    http = inflight.http
    revision = int(http.get("/api/v1/namespaces", params={"limit": 1}).json()["metadata"]["resourceVersion"])
    env = [{"name": f"E{i}", "value": "v" * 100} for i in range(16000)]  # 2 MiB of JSON
    pod = {"metadata": {"name": "big"}, "spec": {"containers": [{"name": "c", "image": "busybox", "env": env}]}}
    response = http.post(f"/api/v1/namespaces/{NS}/pods", json=pod)
    assert response.status_code == 500
    assert response.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                               "message": "etcdserver: request is too large", "code": 500}
    assert int(http.get("/api/v1/namespaces", params={"limit": 1}).json()["metadata"]["resourceVersion"]) == revision
    # What fits once managedFields are dropped is stored without them, as kube retries it.
    many = {"metadata": {"name": "many-keys"}, "data": {f"key-{i:07d}": "" for i in range(65536)}}
    stored = http.post(f"/api/v1/namespaces/{NS}/configmaps", json=many)
    assert stored.status_code == 201 and "managedFields" not in stored.json()["metadata"]
