"""``FakeAPI``: what a test holds of a running fakeapi — its URL and kubeconfig, an HTTP client,
and helpers to apply manifests, read objects and wait for them."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
import orjson
import yaml

from ..server import Server
from ..seed.seeder import SeedResult, SeedSpec, seed_registry
from .embedded import EmbeddedServer
from .on_loop import OnLoop
from .report import Report
from .resources import ApiResource, ResourceResolver, checked_json

if TYPE_CHECKING:
    from ..cluster.cluster import Cluster

T = TypeVar("T")
Json = dict[str, Any]
#: What ``apply`` takes: YAML text (any number of documents), a file or a directory of
#: ``.yaml``/``.yml``/``.json`` files, one manifest, or several.
Manifests = str | os.PathLike[str] | Mapping[str, Any] | Iterable[Mapping[str, Any]]

FIELD_MANAGER = "fakeapi-pytest"
DEFAULT_NAMESPACE = "default"
WAIT_TIMEOUT = 10.0
#: Between two reads of an object in ``wait_for``; a GET on the embedded server is ~1 ms.
POLL_INTERVAL = 0.01
_MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


class KubeAPI:
    """What a test holds of any Kubernetes API server: its URL and kubeconfig, an HTTP client, and
    helpers to apply manifests, read objects and wait for them. Resource names are kubectl's:
    ``"pods"``, ``"pod"``, ``"po"``, ``"deployments.apps"``, ``"widgets.example.com"``."""

    #: Between two reads of an object in ``wait_for``.
    poll_interval = 0.1

    def __init__(self, url: str, kubeconfig: Path, http: httpx.Client) -> None:
        self.url = url
        self.kubeconfig = kubeconfig
        self.http = http
        self._resolver = ResourceResolver(http)

    # ------------------------------------------------------------------ objects

    def apply(self, manifests: Manifests, namespace: str | None = None) -> list[Json]:
        """Server-side apply each manifest in order (created when absent, updated when present,
        forced so a test's manifests always win), CRDs included: a custom resource may follow
        its CRD in the same YAML. Namespaced objects without a namespace go to ``namespace`` or
        ``default``; objects with only ``generateName`` are created. Returns the objects stored."""
        return [self._apply_one(manifest, namespace) for manifest in load_manifests(manifests)]

    def _apply_one(self, manifest: Mapping[str, Any], namespace: str | None) -> Json:
        resource = self._resolver.for_kind(manifest["apiVersion"], manifest["kind"])
        metadata = manifest.get("metadata") or {}
        ns = (metadata.get("namespace") or namespace or DEFAULT_NAMESPACE) if resource.namespaced else None
        name = metadata.get("name")
        if name is None:
            return checked_json(self.http.post(resource.path(ns), json=dict(manifest)))
        return checked_json(self.http.patch(
            resource.path(ns, name), params={"fieldManager": FIELD_MANAGER, "force": "true"},
            # JSON is YAML: the apply content type takes it as is.
            content=orjson.dumps(dict(manifest)), headers={"content-type": "application/apply-patch+yaml"},
        ))

    def get(self, resource: str, name: str, namespace: str | None = None) -> Json:
        """The object; ``ApiError`` (``status == 404``) when it does not exist."""
        return checked_json(self.http.get(self._object_path(resource, name, namespace)))

    def list(self, resource: str, namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None) -> list[Json]:
        """The items, in one namespace or (``namespace=None``) across all of them."""
        params = {k: v for k, v in (("labelSelector", label_selector), ("fieldSelector", field_selector)) if v}
        return checked_json(self.http.get(self._resource(resource).path(namespace), params=params))["items"]

    def delete(self, resource: str, name: str, namespace: str | None = None, *, missing_ok: bool = False) -> None:
        """Request deletion (finalizers may keep the object a while: see ``wait_for_deleted``)."""
        response = self.http.delete(self._object_path(resource, name, namespace))
        if not (missing_ok and response.status_code == 404):
            checked_json(response)

    # ------------------------------------------------------------------ waiting

    def wait_for(self, resource: str, name: str, namespace: str | None = None,
                 condition: Callable[[Json], object] = bool, timeout: float = WAIT_TIMEOUT) -> Json:
        """Poll the object until it exists and ``condition(obj)`` is truthy; returns it. Raises
        ``TimeoutError`` with the last state seen."""
        path = self._object_path(resource, name, namespace)
        last: Json | str = "never found"
        deadline = time.monotonic() + timeout
        while True:
            response = self.http.get(path)
            if response.status_code != 404:
                last = checked_json(response)
                if condition(last):
                    return last
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{resource} {name!r}: condition not met within {timeout}s; last seen: {last}")
            time.sleep(self.poll_interval)

    def wait_for_condition(self, resource: str, name: str, namespace: str | None = None, type: str = "Ready",
                           status: str = "True", timeout: float = WAIT_TIMEOUT) -> Json:
        """Wait until ``status.conditions`` has ``type`` with ``status`` (kubectl wait's rule)."""
        def holds(obj: Json) -> bool:
            conditions = (obj.get("status") or {}).get("conditions") or []
            return any(c.get("type") == type and c.get("status") == status for c in conditions)

        return self.wait_for(resource, name, namespace, holds, timeout)

    def wait_for_deleted(self, resource: str, name: str, namespace: str | None = None,
                         timeout: float = WAIT_TIMEOUT) -> None:
        """Wait until the object is gone (finalizers removed, garbage collected)."""
        path = self._object_path(resource, name, namespace)
        deadline = time.monotonic() + timeout
        while self.http.get(path).status_code != 404:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{resource} {name!r} still exists after {timeout}s")
            time.sleep(self.poll_interval)

    def wait_for_rollout(self, resource: str, name: str, namespace: str | None = None,
                         timeout: float = WAIT_TIMEOUT) -> Json:
        """Wait until a Deployment, StatefulSet or DaemonSet has rolled out, as ``kubectl rollout
        status`` decides it (``rollout_complete``); returns it."""
        return self.wait_for(resource, name, namespace, rollout_complete, timeout)

    # ------------------------------------------------------------------ paths

    def _resource(self, resource: str) -> ApiResource:
        return self._resolver.for_name(resource)

    def _object_path(self, resource: str, name: str, namespace: str | None) -> str:
        api_resource = self._resource(resource)
        return api_resource.path((namespace or DEFAULT_NAMESPACE) if api_resource.namespaced else None, name)


class FakeAPI(KubeAPI):
    """A running fakeapi as a test sees it: ``KubeAPI``'s helpers and the server itself (its
    faults, store, report)."""

    #: A GET on the embedded server is ~1 ms.
    poll_interval = POLL_INTERVAL

    def __init__(self, server: EmbeddedServer, http: httpx.Client) -> None:
        super().__init__(server.url, server.kubeconfig, http)
        self._server = server
        #: The server's faults API (``fakeapi.faults``), each call run on the server's loop.
        self.faults = OnLoop(server, "faults")

    # ------------------------------------------------------------------ the server itself

    def server_call(self, fn: Callable[[Server], T]) -> T:
        """``fn(server)`` on the server's loop, for anything the helpers do not cover. Coroutine
        functions are awaited there."""
        return self._server.run_on_loop(lambda: fn(self._server.server))

    def compact(self, revision: int | None = None) -> int:
        """Compact the store at ``revision`` (default: the current one); returns the revision."""
        return self.server_call(lambda server: server.compact(revision))

    def close_watches(self, *, group: str | None = None, resource: str | None = None,
                      namespace: str | None = None) -> int:
        """End open watches (all, or a group's, resource's, namespace's); returns how many."""
        return self.faults.close_watches(group=group, resource=resource, namespace=namespace)

    def restart(self) -> int:
        """An apiserver restart as clients see it: every watch ends and resuming from an older
        resourceVersion gets 410, so clients relist. Returns how many watches ended."""
        return self.faults.restart()

    def report(self, since: float | None = None, sort: str = "time") -> Report:
        """The per-client report (``GET /fakeapi/v1/report``) of this test's server: what each
        client cost over the last ``since`` seconds (default: the whole test), and the detectors
        that fired. The helpers' own requests are client ``fakeapi-testing``."""
        return Report(self.server_call(lambda server: server.clients.report(since, sort)))

    def assert_no_findings(self, *detectors: str, client: str | None = None) -> None:
        """Fail (``AssertionError`` with the evidence) if any of ``detectors`` (default: all)
        fired for ``client`` (a name or shell pattern; default: any client but the helpers')."""
        self.report().assert_no_findings(*detectors, client=client)

    def seed(self, spec: SeedSpec | Mapping[str, int]) -> SeedResult:
        """Write a synthetic cluster (``fakeapi.seed``: ``{"namespaces": 3, "pods": 100}``)
        straight into the registry, as ``fakeapi serve --seed`` does."""
        counts = spec if isinstance(spec, SeedSpec) else SeedSpec(**spec)
        return self.server_call(lambda server: seed_registry(server.registry, counts))


class FakeCluster(KubeAPI):
    """A running ``fakeapi.cluster.cluster.Cluster`` as a test sees it (the ``fakeapi_cluster`` fixture):
    ``KubeAPI``'s helpers on its fakeapi, the names of its fake ``nodes``, the folder of its
    components' ``logs``, and the cluster itself (``cluster.components``, to stop or restart
    one)."""

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster.url, cluster.kubeconfig, cluster.http)
        self.cluster = cluster
        self.nodes = cluster.node_names
        self.logs = cluster.config.logs

    def report(self, since: float | None = None, sort: str = "time") -> Report:
        """The per-client report of the cluster's fakeapi: what the controller manager's
        controllers, the scheduler and kwok cost it."""
        return Report.fetch(self.http, since, sort)


def rollout_complete(obj: Json) -> bool:
    """``kubectl rollout status``'s verdict (kubectl's ``polymorphichelpers/rollout_status.go``)
    on a Deployment, StatefulSet or DaemonSet: the controller has seen the latest spec, and
    every replica is updated and available (ready, for StatefulSets), none of the old left.
    A Deployment past its progress deadline raises ``RuntimeError``."""
    spec, status, metadata = obj.get("spec") or {}, obj.get("status") or {}, obj["metadata"]
    if metadata.get("generation", 0) > status.get("observedGeneration", 0):
        return False
    kind = obj["kind"]
    if kind == "Deployment":
        for condition in status.get("conditions") or []:
            if condition.get("type") == "Progressing" and condition.get("reason") == "ProgressDeadlineExceeded":
                raise RuntimeError(f"deployment {metadata['name']!r} exceeded its progress deadline")
        updated = status.get("updatedReplicas", 0)
        return (updated >= spec.get("replicas", 1) and status.get("replicas", 0) <= updated
                and status.get("availableReplicas", 0) >= updated)
    if kind == "StatefulSet":
        replicas = spec.get("replicas", 1)
        if not status.get("observedGeneration") or status.get("readyReplicas", 0) < replicas:
            return False
        rolling = (spec.get("updateStrategy") or {}).get("rollingUpdate")
        if rolling is not None:  # kube-apiserver defaults it (partition 0) for RollingUpdate
            return status.get("updatedReplicas", 0) >= replicas - rolling.get("partition", 0)
        return status.get("updateRevision") == status.get("currentRevision")
    if kind == "DaemonSet":
        desired = status.get("desiredNumberScheduled", 0)
        return status.get("updatedNumberScheduled", 0) >= desired and status.get("numberAvailable", 0) >= desired
    raise ValueError(f"a {kind} has no rollout")


def load_manifests(manifests: Manifests) -> list[Mapping[str, Any]]:
    """Manifests in document order; ``kind: List`` documents contribute their items."""
    if isinstance(manifests, Mapping):
        documents: Iterable[Any] = [manifests]
    elif isinstance(manifests, os.PathLike) or (isinstance(manifests, str) and _is_file_name(manifests)):
        documents = _documents_in(Path(manifests))
    elif isinstance(manifests, str):
        documents = yaml.safe_load_all(manifests)
    else:
        documents = manifests
    loaded: list[Mapping[str, Any]] = []
    for document in documents:
        if not document:
            continue  # empty YAML documents (a trailing ---)
        if str(document.get("kind", "")).endswith("List") and "items" in document:
            loaded.extend(document["items"])
        else:
            loaded.append(document)
    return loaded


def _is_file_name(text: str) -> bool:
    """A one-line string naming an existing path (YAML text always has a newline or a colon)."""
    return "\n" not in text and os.path.exists(text)


def _documents_in(path: Path) -> list[Any]:
    files = sorted(p for p in path.iterdir() if p.suffix in _MANIFEST_SUFFIXES) if path.is_dir() else [path]
    return [doc for file in files for doc in yaml.safe_load_all(file.read_text())]
