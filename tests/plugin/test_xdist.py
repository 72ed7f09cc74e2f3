"""pytest-xdist: each worker process gets its own server, and isolation holds within each."""

from __future__ import annotations

import pytest
from plugin_manifests import CONFIGMAP


def test_each_xdist_worker_has_its_own_server(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_user=f'''
        import os

        import pytest

        CONFIGMAP = {CONFIGMAP!r}


        @pytest.mark.parametrize("n", range(8))
        def test_create(fakeapi, n):
            # POST, not apply: a configmap left by an earlier test on this worker would be a 409.
            created = fakeapi.http.post("/api/v1/namespaces/default/configmaps",
                                        json={{"metadata": {{"name": "settings"}}}})
            assert created.status_code == 201, created.text
            with open(os.environ["SERVERS_SEEN"], "a") as seen:
                seen.write(f"{{os.environ['PYTEST_XDIST_WORKER']}} {{fakeapi.url}}\\n")
    ''')
    seen = pytester.path / "servers.txt"
    monkeypatch.setenv("SERVERS_SEEN", str(seen))
    pytester.runpytest_subprocess("-n", "2").assert_outcomes(passed=8)
    servers = dict(line.split() for line in seen.read_text().splitlines())
    assert len(servers) == 2 and len(set(servers.values())) == 2, servers
