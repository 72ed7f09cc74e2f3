"""What a start loads: the modules ``fakeapi serve`` defers to their first use stay unloaded by a
start (each cost it 10-100 ms), and a server serving them loads them when asked."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fakeapi.testing import ServerProcess

#: Loaded by the first service-account token, by a Table, by --seed.
DEFERRED = ("cryptography", "fakeapi.printers", "fakeapi.seed")
#: A TLS server's start loads cryptography (its certificates) and Hypercorn, never uvicorn.
NOT_FOR_TLS = ("uvicorn",)


def loaded_by(code: str) -> set[str]:
    """The top packages and fakeapi's packages that ``code`` leaves loaded, in a fresh Python."""
    script = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    names = result.stdout.split()
    return {name.split(".")[0] for name in names} | {".".join(name.split(".")[:2]) for name in names}


def test_a_start_loads_neither_the_deferred_modules_nor_uvicorn_for_tls() -> None:
    server = loaded_by("import fakeapi.cli.serve, fakeapi.server.server")
    assert not server & set(DEFERRED)
    assert "fakeapi.server" in server  # the check sees what was imported
    tls = loaded_by("import fakeapi.cli.serve, fakeapi.server.server, fakeapi.http.tls, fakeapi.http.pki")
    assert not tls & set(NOT_FOR_TLS)
    assert "cryptography" in tls


@pytest.mark.parametrize("tls", [False, True], ids=["http", "tls"])
def test_deferred_features_answer_on_first_use(tmp_path, tls: bool) -> None:
    """A Table, a service-account token and the OpenID keys, each the first of its kind in a
    server that started without their modules."""
    with ServerProcess(tmp_path, *(["--tls"] if tls else [])) as server:
        table = server.http.get("/api/v1/namespaces", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
        assert table.status_code == 200 and table.json()["kind"] == "Table"
        assert [row["cells"][0] for row in table.json()["rows"]] == ["default", "kube-node-lease", "kube-public",
                                                                     "kube-system"]
        account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}
        assert server.http.post("/api/v1/namespaces/default/serviceaccounts", json=account).status_code == 201
        request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"audiences": []}}
        token = server.http.post("/api/v1/namespaces/default/serviceaccounts/robot/token", json=request)
        assert token.status_code == 201 and token.json()["status"]["token"].count(".") == 2
        keys = server.http.get("/openid/v1/jwks")
        assert keys.status_code == 200 and keys.json()["keys"][0]["alg"] == "RS256"
