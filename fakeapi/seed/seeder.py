"""Synthetic clusters: a spec, a deterministic plan of objects, and two ways to write it.

Spec: ``namespaces=10,nodes=50,pods=5000,deployments=200,statefulsets=50,revisions=10,
configmaps=100,configmap-bytes=2048,secrets=100,secret-bytes=1024,seed=1`` (any subset; missing
keys take the defaults of ``SeedSpec``), or the path of a YAML/JSON file holding the same keys.

* Each namespace has its ``default`` ServiceAccount, as kube-controller-manager makes it: the
  pods run as it, and kube's ServiceAccount admission refuses pods whose account is missing.
  Where a controller made it first, the seeder keeps that one.
* Nodes come with their heartbeat Lease in ``kube-node-lease`` (owned by the Node).
* Pods are split evenly over the deployments and statefulsets (as their replicas), else they
  are bare pods; they run on the nodes round-robin, or are Pending when there are none.
* Each deployment has one ReplicaSet; each statefulset has ``revisions`` ControllerRevisions.
* Workloads, configmaps and secrets go round-robin over the namespaces ``ns-0``, ``ns-1``...

Writers (the plan is the same for both):

* ``seed_over_http``: through the API of a running server (any kube-apiserver), with
  concurrency, honouring 429 ``Retry-After``; field manager ``fakeapi-seed``.
* ``seed_registry``: straight into a ``Registry`` on the server's loop before it accepts
  requests (``fakeapi serve --seed``). Same objects, but without managedFields: field
  tracking costs ten times the write itself, and a bulk load is the case that cannot pay it.

Owner references need the owner's uid, which the server assigns: the plan is written in waves
(owners before their dependents) and each dependent gets its owner's uid at write time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import ssl
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol, TextIO

import orjson
import yaml

from . import objects
from .objects import Json

#: The reason of kube's 409 for a name taken.
ALREADY_EXISTS = "AlreadyExists"
#: The field manager of HTTP seeding (kube requires one per write; the bulk path tracks none).
FIELD_MANAGER = "fakeapi-seed"


@dataclass(frozen=True, slots=True)
class SeedSpec:
    """What a synthetic cluster holds. Keys are written with dashes in the spec string."""

    namespaces: int = 1
    nodes: int = 0
    pods: int = 0
    deployments: int = 0
    statefulsets: int = 0
    #: ControllerRevisions per statefulset (its history).
    revisions: int = 1
    configmaps: int = 0
    configmap_bytes: int = 1024
    secrets: int = 0
    secret_bytes: int = 1024
    #: The random seed: the same spec gives the same objects.
    seed: int = 0

    def __str__(self) -> str:
        return ",".join(f"{f.name.replace('_', '-')}={getattr(self, f.name)}" for f in fields(self))


def parse_spec(text: str) -> SeedSpec:
    """``k=v,k=v`` or the path of a YAML/JSON mapping; raises ValueError on unknown keys."""
    path = Path(text)
    if path.suffix in (".yaml", ".yml", ".json") and path.is_file():
        loaded = yaml.safe_load(path.read_text()) or {}
        if not isinstance(loaded, dict):
            raise ValueError(f"{text}: a seed file holds a mapping")
        pairs: Iterable[tuple[str, object]] = loaded.items()
    else:
        pairs = [tuple(item.split("=", 1)) for item in filter(None, text.replace(" ", "").split(","))]  # type: ignore[misc]
    known = {f.name for f in fields(SeedSpec)}
    values: dict[str, int] = {}
    for pair in pairs:
        if len(pair) != 2:
            raise ValueError(f"seed spec items are key=value: {'='.join(map(str, pair))!r}")
        key, value = str(pair[0]).replace("-", "_"), pair[1]
        if key not in known:
            raise ValueError(f"unknown seed spec key {pair[0]!r}; known: {', '.join(sorted(k.replace('_', '-') for k in known))}")
        number = int(value)  # type: ignore[call-overload]
        if number < 0:
            raise ValueError(f"{pair[0]} must not be negative")
        values[key] = number
    spec = SeedSpec(**values)
    if spec.namespaces < 1 and (spec.pods or spec.deployments or spec.statefulsets or spec.configmaps or spec.secrets):
        raise ValueError("namespaced objects need namespaces >= 1")
    return spec


# ----------------------------------------------------------------------------- the plan

@dataclass(frozen=True, slots=True)
class ObjectKey:
    plural: str
    namespace: str | None
    name: str


@dataclass(slots=True)
class SeedObject:
    """One object to create, then (if ``status``) its status written through ``/status``,
    which is how kubelet and controllers set it (create resets status)."""

    group: str
    version: str
    plural: str
    body: Json
    status: Json | None = None
    #: Whose uid replaces the placeholder in ``body``'s first owner reference.
    owner: ObjectKey | None = None
    #: A controller may have made it already (a namespace's default ServiceAccount): the
    #: existing one is kept, and nothing may be owned by it.
    may_exist: bool = False

    @property
    def key(self) -> ObjectKey:
        meta = self.body["metadata"]
        return ObjectKey(self.plural, meta.get("namespace"), meta["name"])

    @property
    def path(self) -> str:
        """The collection's path: ``/api/v1/namespaces/ns/pods``."""
        root = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        ns = self.body["metadata"].get("namespace")
        return f"{root}/namespaces/{ns}/{self.plural}" if ns else f"{root}/{self.plural}"

    def stored_body(self) -> Json:
        """The body as finally stored (status included), for size checks."""
        return self.body if self.status is None else {**self.body, "status": self.status}


@dataclass(slots=True)
class Plan:
    """Objects in waves: everything in a wave may be written concurrently; a wave's owners
    are all in earlier waves (namespaces and nodes first)."""

    waves: list[list[SeedObject]] = field(default_factory=lambda: [[], [], [], []])

    def __len__(self) -> int:
        return sum(map(len, self.waves))

    def objects(self) -> Iterable[SeedObject]:
        for wave in self.waves:
            yield from wave


def plan(spec: SeedSpec) -> Plan:
    """Every object of the cluster ``spec`` describes, deterministically from ``spec.seed``."""
    rng = random.Random(spec.seed)
    out = Plan()
    clusters, owners, owned, leaves = out.waves
    namespaces = [f"ns-{i}" for i in range(spec.namespaces)]
    clusters.extend(SeedObject("", "v1", "namespaces", objects.namespace(ns)) for ns in namespaces)
    owners.extend(SeedObject("", "v1", "serviceaccounts", objects.default_service_account(ns), may_exist=True)
                  for ns in namespaces)
    for i in range(spec.nodes):
        node, status = objects.node(rng, i)
        clusters.append(SeedObject("", "v1", "nodes", node, status))
        lease = objects.node_lease(rng, node["metadata"]["name"])
        owners.append(SeedObject("coordination.k8s.io", "v1", "leases", lease,
                                 owner=ObjectKey("nodes", None, node["metadata"]["name"])))
    placer = _PodPlacer(spec.nodes)
    workloads = spec.deployments + spec.statefulsets
    replicas = [spec.pods // workloads + (i < spec.pods % workloads) for i in range(workloads)] if workloads else []
    names = _UniqueNames()
    for i in range(spec.deployments):
        ns = namespaces[i % len(namespaces)]
        name = names.take(ns, objects.app_name(rng, i))
        template = objects.pod_template(rng, name, {"app": name})
        deploy, deploy_status = objects.deployment(rng, name, ns, replicas[i], template)
        owners.append(SeedObject("apps", "v1", "deployments", deploy, deploy_status))
        replica_set, replica_set_status = objects.replica_set(deploy, objects.suffix(rng, 10))
        replica_set_name = replica_set["metadata"]["name"]
        owned.append(SeedObject("apps", "v1", "replicasets", replica_set, replica_set_status,
                                ObjectKey("deployments", ns, name)))
        for _ in range(replicas[i]):
            pod_name = names.take(ns, f"{replica_set_name}-{objects.suffix(rng, 5)}")
            ref = objects.owner_reference("apps/v1", "ReplicaSet", replica_set_name)
            leaves.append(_pod(rng, pod_name, ns, replica_set["spec"]["template"], replica_set["metadata"]["labels"],
                               ref, ObjectKey("replicasets", ns, replica_set_name), placer))
    for i in range(spec.statefulsets):
        ns = namespaces[(spec.deployments + i) % len(namespaces)]
        name = names.take(ns, f"{objects.app_name(rng, i)}-db")
        template = objects.pod_template(rng, name, {"app": name})
        hashes = [objects.suffix(rng, 10) for _ in range(max(spec.revisions, 1))]
        sts, sts_status = objects.stateful_set(rng, name, ns, replicas[spec.deployments + i], template, f"{name}-{hashes[-1]}")
        owners.append(SeedObject("apps", "v1", "statefulsets", sts, sts_status))
        sts_key = ObjectKey("statefulsets", ns, name)
        for revision, revision_hash in enumerate(hashes[: spec.revisions], start=1):
            owned.append(SeedObject("apps", "v1", "controllerrevisions",
                                    objects.controller_revision(sts, revision_hash, revision), owner=sts_key))
        for ordinal in range(sts["spec"]["replicas"]):
            pod_name = f"{name}-{ordinal}"
            labels = {"app": name, "apps.kubernetes.io/pod-index": str(ordinal),
                      "controller-revision-hash": sts_status["updateRevision"],
                      "statefulset.kubernetes.io/pod-name": pod_name}
            ref = objects.owner_reference("apps/v1", "StatefulSet", name)
            owned.append(_pod(rng, pod_name, ns, template, labels, ref, sts_key, placer))
    if not workloads:
        for i in range(spec.pods):
            ns = namespaces[i % len(namespaces)]
            name = f"pod-{i}"
            template = objects.pod_template(rng, name, {"app": name})
            owners.append(_pod(rng, name, ns, template, {"app": name}, None, None, placer))
    for i in range(spec.configmaps):
        ns = namespaces[i % len(namespaces)]
        owners.append(SeedObject("", "v1", "configmaps", objects.config_map(rng, f"config-{i}", ns, spec.configmap_bytes)))
    for i in range(spec.secrets):
        ns = namespaces[i % len(namespaces)]
        owners.append(SeedObject("", "v1", "secrets", objects.secret(rng, f"secret-{i}", ns, spec.secret_bytes)))
    return out


class _PodPlacer:
    """Round-robin over the nodes; the ordinal on a node picks the pod's IP in its CIDR."""

    def __init__(self, nodes: int) -> None:
        self._nodes = nodes
        self._placed = 0

    def place(self) -> tuple[int | None, int]:
        if not self._nodes:
            return None, 0
        index = self._placed % self._nodes
        ordinal = self._placed // self._nodes
        self._placed += 1
        return index, ordinal


class _UniqueNames:
    """Names per namespace; a clash (same random suffix twice) gets a counter appended."""

    def __init__(self) -> None:
        self._taken: set[tuple[str, str]] = set()

    def take(self, ns: str, name: str) -> str:
        candidate, n = name, 1
        while (ns, candidate) in self._taken:
            candidate, n = f"{name}-{n}", n + 1
        self._taken.add((ns, candidate))
        return candidate


def _pod(rng: random.Random, name: str, ns: str, template: Json, labels: Json, ref: Json | None,
         owner: ObjectKey | None, placer: _PodPlacer) -> SeedObject:
    node_index, ordinal = placer.place()
    body, status = objects.pod(rng, name, ns, template, labels, ref, node_index, ordinal)
    return SeedObject("", "v1", "pods", body, status, owner)


# ----------------------------------------------------------------------------- writing

class SeedError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class SeedResult:
    objects: int
    #: Requests made: a create per object, plus a status write for those with status.
    writes: int
    seconds: float

    @property
    def objects_per_second(self) -> float:
        return self.objects / self.seconds if self.seconds else 0.0

    def __str__(self) -> str:
        return (f"seeded {self.objects} objects ({self.writes} writes) in {self.seconds:.2f} s: "
                f"{self.objects_per_second:.0f} objects/s")


class Progress:
    """A one-line progress bar on a terminal (``\\r``-redrawn at most 5 times a second);
    silent when the stream is not a terminal, so logs and pipes stay clean."""

    WIDTH = 30

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self._label = label
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = self._stream.isatty()
        self._started = time.monotonic()
        self._drawn = 0.0

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self._enabled and (now - self._drawn >= 0.2 or self.done >= self.total):
            self._drawn = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        share = self.done / self.total if self.total else 1.0
        bar = "#" * int(share * self.WIDTH)
        rate = self.done / max(now - self._started, 1e-9)
        self._stream.write(f"\r{self._label} [{bar:<{self.WIDTH}}] {self.done}/{self.total} {rate:.0f}/s")
        self._stream.flush()

    def close(self) -> None:
        if self._enabled:
            self._draw(time.monotonic())
            self._stream.write("\n")
            self._stream.flush()


class _Writer(Protocol):
    async def create(self, obj: SeedObject) -> Json | None:
        """Create ``obj.body``; the stored object, or None when ``obj.may_exist`` and it does."""

    async def write_status(self, obj: SeedObject, created: Json) -> None:
        """Replace the created object's status with ``obj.status``."""


async def _write_plan(the_plan: Plan, writer: _Writer, concurrency: int, progress: Progress) -> SeedResult:
    """Waves in order; within a wave up to ``concurrency`` objects at a time."""
    started = time.perf_counter()
    uids: dict[ObjectKey, str] = {}
    writes = 0

    async def write(obj: SeedObject) -> None:
        nonlocal writes
        if obj.owner is not None:
            uid = uids.get(obj.owner)
            if uid is None:
                raise SeedError(f"{obj.key} is planned before its owner {obj.owner}")
            obj.body["metadata"]["ownerReferences"][0]["uid"] = uid
        created = await writer.create(obj)
        if created is None:  # there already, and kept
            progress.advance()
            return
        uids[obj.key] = created["metadata"]["uid"]
        writes += 1
        if obj.status is not None:
            await writer.write_status(obj, created)
            writes += 1
        progress.advance()

    for wave in the_plan.waves:
        queue = iter(wave)

        async def worker() -> None:
            for obj in queue:  # one shared iterator: each object is taken by one worker
                await write(obj)

        await asyncio.gather(*(worker() for _ in range(min(concurrency, len(wave)))))
    progress.close()
    return SeedResult(len(the_plan), writes, time.perf_counter() - started)


class RegistryWriter:
    """Writes straight into a registry (the caller's loop owns it). Writes are synchronous;
    every ``YIELD_EVERY`` objects it yields so the caches keep up with the store's events."""

    YIELD_EVERY = 500

    def __init__(self, registry: Any) -> None:
        self._registry = registry
        self._since_yield = 0

    async def create(self, obj: SeedObject) -> Json | None:
        # Nothing runs before the seeding on this path: no object may exist already.
        served = self._registry.resources[(obj.group, obj.version, obj.plural)]
        created: Json = orjson.loads(served.create(obj.body["metadata"].get("namespace"), obj.body))
        self._since_yield += 1
        if self._since_yield >= self.YIELD_EVERY:
            self._since_yield = 0
            await asyncio.sleep(0)
        return created

    async def write_status(self, obj: SeedObject, created: Json) -> None:
        served = self._registry.resources[(obj.group, obj.version, obj.plural)]
        meta = created["metadata"]
        served.update(meta.get("namespace"), meta["name"], {**created, "status": obj.status}, subresource="status")


class HttpWriter:
    """Writes through the API with httpx; a 429 is retried after its ``Retry-After``."""

    def __init__(self, client: Any) -> None:
        self._client = client

    async def create(self, obj: SeedObject) -> Json | None:
        return await self._send("POST", obj.path, obj.body, may_exist=obj.may_exist)

    async def write_status(self, obj: SeedObject, created: Json) -> None:
        await self._send("PUT", f"{obj.path}/{created['metadata']['name']}/status", {**created, "status": obj.status})

    async def _send(self, method: str, path: str, body: Json, *, may_exist: bool = False) -> Json | None:
        content = orjson.dumps(body)
        while True:
            resp = await self._client.request(method, path, content=content, params={"fieldManager": FIELD_MANAGER},
                                              headers={"Content-Type": "application/json"})
            if resp.status_code == 429:
                await asyncio.sleep(_retry_after(resp.headers.get("Retry-After")))
                continue
            if may_exist and resp.status_code == 409 and orjson.loads(resp.content).get("reason") == ALREADY_EXISTS:
                return None
            if resp.status_code >= 300:
                raise SeedError(f"{method} {path}: {resp.status_code} {_status_message(resp.content)}")
            result: Json = orjson.loads(resp.content)
            return result


def _retry_after(header: str | None) -> float:
    """Seconds to wait from a Retry-After header (kube sends whole seconds); 1 s if absent."""
    try:
        return max(float(header), 0.0) if header else 1.0
    except ValueError:
        return 1.0


def _status_message(content: bytes) -> str:
    try:
        return str(json.loads(content).get("message", content[:200]))
    except (ValueError, AttributeError):
        return content[:200].decode(errors="replace")


async def seed_over_http(url: str, spec: SeedSpec, concurrency: int = 16, *, token: str | None = None,
                         progress: TextIO | None = None, verify: ssl.SSLContext | bool = True) -> SeedResult:
    """Write ``spec``'s cluster through the API at ``url`` (``verify``: how to check an HTTPS
    server's certificate, e.g. a context trusting the real kube-apiserver's CA)."""
    import httpx  # the HTTP path's dependency only; serving never needs it

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    the_plan = plan(spec)
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=60, verify=verify) as client:
        return await _write_plan(the_plan, HttpWriter(client), concurrency,
                                 Progress(len(the_plan), "seeding", progress))


async def seed_registry(registry: Any, spec: SeedSpec, *, progress: TextIO | None = None) -> SeedResult:
    """Write ``spec``'s cluster into ``registry`` (a ``fakeapi.registry.Registry``) directly."""
    the_plan = plan(spec)
    # Writes are synchronous, so one "worker" is the fastest order and keeps waves intact.
    return await _write_plan(the_plan, RegistryWriter(registry), 1, Progress(len(the_plan), "seeding", progress))


def seed_at_startup(app: Any, spec: SeedSpec, report: Callable[[SeedResult], None] | None = None) -> None:
    """Make ``app`` (``fakeapi.http.create_app``'s) write ``spec``'s cluster into its registry
    once its server has started and before it accepts requests: uvicorn binds its sockets only
    after the lifespan's startup finishes."""
    started_lifespan = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(the_app: Any) -> AsyncIterator[Any]:
        async with started_lifespan(the_app) as state:
            result = await seed_registry(app.state.server.registry, spec)
            if report is not None:
                report(result)
            yield state

    app.router.lifespan_context = lifespan
