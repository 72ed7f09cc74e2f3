"""The fakeapi pytest plugin (registered through the ``pytest11`` entry point ``fakeapi``).

Fixtures: ``fakeapi`` (a fresh server state per test), ``fakeapi_session`` (one shared state for
the session), ``kubeconfig`` (its path, also exported as ``KUBECONFIG``), ``k8s_client`` (a
``kubernetes`` ApiClient), ``faults``, and ``fakeapi_cluster`` (a whole fake cluster for the
session: fakeapi, the real controller manager and scheduler, kwok's nodes; configured by
overriding ``fakeapi_cluster_config``). Marker: ``@pytest.mark.fakeapi(config=..., seed=...,
faults=[...])``; the same keys work as an indirect parameter of ``fakeapi``.

One loopback port per worker process (xdist workers each get their own) serves the per-test
state: each test gets a brand-new fakeapi app behind that port, stopped when the test ends, so no
object, watch or fault outlives its test while URL and kubeconfig stay the same.

The server modules are imported by the fixtures, not here: pytest loads this module in every run
of every project where fakeapi is installed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from kubernetes.client import ApiClient

    from ..cluster.cluster import ClusterConfig
    from .client import FakeAPI, FakeCluster
    from .harness import SharedServer
    from .on_loop import OnLoop


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fakeapi(config=None, seed=None, faults=(), forbid=()): start the test's fakeapi with a ServerConfig "
        "(or a dict of its fields); seeded with YAML text, a path, manifests, a synthetic cluster ({'pods': 100}) "
        "or a callable given the fakeapi fixture; with faults as `fakeapi serve --fault` specs (dicts or text) or "
        "callables given fakeapi.faults; failing the test when a detector in forbid (e.g. 'relist-storm', "
        "'hot-loop') fires for a client of the test",
    )


#: The ``fakeapi`` of a test with ``forbid`` detectors, and those detectors.
_FORBID = pytest.StashKey[tuple["FakeAPI", tuple[str, ...]]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After a passing test body, fail it if a forbidden detector fired (the evidence in the
    message); a failing body keeps its own error."""
    result = yield
    forbidden = item.stash.get(_FORBID, None)
    if forbidden is not None:
        handle, detectors = forbidden
        handle.assert_no_findings(*detectors)
    return result


@pytest.fixture(scope="session")
def _fakeapi_per_test_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    """The port behind ``fakeapi``: one per worker process, a new app per test."""
    from .harness import SharedServer

    yield from SharedServer.running(tmp_path_factory.mktemp("fakeapi"))


@pytest.fixture
def fakeapi(request: pytest.FixtureRequest, _fakeapi_per_test_server: SharedServer) -> Iterator[FakeAPI]:
    """A running fakeapi whose state (objects, watches, faults, config) is this test's alone."""
    from .harness import StartOptions

    options = StartOptions.of(request)
    server = _fakeapi_per_test_server.server
    server.start_app(options.server_config())
    try:
        handle = _fakeapi_per_test_server.handle()
        options.prepare(handle)
        if options.forbid:
            request.node.stash[_FORBID] = (handle, tuple(options.forbid))
        yield handle
    finally:
        # Ends this test's watches and background work now, not when the next test starts.
        server.stop_app()


@pytest.fixture(scope="session")
def fakeapi_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeAPI]:
    """A running fakeapi shared by every test of the session (of the xdist worker): faster
    setup, no isolation. Markers do not apply to it."""
    from .harness import SharedServer

    for shared in SharedServer.running(tmp_path_factory.mktemp("fakeapi-session")):
        shared.server.start_app()
        yield shared.handle()


@pytest.fixture
def kubeconfig(fakeapi: FakeAPI, _fakeapi_per_test_server: SharedServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The kubeconfig of the test's fakeapi, also exported as ``KUBECONFIG`` for the test so
    subprocesses (kubectl, a Go or kopf controller) use it."""
    path = str(fakeapi.kubeconfig)
    monkeypatch.setenv("KUBECONFIG", path)
    monkeypatch.setenv("KUBECACHEDIR", str(_fakeapi_per_test_server.kubectl_cache_dir()))
    # The kubernetes client reads KUBECONFIG once, at import: if it is already imported, its
    # load_kube_config() (which in-process operators such as kopf call) must learn it here.
    for module in ("kubernetes.config.kube_config", "kubernetes.config"):
        if module in sys.modules:
            monkeypatch.setattr(sys.modules[module], "KUBE_CONFIG_DEFAULT_LOCATION", path)
    return fakeapi.kubeconfig


@pytest.fixture
def k8s_client(fakeapi: FakeAPI) -> Iterator[ApiClient]:
    """A ``kubernetes.client.ApiClient`` for the test's fakeapi (needs the ``kubernetes`` package)."""
    from kubernetes import client, config

    configuration = client.Configuration()
    config.load_kube_config(config_file=str(fakeapi.kubeconfig), client_configuration=configuration)
    with client.ApiClient(configuration) as api:
        yield api


@pytest.fixture
def faults(fakeapi: FakeAPI) -> OnLoop:
    """The test's server's faults API (``fakeapi.faults``)."""
    return fakeapi.faults


@pytest.fixture(scope="session")
def fakeapi_cluster_config() -> ClusterConfig | dict[str, Any]:
    """How ``fakeapi_cluster`` starts: a ``fakeapi.cluster.cluster.ClusterConfig`` or a dict of its fields
    (``nodes``, ``stages``, ``components``, ``node_template``, ``kcm_args``, ...). Override it in
    a conftest.py, e.g. ``return {"nodes": 20, "stages": ("node/fast", "node/heartbeat-with-lease",
    "pod/general")}`` for pods that take seconds to start. Default: 5 nodes, kwok's fast stages."""
    return {"nodes": 5}


@pytest.fixture(scope="session")
def fakeapi_cluster(fakeapi_cluster_config: ClusterConfig | dict[str, Any],
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    """A whole fake cluster for the session (per xdist worker): fakeapi on a free port, the real
    kube-controller-manager and kube-scheduler v1.35.4 and kwok v0.8.0 (built by
    ``scripts/build-kube.sh``, cached), its nodes Ready. Deployments roll out, pods are
    scheduled and become Ready. Tests share it: use names or namespaces of their own. Its
    processes die with the test session, however it ends (a SIGKILL included)."""
    from ..cluster.cluster import Cluster, ClusterConfig
    from .client import FakeCluster

    config = fakeapi_cluster_config
    if not isinstance(config, ClusterConfig):
        workdir = tmp_path_factory.mktemp("fakeapi-cluster")
        config = ClusterConfig(**{"port": 0, "kubeconfig": workdir / "kubeconfig", "logs": workdir / "logs",
                                  **config})
    with Cluster(config) as cluster:
        yield FakeCluster(cluster)
