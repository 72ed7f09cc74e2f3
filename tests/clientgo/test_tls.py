"""Real client-go informers over ``fakeapi serve --tls``: they verify the server by the CA of the
kubeconfig fakeapi writes, authenticate with its credential (the token, or a client certificate
with ``--kubeconfig-auth cert``), and, as against a real kube-apiserver, multiplex their lists and
watches over HTTP/2 — and see changes through those watches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fakeapi.testing import ServerProcess

NS = "/api/v1/namespaces/default"


@pytest.mark.parametrize("credential", ["token", "cert"])
def test_informers_list_and_watch_over_http2_tls(credential: str, start_harness: Any, tmp_path: Path) -> None:
    with ServerProcess(tmp_path, "--tls", "--kubeconfig-auth", credential) as server:
        assert server.url.startswith("https://")
        server.http.post(f"{NS}/configmaps", json={"metadata": {"name": "before"}}).raise_for_status()
        harness = start_harness(server.kubeconfig, False, tmp_path / "pause", "--trace-http")
        harness.wait_for(lambda ms: any(m["kind"] == "synced" for m in ms), "synced")
        created = server.http.post(f"{NS}/configmaps", json={"metadata": {"name": "after"}})
        created.raise_for_status()
        rv = created.json()["metadata"]["resourceVersion"]
        harness.wait_for(lambda _: ("add", "after", rv) in harness.events("configmaps"), "the watched add")
        requests = [m for m in harness.snapshot() if m["kind"] == "http"]
        watches = [m for m in requests if "watch=true" in m["query"]]
        assert len(watches) >= 4 and all(m["status"] == 200 for m in requests)
        assert {m["proto"] for m in requests} == {"HTTP/2.0"}
        assert harness.quit() == 0
