"""The objects every kube-apiserver creates when it starts (``fakeapi/registry/bootstrap.py``):
fakeapi's, read back through the API, against those of a real kube-apiserver started with the
RBAC authorizer (the RBAC bootstrap policy is only written then; the suite's oracle runs
``AlwaysAllow``). Per collection: the same objects, and each the same once normalised."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fakeapi.testing import ServerProcess
from fakeapi.cluster.control_plane import KubeAPIServer, real_apiserver

from differ import Normaliser, differences

#: (collection, the names to compare: None for all of the real server's). The objects are
#: compared as GET returns them.
_COLLECTIONS: tuple[tuple[str, tuple[str, ...] | None], ...] = (
    ("/apis/scheduling.k8s.io/v1/priorityclasses", None),
    ("/apis/rbac.authorization.k8s.io/v1/clusterroles", None),
    ("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", None),
    ("/apis/rbac.authorization.k8s.io/v1/roles", None),
    ("/apis/rbac.authorization.k8s.io/v1/rolebindings", None),
    ("/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", None),
    ("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", None),
    ("/apis/networking.k8s.io/v1/servicecidrs", ("kubernetes",)),
    ("/apis/networking.k8s.io/v1/ipaddresses", ("10.0.0.1",)),
    ("/api/v1/services", ("kubernetes",)),
    ("/apis/apiregistration.k8s.io/v1/apiservices", None),
)
#: What differs between two servers by nature: the kubernetes Service's target port is each
#: server's own port; the authentication ConfigMap holds each server's client CA.
_PER_SERVER_PATHS = (("spec", "ports", 0, "targetPort"),)


@pytest.fixture(scope="module")
def rbac_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeAPIServer]:
    with real_apiserver(tmp_path_factory.mktemp("oracle-rbac"), "--authorization-mode=Node,RBAC") as server:
        yield server


@pytest.fixture(scope="module")
def fake(fake_server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=fake_server.url, timeout=30) as client:
        yield client


def _normalised(item: dict[str, Any]) -> Any:
    meta = item["metadata"]
    meta.pop("resourceVersion", None)
    for entry in meta.get("managedFields") or ():
        entry.pop("time", None)
    for path in _PER_SERVER_PATHS:
        node: Any = item
        for step in path[:-1]:
            try:
                node = node[step]
            except (KeyError, IndexError, TypeError):
                break
        else:
            if isinstance(node, dict) and path[-1] in node:
                node[path[-1]] = "<port>"
    return Normaliser()(item)


def _names(client: httpx.Client, path: str) -> list[tuple[str, str]]:
    response = client.get(path)
    assert response.status_code == 200, response.text
    return [(i["metadata"].get("namespace", ""), i["metadata"]["name"]) for i in response.json()["items"]]


def _get(client: httpx.Client, collection: str, key: tuple[str, str]) -> dict[str, Any]:
    """An object of a cluster-wide listing, read by its own path."""
    namespace, name = key
    root, _, plural = collection.rpartition("/")
    response = client.get(f"{root}/namespaces/{namespace}/{plural}/{name}" if namespace else f"{collection}/{name}")
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(("path", "names"), _COLLECTIONS, ids=[path.rsplit("/", 1)[1] for path, _ in _COLLECTIONS])
def test_bootstrap_objects_match_kube_apiserver(
    rbac_server: KubeAPIServer, fake: httpx.Client, path: str, names: tuple[str, ...] | None,
) -> None:
    mine = set(_names(fake, path))
    wanted = [key for key in _names(rbac_server.http, path) if names is None or key[1] in names]
    assert wanted, f"the real server has none of {names} in {path}"
    missing = [key for key in wanted if key not in mine]
    assert not missing, f"fakeapi lacks {missing}"
    found = [f"{key}: {d}" for key in wanted for d in differences(
        _normalised(_get(fake, path, key)), _normalised(_get(rbac_server.http, path, key)))]
    assert not found, "\n".join(found)


def test_bootstrap_config_maps(rbac_server: KubeAPIServer, fake: httpx.Client) -> None:
    """kube-system's ConfigMaps of kube-apiserver exist (their content is each server's)."""
    path = "/api/v1/namespaces/kube-system/configmaps"
    assert set(_names(fake, path)) >= set(_names(rbac_server.http, path))

