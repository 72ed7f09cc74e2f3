"""Registry write and read throughput (no HTTP): pod creates with and without managedFields
tracking, strategic-merge patches, server-side applies, and LIST pages from the watch cache.
Prints numbers; not a test. ``--quick`` for a short run."""

from __future__ import annotations

import argparse
import asyncio
import time

import orjson

from fakeapi.machinery.list_options import ListOptions
from fakeapi.registry.registry import Registry
from fakeapi.store import Store


def pod(i: int) -> dict:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"pod-{i}", "labels": {"app": f"app-{i % 50}", "tier": "web"},
                     "annotations": {"note": "x" * 200}},
        "spec": {"nodeName": f"node-{i % 100}", "containers": [
            {"name": "app", "image": "registry.example/app:1.2.3", "ports": [{"containerPort": 8080, "protocol": "TCP"}],
             "env": [{"name": f"E{j}", "value": "v" * 20} for j in range(10)],
             "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}},
            {"name": "sidecar", "image": "registry.example/sidecar:4"}]},
    }


def realistic_pod(i: int) -> dict:
    """A pod as a ReplicaSet creates it (~3.6 KB of JSON): probes, env, mounts, projected token,
    affinity, security contexts; what the kind's defaulting and validation walk through."""
    labels = {"app.kubernetes.io/name": "web", "app.kubernetes.io/instance": "web-prod",
              "app.kubernetes.io/component": "frontend", "pod-template-hash": "5d4f8c7b9"}
    probe = {"httpGet": {"path": "/healthz", "port": "http"}, "initialDelaySeconds": 5, "periodSeconds": 10}
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": f"web-5d4f8c7b9-{i:05d}", "labels": labels,
            "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9090",
                            "checksum/config": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                            "kubectl.kubernetes.io/restartedAt": "2024-05-01T10:00:00Z"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d4f8c7b9",
                                 "uid": "6a0e8f4e-2b1c-4d5e-9f3a-1b2c3d4e5f60", "controller": True,
                                 "blockOwnerDeletion": True}]},
        "spec": {
            "serviceAccountName": "web", "terminationGracePeriodSeconds": 60,
            "imagePullSecrets": [{"name": "registry-credentials"}],
            "securityContext": {"runAsNonRoot": True, "runAsUser": 10001, "fsGroup": 10001,
                                "seccompProfile": {"type": "RuntimeDefault"}},
            "initContainers": [{"name": "migrate", "image": "registry.example/web:1.2.3", "command": ["/app/migrate"],
                                "envFrom": [{"secretRef": {"name": "web-db"}}]}],
            "containers": [
                {"name": "web", "image": "registry.example/web:1.2.3", "args": ["--port=8080", "--log-level=info"],
                 "ports": [{"name": "http", "containerPort": 8080}, {"name": "metrics", "containerPort": 9090}],
                 "env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                         {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                         {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "web-db", "key": "password"}}},
                         *({"name": f"FEATURE_{j}", "value": "enabled"} for j in range(10))],
                 "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"cpu": "1", "memory": "512Mi"}},
                 "livenessProbe": probe, "readinessProbe": {**probe, "httpGet": {"path": "/ready", "port": "http"}},
                 "volumeMounts": [{"name": "config", "mountPath": "/etc/web"}, {"name": "tmp", "mountPath": "/tmp"},
                                  {"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                                   "readOnly": True}],
                 "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                     "capabilities": {"drop": ["ALL"]}}},
                {"name": "proxy", "image": "registry.example/envoy:1.30", "args": ["--config-path", "/etc/envoy/envoy.yaml"],
                 "ports": [{"containerPort": 15001}],
                 "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}}}],
            "volumes": [
                {"name": "config", "configMap": {"name": "web-config"}}, {"name": "tmp", "emptyDir": {}},
                {"name": "kube-api-access", "projected": {"sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                    {"downwardAPI": {"items": [{"path": "namespace",
                                                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}}],
            "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                                    "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "web"}}}}]}},
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                           "whenUnsatisfiable": "ScheduleAnyway",
                                           "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "web"}}}],
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}],
        },
    }


def rate(label: str, count: int, seconds: float) -> None:
    print(f"{label:<48} {count / seconds:>10,.0f}/s  ({seconds * 1e6 / count:,.0f} µs each)")


async def main(n: int) -> None:
    registry = Registry(Store())
    registry.start()
    pods = registry.resources[("", "v1", "pods")]
    start = time.perf_counter()
    for i in range(n):
        pods.create("default", pod(i))
    rate("create pod (untracked)", n, time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(n, 2 * n):
        pods.create("default", pod(i), manager="bench")
    rate("create pod (managedFields tracked)", n, time.perf_counter() - start)
    size = len(orjson.dumps(realistic_pod(0)))
    start = time.perf_counter()
    for i in range(n):
        pods.create("default", realistic_pod(i), manager="bench")
    rate(f"create realistic {size / 1024:.1f} KB pod (tracked)", n, time.perf_counter() - start)
    patch = orjson.dumps({"spec": {"containers": [{"name": "app", "image": "registry.example/app:2"}]}})
    start = time.perf_counter()
    for i in range(n, 2 * n):
        pods.patch("default", f"pod-{i}", "application/strategic-merge-patch+json", patch, manager="bench")
    rate("strategic-merge patch (tracked)", n, time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(n, 2 * n):
        applied = orjson.dumps({"apiVersion": "v1", "kind": "Pod",
                                "metadata": {"name": f"pod-{i}", "labels": {"applied": "yes"}}})
        pods.apply("default", f"pod-{i}", applied, manager="applier", force=False)
    rate("server-side apply of a label", n, time.perf_counter() - start)
    await asyncio.sleep(0.2)  # the cache catches up
    opts = ListOptions(resource_version="0")
    start = time.perf_counter()
    rounds = 20
    for _ in range(rounds):
        await pods.list("default", opts)
    rate(f"LIST {2 * n} pods from the cache (RV=0)", rounds, time.perf_counter() - start)
    await registry.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(500 if args.quick else 3000))
