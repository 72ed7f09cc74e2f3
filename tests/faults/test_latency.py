"""Latency injection: fixed, from a distribution, and slow LISTs. Only lower bounds are asserted
(the injected delay), never upper ones, so slow machines cannot make these flaky."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

from fakeapi.testing import ServerProcess

NS = "/api/v1/namespaces/default"


def _timed(request: httpx.Request, http: httpx.Client) -> tuple[httpx.Response, float]:
    start = time.monotonic()
    resp = http.send(request)
    return resp, time.monotonic() - start


def test_fixed_latency_delays_only_matching_requests(
    server: ServerProcess, http: httpx.Client, listed: Callable[[str], dict[str, Any]]
) -> None:
    created = server.inject_latency(verb="get", resource="configmaps", seconds=0.3)
    resp, elapsed = _timed(http.build_request("GET", f"{NS}/configmaps/missing"), http)
    assert resp.status_code == 404 and elapsed >= 0.3
    assert listed(created["id"])["injectedSeconds"] >= 0.3


def test_uniform_latency_is_at_least_its_minimum(server: ServerProcess, http: httpx.Client) -> None:
    server.inject_latency(verb="list", resource="secrets", uniform=[0.2, 0.4], seed=1)
    for _ in range(3):
        resp, elapsed = _timed(http.build_request("GET", f"{NS}/secrets"), http)
        assert resp.status_code == 200 and elapsed >= 0.2


def test_slow_list_costs_per_returned_item(server: ServerProcess, http: httpx.Client) -> None:
    for i in range(20):
        http.post("/api/v1/namespaces/kube-public/configmaps", json={"metadata": {"name": f"item-{i}"}}).raise_for_status()
    server.inject_latency(verb="list", resource="configmaps", per_item=0.025)
    resp, elapsed = _timed(http.build_request("GET", "/api/v1/namespaces/kube-public/configmaps"), http)
    assert len(resp.json()["items"]) >= 20 and elapsed >= 20 * 0.025
    # A limited page returns fewer items, and costs accordingly (not asserted: an upper bound).
    resp = http.get("/api/v1/namespaces/kube-public/configmaps", params={"limit": 2})
    assert len(resp.json()["items"]) == 2
