"""Profile 5, cluster churn like clusterloader2's load test: churners create deployments
(deployment, its ReplicaSet, its pods), scale them to a random size in [R/2, 3R/2] and delete
them (background propagation: the garbage collector removes ReplicaSet and pods), at
``POD_QPS`` pod writes per second in all; meanwhile every node's kubelet renews its Lease
every ``LEASE_PERIOD`` and watchers of pods measure delivery of the pods created.

Stages (fractions of --run-time): kubelets and watchers from the start; churners from 10%,
half of them until 50%, then all.
``-u`` is the number of churners. Knobs (env ``LOAD_<NAME>``): ``POD_QPS`` (default 10, CL2's;
its release-blocking runs use 20), ``REPLICAS`` sizes to pick from (default "5,5,30": small
and medium deployments), ``MAX_DEPLOYMENTS`` live per churner (5), ``NODES`` kubelets (50, at
most one per seeded node; not users: ``NodeHeartbeats``), ``WATCHERS`` (2), ``LEASE_PERIOD``
(10s). With several Locust processes each one's churners make ``POD_QPS`` / processes, so
run at least as many churners as processes. Samples: CREATE, PATCH, DELETE, UPDATE (leases),
GET, LIST, WATCH_OPEN, WATCH_EVENT. Thresholds: kube's 1 s SLO for single-object writes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import gevent
from locust import constant, task

from fakeapi.seed import objects as seed_objects
from kubeload import knobs, layout, report
from kubeload.client import MERGE_PATCH, stamp
from kubeload.shape import StagedShape
from kubeload.users import InformerUser, KubeUser, NodeHeartbeats, seeded_names
from profiles import PROFILES

POD_QPS = knobs.number("POD_QPS", 10)
SIZES = [int(size) for size in knobs.text("REPLICAS", "5,5,30").split(",")]
MAX_DEPLOYMENTS = knobs.integer("MAX_DEPLOYMENTS", 5)
report.install(PROFILES["cluster-churn"].thresholds)
NodeHeartbeats.install(knobs.integer("NODES", 50), knobs.seconds("LEASE_PERIOD", "10s"))


@dataclass
class Churned:
    """A deployment this churner made, and the pods it made for it."""

    namespace: str
    name: str
    replica_set: str
    replica_set_uid: str
    template: dict
    pods: list[str] = field(default_factory=list)


class Churner(KubeUser):
    starts_at = 0.1
    wait_time = constant(0)  # paced by pod writes: see _paced

    def on_start(self) -> None:
        super().on_start()
        self.rng = random.Random()
        self.live: list[Churned] = []
        namespaces = sorted({ns for ns, _ in seeded_names(self.kube, "/apis/apps/v1/deployments", "deployments")})
        self.namespace = self.rng.choice(namespaces or ["default"])

    def _paced(self) -> None:
        """Every churner waits its share, so all together make POD_QPS pod writes a second:
        the churners of each of the run's worker processes make POD_QPS / workers."""
        _index, workers_count = layout.slot(self.environment)
        gevent.sleep(self.environment.runner.user_classes_count["Churner"] * workers_count / POD_QPS)

    @task
    def churn(self) -> None:
        if len(self.live) < MAX_DEPLOYMENTS:
            self._create()
        elif self.rng.random() < 0.5:
            self._scale(self.rng.choice(self.live))
        else:
            self._delete(self.live.pop(self.rng.randrange(len(self.live))))

    def _create(self) -> None:
        ns, replicas = self.namespace, self.rng.choice(SIZES)
        name = f"churn-{seed_objects.suffix(self.rng, 8)}"
        template = seed_objects.pod_template(self.rng, name, {"app": name})
        deploy, _status = seed_objects.deployment(self.rng, name, ns, replicas, template)
        created = self._create_object("deployments", f"/apis/apps/v1/namespaces/{ns}/deployments", deploy)
        if created is None:
            return
        rs, _status = seed_objects.replica_set(deploy, seed_objects.suffix(self.rng, 10))
        rs["metadata"]["ownerReferences"][0]["uid"] = created["metadata"]["uid"]
        rs_created = self._create_object("replicasets", f"/apis/apps/v1/namespaces/{ns}/replicasets", rs)
        if rs_created is None:
            return
        churned = Churned(ns, name, rs["metadata"]["name"], rs_created["metadata"]["uid"], rs["spec"]["template"])
        self.live.append(churned)
        for _ in range(replicas):
            self._add_pod(churned)

    def _create_object(self, name: str, path: str, body: dict) -> dict | None:
        body["metadata"].setdefault("annotations", {}).update(stamp())
        response = self.kube.call("CREATE", name, "POST", path, body=body)
        return response.json() if response is not None else None

    def _add_pod(self, churned: Churned) -> None:
        name = f"{churned.replica_set}-{seed_objects.suffix(self.rng, 5)}"
        owner = seed_objects.owner_reference("apps/v1", "ReplicaSet", churned.replica_set)
        owner["uid"] = churned.replica_set_uid
        pod, _status = seed_objects.pod(self.rng, name, churned.namespace, churned.template,
                                        churned.template["metadata"]["labels"], owner, None, 0)
        if self._create_object("pods", f"/api/v1/namespaces/{churned.namespace}/pods", pod) is not None:
            churned.pods.append(name)
        self._paced()

    def _scale(self, churned: Churned) -> None:
        current = len(churned.pods)
        size = self.rng.randint(max(current // 2, 1), max(current * 3 // 2, 1))
        for kind, group in (("deployments", churned.name), ("replicasets", churned.replica_set)):
            self.kube.call("PATCH", kind, "PATCH", f"/apis/apps/v1/namespaces/{churned.namespace}/{kind}/{group}",
                           body={"metadata": {"annotations": stamp()}, "spec": {"replicas": size}}, headers=MERGE_PATCH)
        while len(churned.pods) < size:
            self._add_pod(churned)
        while len(churned.pods) > size:
            pod = churned.pods.pop()
            self.kube.call("DELETE", "pods", "DELETE", f"/api/v1/namespaces/{churned.namespace}/pods/{pod}")
            self._paced()

    def _delete(self, churned: Churned) -> None:
        """The garbage collector deletes the ReplicaSet and the pods (background propagation)."""
        self.kube.call("DELETE", "deployments", "DELETE",
                       f"/apis/apps/v1/namespaces/{churned.namespace}/deployments/{churned.name}",
                       body={"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"})
        for _ in churned.pods:
            self._paced()


class PodWatcher(InformerUser):
    fixed_count = knobs.integer("WATCHERS", 2)


class Stages(StagedShape):
    stages = ((0.5, 0.5), (1.0, 1.0))
