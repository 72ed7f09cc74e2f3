"""A whole fake cluster: fakeapi, the real kube-controller-manager and kube-scheduler v1.35.4, and
kwok v0.8.0's fake nodes — ``fakeapi cluster`` and the ``fakeapi_cluster`` pytest fixture.

kwok plays the kubelets: it turns the nodes it manages Ready, renews their Leases in
``kube-node-lease`` (every 10 s, a quarter of the 40 s lease, as the kubelet does), and walks the
pods bound to them through their lifecycle (Running and Ready with an IP, completed, deleted) as
its Stage objects say — kwok's own ``kustomize/stage`` configs, copied next to the binary by
``scripts/build-kube.sh``. The real controller manager runs every controller (node lifecycle,
Deployments, StatefulSets, GC, namespaces, ...), so fakeapi's built-in GC and namespace
controllers are off whenever it runs, and its ServiceAccount admission plugin on, as in a real
cluster (the controller manager creates every namespace's ``default`` ServiceAccount, which
pods run as); the real scheduler binds pods to the fake nodes.

Every process is a child of this one, listens on loopback only, writes its output to
``<logs>/<name>.log``, dies with this process however it ends, and is stopped by ``Cluster.stop``
— all at once (SIGTERM to each, one shared grace, then SIGKILL), and only the processes this
cluster started. The cluster also runs on a real kube-apiserver (``Cluster(config,
apiserver=...)``), which is how the scenarios compare the two.
"""

from __future__ import annotations

import concurrent.futures
import copy
import ipaddress
import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
import yaml

from ..auth.serviceaccount_tokens import write_signing_key
from .control_plane import (
    Component,
    ControlPlaneError,
    ControllerManager,
    Scheduler,
    free_port,
    kube_binaries,
    stop_components,
)

KWOK = "kwok"
KCM = "kcm"
SCHEDULER = "scheduler"
#: What ``--with`` chooses from, in start order.
COMPONENTS = (KCM, SCHEDULER, KWOK)
#: The annotation marking the nodes kwok manages (kwok's own convention): nodes of the template
#: always carry it, so kwok leaves any other node alone.
MANAGED_ANNOTATION = ("kwok.x-k8s.io/node", "fake")
#: kwok's stage sets by their directory under its ``kustomize/stage``; ``fast`` is its
#: ``node/fast`` + ``node/heartbeat-with-lease`` + ``pod/fast`` (nodes Ready at once, leases
#: renewed, pods Ready at once).
DEFAULT_STAGES = ("fast",)
#: kwok renews a Lease every quarter of its duration: 40 s gives the kubelet's 10 s.
NODE_LEASE_SECONDS = 40
#: The nodes' pod CIDRs (one /24 each) and InternalIPs are taken in order from these.
POD_CIDRS = ipaddress.ip_network("10.128.0.0/9")
NODE_IPS = ipaddress.ip_network("172.16.0.0/12")
MAX_NODES = POD_CIDRS.num_addresses // 256
#: How long the cluster gets to be ready after the last node is created.
READY_TIMEOUT = 300.0
#: Requests in flight while nodes are created.
CREATE_CONCURRENCY = 16
#: Attempts of a request that met a connection error (a busy server closing a kept-alive
#: connection as the request went out).
TRANSPORT_RETRIES = 3

#: kwok v0.8.0's defaults (its ``SetObjectDefaults_KwokConfiguration``), which it applies only
#: when ``--config`` has no KwokConfiguration: one read from a file keeps its zeros (and
#: refuses to start with ``playStageParallelism must be greater than 0``).
KWOK_DEFAULT_OPTIONS: dict[str, Any] = {
    "cidr": "10.0.0.0/24", "manageAllNodes": False, "enableDebuggingHandlers": True,
    "enableContentionProfiling": False, "enableProfilingHandler": True, "podPlayStageParallelism": 4,
    "nodePlayStageParallelism": 4, "nodeLeaseParallelism": 4, "podsOnNodeSyncParallelism": 1,
    "enablePodsOnNodeSyncListPager": True, "enablePodsOnNodeSyncStreamWatch": False,
}

DEFAULT_NODE_TEMPLATE: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {
        # The name is the prefix: the nodes are kwok-node-0, kwok-node-1, ...
        "name": "kwok-node",
        "annotations": {MANAGED_ANNOTATION[0]: MANAGED_ANNOTATION[1], "node.alpha.kubernetes.io/ttl": "0"},
        "labels": {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
                   "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "kubernetes.io/role": "agent",
                   "node-role.kubernetes.io/agent": "", "type": "kwok"},
    },
    "spec": {},
    "status": {
        "allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110"},
        "capacity": {"cpu": "32", "memory": "256Gi", "pods": "110"},
        "nodeInfo": {"architecture": "amd64", "operatingSystem": "linux", "kubeletVersion": "v1.35.4"},
    },
}


class APIServer(Protocol):
    """What the cluster needs of its API server: fakeapi's process here, or a real
    kube-apiserver (``fakeapi.cluster.control_plane.KubeAPIServer``)."""

    url: str
    kubeconfig: Path
    http: httpx.Client

    def stop(self) -> None: ...


class FakeAPIServer(Component):
    """``fakeapi serve`` as a child process on loopback, with ``extra_args``."""

    name = "fakeapi"

    def __init__(self, workdir: Path, kubeconfig: Path, *extra_args: str, port: int = 0) -> None:
        super().__init__(workdir)
        self.kubeconfig = kubeconfig
        if port:
            _check_free(port)
        port = port or free_port()
        self.url = f"http://127.0.0.1:{port}"
        self._launch([sys.executable, "-m", "fakeapi.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                      "--kubeconfig", str(kubeconfig), *extra_args])
        self._wait_healthy(f"{self.url}/readyz")
        self.http = httpx.Client(base_url=self.url, timeout=60)

    def close_clients(self) -> None:
        if getattr(self, "http", None) is not None:
            self.http.close()


def _check_free(port: int) -> None:
    """``ControlPlaneError`` if something listens on 127.0.0.1:``port`` already: its ``/readyz``
    must not pass for the new server's."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As uvicorn binds: connections of a past server in TIME_WAIT do not make the port taken.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as err:
            raise ControlPlaneError(f"127.0.0.1:{port} is in use ({err.strerror}): choose another --port") from None


class Kwok(Component):
    """kwok v0.8.0 managing the nodes annotated ``kwok.x-k8s.io/node=fake``, configured by
    ``config`` (a KwokConfiguration and its Stages, see ``kwok_config``)."""

    name = "kwok"

    def __init__(self, workdir: Path, kubeconfig: Path, config: Path, *extra_args: str) -> None:
        super().__init__(workdir)
        port = free_port()
        self._launch([
            str(kube_binaries("kwok") / "kwok"), f"--kubeconfig={kubeconfig}", f"--config={config}",
            f"--manage-nodes-with-annotation-selector={'='.join(MANAGED_ANNOTATION)}",
            f"--server-address=127.0.0.1:{port}", *extra_args,
        ])
        self._wait_healthy(f"http://127.0.0.1:{port}/healthz")


def stages_directory() -> Path:
    """kwok's ``kustomize/stage``, as the build copies it next to the binary."""
    return kube_binaries("kwok") / "kwok-stages"


def known_stages(directory: Path) -> list[str]:
    """The stage sets under ``directory``: every folder holding YAML (``fast``, ``node/fast``,
    ``pod/general``, ``pod/chaos``, ...)."""
    return sorted({str(path.parent.relative_to(directory)) for path in directory.glob("**/*.yaml")
                   if "testdata" not in path.parts})


def load_stages(names: tuple[str, ...] | list[str], directory: Path | None = None) -> list[dict[str, Any]]:
    """The Stage objects of ``names``: kwok stage sets (folders of its ``kustomize/stage``,
    followed through their ``kustomization.yaml`` as kustomize would) or YAML files."""
    directory = directory or stages_directory()
    stages: list[dict[str, Any]] = []
    for name in names:
        path = Path(name)
        if path.suffix in (".yaml", ".yml") and path.is_file():
            documents = list(yaml.safe_load_all(path.read_text()))
        elif (directory / name).is_dir() and name.strip("/"):
            documents = _kustomized(directory / name)
        else:
            raise ValueError(f"unknown kwok stages {name!r}: a YAML file or one of {', '.join(known_stages(directory))}")
        found = [doc for doc in documents if doc and doc.get("kind") == "Stage"]
        if not found:
            raise ValueError(f"{name}: no kwok Stage objects in it")
        stages.extend(found)
    names_seen = [stage["metadata"]["name"] for stage in stages]
    duplicates = sorted({name for name in names_seen if names_seen.count(name) > 1})
    if duplicates:
        raise ValueError(f"stages given twice: {', '.join(duplicates)}")
    return stages


def _kustomized(directory: Path) -> list[Any]:
    """The documents of a kustomize folder's ``resources`` (files and folders, in order), or of
    its YAML files when it has no ``kustomization.yaml``."""
    kustomization = directory / "kustomization.yaml"
    if not kustomization.exists():
        return [doc for path in sorted(directory.glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text())]
    documents: list[Any] = []
    for resource in yaml.safe_load(kustomization.read_text()).get("resources", []):
        path = (directory / resource).resolve()
        documents.extend(_kustomized(path) if path.is_dir() else yaml.safe_load_all(path.read_text()))
    return documents


def kwok_config(stages: list[dict[str, Any]], *, lease_parallelism: int = 0) -> str:
    """kwok's ``--config``: its options (40 s node leases; ``lease_parallelism`` renewals in
    flight, kwok's default 4 when 0) and the Stages, as one YAML stream."""
    options = {**KWOK_DEFAULT_OPTIONS, "nodeLeaseDurationSeconds": NODE_LEASE_SECONDS}
    if lease_parallelism:
        options["nodeLeaseParallelism"] = lease_parallelism
    configuration = {"apiVersion": "config.kwok.x-k8s.io/v1alpha1", "kind": "KwokConfiguration",
                     "metadata": {"name": "fakeapi-cluster"}, "options": options}
    return yaml.safe_dump_all([configuration, *stages], sort_keys=False)


def node_manifests(count: int, template: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """``count`` Nodes made from ``template`` (default ``DEFAULT_NODE_TEMPLATE``): named
    ``<template name>-<i>``, each with its hostname label, a pod CIDR of its own (kwok gives pods
    IPs from it) and an InternalIP, and the annotation kwok manages them by."""
    if count > MAX_NODES:
        raise ValueError(f"at most {MAX_NODES} nodes")
    template = template or DEFAULT_NODE_TEMPLATE
    if template.get("kind") != "Node":
        raise ValueError(f"a node template is a Node, not a {template.get('kind')!r}")
    prefix = (template.get("metadata") or {}).get("name") or "kwok-node"
    for index in range(count):
        node = copy.deepcopy(template)
        name = f"{prefix}-{index}"
        metadata = node.setdefault("metadata", {})
        metadata["name"] = name
        metadata.setdefault("labels", {})["kubernetes.io/hostname"] = name
        metadata.setdefault("annotations", {})[MANAGED_ANNOTATION[0]] = MANAGED_ANNOTATION[1]
        cidr = str(ipaddress.ip_network((int(POD_CIDRS.network_address) + 256 * index, 24)))
        spec = node.setdefault("spec", {})
        spec.setdefault("podCIDR", cidr)
        spec.setdefault("podCIDRs", [spec["podCIDR"]])
        status = node.setdefault("status", {})
        status.setdefault("addresses", [{"type": "InternalIP", "address": str(NODE_IPS.network_address + index + 1)},
                                        {"type": "Hostname", "address": name}])
        yield node


def node_ready(node: dict[str, Any], *, untainted: bool = True) -> bool:
    """Ready as the scheduler needs it: the Ready condition True and (``untainted``) the
    ``node.kubernetes.io/not-ready`` taint that admission puts on every new node gone — the
    controller manager's node lifecycle controller lifts it."""
    conditions = (node.get("status") or {}).get("conditions") or []
    taints = (node.get("spec") or {}).get("taints") or []
    return (any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
            and not (untainted and any(t.get("key") == "node.kubernetes.io/not-ready" for t in taints)))


@dataclass
class ClusterConfig:
    """What ``fakeapi cluster`` takes (its flags, by the same names)."""

    nodes: int = 100
    #: A Node manifest; its ``metadata.name`` is the nodes' name prefix.
    node_template: dict[str, Any] | None = None
    components: tuple[str, ...] = COMPONENTS
    #: kwok stage sets or YAML files (``load_stages``).
    stages: tuple[str, ...] = DEFAULT_STAGES
    #: fakeapi's port; 0 picks a free one.
    port: int = 0
    kubeconfig: Path = Path("kubeconfig")
    logs: Path = Path("cluster-logs")
    #: Extra flags of each process (e.g. ``kcm_args=("--kube-api-qps=200",)``).
    fakeapi_args: tuple[str, ...] = ()
    kcm_args: tuple[str, ...] = ()
    scheduler_args: tuple[str, ...] = ()
    kwok_args: tuple[str, ...] = ()
    #: kwok's node lease renewals in flight (0: kwok's default, 4).
    lease_parallelism: int = 0
    #: The controller manager's and scheduler's client rate limit (``--kube-api-qps``, burst
    #: twice that); 0 keeps kube's defaults (20 and 50 QPS), which pace a large cluster's start:
    #: the node lifecycle controller lifts the not-ready taint of ~10 nodes a second.
    client_qps: float = 0
    ready_timeout: float = READY_TIMEOUT

    def __post_init__(self) -> None:
        unknown = set(self.components) - set(COMPONENTS)
        if unknown:
            raise ValueError(f"unknown components {sorted(unknown)}; known: {', '.join(COMPONENTS)}")
        if not 0 <= self.nodes <= MAX_NODES:
            raise ValueError(f"nodes: between 0 and {MAX_NODES}")


@dataclass
class Cluster:
    """The processes of a fake cluster, started by ``start`` (or ``with``) and stopped by ``stop``.

    ``apiserver``: run on this API server (a real kube-apiserver) instead of starting fakeapi;
    it is not stopped with the cluster."""

    config: ClusterConfig
    apiserver: APIServer | None = None
    #: Started components by name, in start order (``fakeapi``, ``kube-controller-manager``, ...).
    components: dict[str, Component] = field(default_factory=dict)
    node_names: list[str] = field(default_factory=list)
    #: Seconds ``start`` took: to ready when it waited.
    ready_seconds: float = 0.0
    #: Once stopped: the seconds each component took to end after the stop's SIGTERM, by name.
    stop_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def api(self) -> APIServer:
        assert self.apiserver is not None, "the cluster is not started"
        return self.apiserver

    @property
    def url(self) -> str:
        return self.api.url

    @property
    def kubeconfig(self) -> Path:
        return self.api.kubeconfig

    @property
    def http(self) -> httpx.Client:
        return self.api.http

    def start(self, *, wait: bool = True) -> Cluster:
        """Start every component, create the nodes and (``wait``) wait until the cluster is ready
        (see ``wait_ready``); on any failure, stop what was started and raise."""
        started = time.monotonic()
        config = self.config
        # Stages are read before anything starts: a wrong name fails at once.
        stages = load_stages(config.stages) if KWOK in config.components else []
        logs = config.logs.resolve()
        logs.mkdir(parents=True, exist_ok=True)
        try:
            service_account_key: Path | None = None
            if self.apiserver is None:
                controllers: tuple[str, ...] = ()
                if KCM in config.components:
                    # The real controllers replace fakeapi's own GC and namespace controller, and
                    # create what the ServiceAccount plugin needs; the token controller signs the
                    # tokens of service-account-token Secrets with the key fakeapi's tokens are
                    # signed and verified with.
                    service_account_key = write_signing_key(logs)
                    controllers = ("--controllers", "", "--enable-admission-plugins", "ServiceAccount",
                                   "--service-account-signing-key-file", str(service_account_key),
                                   "--service-account-key-file", str(service_account_key))
                server = FakeAPIServer(logs, config.kubeconfig.resolve(), *controllers, *config.fakeapi_args,
                                       port=config.port)
                self.components[server.name] = server
                self.apiserver = server
            qps = (f"--kube-api-qps={config.client_qps:g}", f"--kube-api-burst={2 * config.client_qps:.0f}") \
                if config.client_qps else ()
            if KCM in config.components:
                self._add(ControllerManager(logs, self.kubeconfig, *qps, *config.kcm_args,
                                            service_account_key=service_account_key))
            if SCHEDULER in config.components:
                self._add(Scheduler(logs, self.kubeconfig, *qps, *config.scheduler_args))
            if KWOK in config.components:
                kwok_file = logs / "kwok.yaml"
                kwok_file.write_text(kwok_config(stages, lease_parallelism=config.lease_parallelism))
                self._add(Kwok(logs, self.kubeconfig, kwok_file, *config.kwok_args))
            self.node_names = self.create_nodes(config.nodes, config.node_template)
            if wait:
                self.wait_ready(config.ready_timeout)
        except BaseException:
            self.stop()
            raise
        self.ready_seconds = time.monotonic() - started
        return self

    def _add(self, component: Component) -> None:
        self.components[component.name] = component

    def create_nodes(self, count: int, template: dict[str, Any] | None = None) -> list[str]:
        """Create ``count`` nodes from ``template`` (``node_manifests``), ``CREATE_CONCURRENCY``
        at a time; returns their names."""
        def create(node: dict[str, Any]) -> str:
            name = node["metadata"]["name"]
            for attempt in range(TRANSPORT_RETRIES):
                try:
                    response = self.http.post("/api/v1/nodes", json=node)
                except httpx.TransportError:
                    if attempt == TRANSPORT_RETRIES - 1:
                        raise
                    continue
                # A retried create whose first attempt got through finds its node there.
                if response.status_code == 201 or (attempt and response.status_code == 409):
                    return name
                raise ControlPlaneError(f"creating node {name}: {response.status_code} {response.text[:500]}")
            raise AssertionError("unreachable")

        pool = concurrent.futures.ThreadPoolExecutor(CREATE_CONCURRENCY)
        try:
            return list(pool.map(create, node_manifests(count, template)))
        finally:
            # On Ctrl-C or an error the nodes not yet sent are not sent.
            pool.shutdown(cancel_futures=True)

    def wait_ready(self, timeout: float) -> None:
        """Until the controllers hold their leader Leases and, with kwok, every node of this
        cluster is Ready (``node_ready``; untainted too when the controller manager runs)."""
        deadline = time.monotonic() + timeout
        leases = [name for key, name in ((KCM, "kube-controller-manager"), (SCHEDULER, "kube-scheduler"))
                  if key in self.config.components]
        wanted = set(self.node_names) if KWOK in self.config.components else set()
        # A LIST of 10,000 nodes is tens of MB: the bigger the cluster, the fewer of them.
        interval = max(0.2, len(wanted) / 2000)
        while True:
            self.check_running()
            try:
                missing = self._not_ready(leases, wanted)
            except httpx.TransportError as err:  # a busy server resetting a kept-alive connection
                missing = [f"the API server ({err!r})"]
            if not missing:
                return
            if time.monotonic() > deadline:
                raise ControlPlaneError(f"the cluster was not ready within {timeout:.0f} s: waiting for "
                                        f"{', '.join(missing)}")
            time.sleep(interval)

    def _not_ready(self, leases: list[str], nodes: set[str]) -> list[str]:
        """What the cluster still waits for: controllers without their Lease, nodes not Ready."""
        missing = [name for name in leases if not self._lease_held(name)]
        if missing or not nodes:
            return missing
        listing = self.http.get("/api/v1/nodes", params={"resourceVersion": "0"})
        listing.raise_for_status()
        untainted = KCM in self.config.components
        ready = {node["metadata"]["name"] for node in listing.json()["items"] if node_ready(node, untainted=untainted)}
        return [f"{len(nodes - ready)} of {len(nodes)} nodes"] if nodes - ready else []

    def _lease_held(self, name: str) -> bool:
        response = self.http.get(f"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/{name}")
        return response.status_code == 200 and bool(response.json().get("spec", {}).get("holderIdentity"))

    def check_running(self) -> None:
        """Raise ``ControlPlaneError`` (with its log's tail) if a component has exited."""
        for component in self.components.values():
            process = component.process
            if process is not None and process.poll() is not None:
                raise ControlPlaneError(f"{component.name} exited with {process.returncode}:\n{component.log_tail()}")

    def stop(self) -> None:
        """Stop the components this cluster started, all at once (``stop_components``): the
        stop takes the slowest one's time; a KeyboardInterrupt meanwhile kills them at once."""
        components, self.components = self.components, {}
        self.stop_seconds.update(zip(components, stop_components(list(components.values()))))

    def summary(self) -> str:
        """The one line ``fakeapi cluster`` prints when ready."""
        parts = [f"{len(self.node_names)} nodes" + (" Ready" if KWOK in self.config.components else "")]
        parts += [name for name in self.components if name != FakeAPIServer.name]
        return (f"fakeapi cluster: ready in {self.ready_seconds:.1f} s on {self.url}: {', '.join(parts)} "
                f"(kubeconfig: {self.kubeconfig}, logs: {self.config.logs.resolve()})")

    def stopped_summary(self) -> str:
        """The one line ``fakeapi cluster`` prints when stopped: what each component took."""
        took = ", ".join(f"{name} in {seconds:.1f} s" for name, seconds in self.stop_seconds.items())
        return f"fakeapi cluster: stopped{': ' + took if took else ''}"

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
