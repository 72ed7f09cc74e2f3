"""Error injection through the HTTP control API: each code as the Status kube-apiserver sends,
failed requests change nothing, counts and seeded rates, kubectl retrying after 429, and bad
control bodies answered with 400."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from fakeapi.testing import ServerProcess

NS = "/api/v1/namespaces/default"

EXPECTED = {
    429: ("TooManyRequests", "Too many requests, please try again later.", 1),
    500: ("InternalError", "Internal error occurred: etcdserver: request timed out", None),
    503: ("ServiceUnavailable", "apiserver is shutting down", 2),
    504: ("Timeout", "Timeout: request did not complete within requested timeout - context deadline exceeded", 3),
}


@pytest.mark.parametrize("code", sorted(EXPECTED))
def test_each_code_is_a_kube_status_and_the_request_changes_nothing(
    code: int, server: ServerProcess, http: httpx.Client, listed: Callable[[str], dict[str, Any]]
) -> None:
    reason, message, retry_after = EXPECTED[code]
    spec = {"code": code, "verb": "create", "resource": "configmaps", "count": 1}
    if code in (503, 504):
        spec["retry_after"] = retry_after
    created = server.inject_error(**spec)
    before = http.get(f"{NS}/configmaps").json()["metadata"]["resourceVersion"]

    resp = http.post(f"{NS}/configmaps", json={"metadata": {"name": f"failed-{code}"}})
    assert resp.status_code == code
    status = resp.json()
    assert (status["kind"], status["status"], status["code"], status["reason"], status["message"]) == \
        ("Status", "Failure", code, reason, message)
    if retry_after is None:
        assert "Retry-After" not in resp.headers
    else:
        assert resp.headers["Retry-After"] == str(retry_after)
        assert status["details"]["retryAfterSeconds"] == retry_after
    # Nothing was written: no object, no new revision.
    assert http.get(f"{NS}/configmaps/failed-{code}").status_code == 404
    assert http.get(f"{NS}/configmaps").json()["metadata"]["resourceVersion"] == before
    # The count is used up: the next create goes through, and the fault is listed as spent.
    assert http.post(f"{NS}/configmaps", json={"metadata": {"name": f"ok-{code}"}}).status_code == 201
    spent = listed(created["id"])
    assert (spent["active"], spent["fired"], spent["matched"]) == (False, 1, 1)


def test_errors_select_by_verb_resource_and_namespace(server: ServerProcess, http: httpx.Client) -> None:
    server.inject_error(code=500, verb="get", resource="secrets", namespace="kube-system")
    assert http.get("/api/v1/namespaces/kube-system/secrets/x").status_code == 500
    assert http.get(f"{NS}/secrets/x").status_code == 404  # another namespace
    assert http.get("/api/v1/namespaces/kube-system/secrets").status_code == 200  # list, not get
    assert http.get("/api/v1/namespaces/kube-system/configmaps/x").status_code == 404  # another resource


def test_a_rate_is_reproducible_with_its_seed(server: ServerProcess, http: httpx.Client) -> None:
    def pattern() -> list[int]:
        created = server.inject_error(code=503, verb="list", resource="services", rate=0.5, seed=7)
        codes = [http.get(f"{NS}/services").status_code for _ in range(20)]
        server.clear_faults(created["id"])
        return codes

    first = pattern()
    assert set(first) == {200, 503}
    assert pattern() == first


def test_kubectl_retries_after_429_with_retry_after_and_succeeds(
    server: ServerProcess, http: httpx.Client, tmp_path: Path, listed: Callable[[str], dict[str, Any]]
) -> None:
    http.post(f"{NS}/configmaps", json={"metadata": {"name": "for-kubectl"}}).raise_for_status()
    throttle = server.inject_error(code=429, verb="list", resource="configmaps", count=2, retry_after=1)
    # A latency fault of no delay on every LIST of configmaps counts the requests the server saw.
    counter = server.inject_latency(verb="list", resource="configmaps", per_item=1e-9)
    env = {**os.environ, "KUBECONFIG": str(server.kubeconfig), "KUBECACHEDIR": str(tmp_path)}
    proc = subprocess.run(["kubectl", "get", "configmaps", "-o", "name"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "configmap/for-kubectl" in proc.stdout
    assert listed(throttle["id"])["fired"] == 2
    assert listed(counter["id"])["matched"] == 3  # two 429s, then the answer


@pytest.mark.parametrize("body, message", [
    (b"not json", "error decoding JSON"),
    (b"[]", "the request body must be a JSON object"),
    (b'{"type": "error"}', "an error fault needs a code"),
    (b'{"type": "error", "code": 404}', "code must be one of 429, 500, 503, 504"),
    (b'{"type": "error", "code": 429, "verb": "watchh"}', "unknown verb 'watchh'"),
    (b'{"type": "error", "code": 429, "count": 1, "rate": 0.5}', "give count or rate, not both"),
    (b'{"type": "error", "code": "x"}', "code must be an integer"),
    (b'{"type": "latency", "uniform": [2, 1]}', "uniform needs 0 <= min <= max"),
    (b'{"type": "latency", "bogus": 1}', "unknown field 'bogus'"),
    (b'{"type": "stall"}', "a stall needs seconds"),
    (b'{"type": "set", "bookmarkInterval": 0}', "bookmark_interval must be"),
    (b'{"type": "nope"}', "type must be one of"),
])
def test_bad_bodies_are_400_statuses(body: bytes, message: str, http: httpx.Client) -> None:
    resp = http.post("/fakeapi/v1/faults", content=body)
    assert resp.status_code == 400, resp.text
    assert resp.json()["reason"] == "BadRequest"
    assert message in resp.json()["message"]


def test_faults_are_listed_cleared_one_by_one_or_all(server: ServerProcess, http: httpx.Client) -> None:
    first = server.inject_error(code=500, verb="get", resource="pods")
    second = server.inject_latency(verb="get", resource="pods", seconds=0.01)
    assert {f["id"] for f in server.faults()["faults"]} >= {first["id"], second["id"]}
    assert http.get(f"{NS}/pods/x").status_code == 500  # fired here: the module's tests run in any order
    assert http.delete(f"/fakeapi/v1/faults/{first['id']}").json() == {"cleared": 1}
    assert http.delete(f"/fakeapi/v1/faults/{first['id']}").status_code == 404
    assert http.get(f"{NS}/pods/x").status_code == 404  # the error is gone, the latency stays
    assert server.clear_faults() >= 1
    assert server.faults()["faults"] == []
    assert server.faults()["fired"]["error"] >= 1  # totals outlive the faults (metrics)
