"""Bodies of the objects a synthetic cluster holds, shaped like what kubelet and the built-in
controllers write (field sets of kube 1.32 objects as ``kubectl get -o json`` shows them).

Every function is pure: the same ``random.Random`` state gives the same body. Server-owned
metadata (uid, resourceVersion, creationTimestamp) is left out; owner references carry
``OWNER_UID_PLACEHOLDER`` until the writer knows the owner's uid.
"""

from __future__ import annotations

import base64
import random
from datetime import UTC, datetime, timedelta
from typing import Any

Json = dict[str, Any]

#: Stands for the owner's uid in a planned body; the writer replaces it (same length as a uid,
#: so planned sizes are stored sizes).
OWNER_UID_PLACEHOLDER = "00000000-0000-0000-0000-000000000000"
#: apimachinery's util/rand alphabet: pod-template-hash, generated-name and volume suffixes.
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
#: Seeded objects' timestamps are offsets from this instant, so bodies do not depend on the clock.
BASE_TIME = datetime(2025, 1, 1, tzinfo=UTC)
_APPS = ("api", "web", "worker", "cache", "auth", "billing", "search", "ingest", "frontend", "metrics")
_IMAGES = (
    ("registry.k8s.io/e2e-test-images/agnhost", "2.52"),
    ("docker.io/library/nginx", "1.27.3"),
    ("docker.io/library/redis", "7.4.1"),
    ("quay.io/prometheus/node-exporter", "v1.8.2"),
)
_ZONES = ("zone-a", "zone-b", "zone-c")


def suffix(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(_NAME_ALPHABET) for _ in range(length))


def app_name(rng: random.Random, index: int) -> str:
    return f"{rng.choice(_APPS)}-{index}"


def timestamp(rng: random.Random, within_days: int = 30) -> str:
    moment = BASE_TIME + timedelta(seconds=rng.randrange(within_days * 86400))
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def owner_reference(api_version: str, kind: str, name: str, *, controller: bool = True) -> Json:
    ref: Json = {"apiVersion": api_version, "kind": kind, "name": name, "uid": OWNER_UID_PLACEHOLDER}
    if controller:
        ref["controller"] = True
        ref["blockOwnerDeletion"] = True
    return ref


# ----------------------------------------------------------------------------- cluster

def namespace(name: str) -> Json:
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}}}


def default_service_account(namespace: str) -> Json:
    """The ServiceAccount kube-controller-manager makes in every namespace, which its pods run
    as (and which the ServiceAccount admission plugin requires of them)."""
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": namespace}}


def node(rng: random.Random, index: int) -> tuple[Json, Json]:
    """A node and the status kubelet reports for it."""
    name = f"node-{index}"
    zone = _ZONES[index % len(_ZONES)]
    ip = node_ip(index)
    body = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {
            "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
            "node.kubernetes.io/instance-type": "n2-standard-8", "topology.kubernetes.io/region": "region-1",
            "topology.kubernetes.io/zone": zone,
        }, "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                           "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {"podCIDR": pod_cidr(index), "podCIDRs": [pod_cidr(index)],
                 "providerID": f"fake://region-1/{zone}/{name}"},
    }
    since = timestamp(rng)
    resources = {"cpu": "8", "ephemeral-storage": "101430960Ki", "hugepages-2Mi": "0", "memory": "32871748Ki", "pods": "110"}
    conditions = [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    status = {
        "addresses": [{"address": ip, "type": "InternalIP"}, {"address": name, "type": "Hostname"}],
        "allocatable": {**resources, "cpu": "7910m", "memory": "31721796Ki"},
        "capacity": resources,
        "conditions": [{"lastHeartbeatTime": since, "lastTransitionTime": since, "message": message,
                        "reason": reason, "status": value, "type": kind} for kind, value, reason, message in conditions],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "architecture": "amd64", "bootID": _uuid(rng), "containerRuntimeVersion": "containerd://1.7.24",
            "kernelVersion": "6.1.0-28-cloud-amd64", "kubeProxyVersion": "", "kubeletVersion": "v1.32.0",
            "machineID": _hex(rng, 32), "operatingSystem": "linux", "osImage": "Debian GNU/Linux 12 (bookworm)",
            "systemUUID": _uuid(rng),
        },
    }
    return body, status


def node_lease(rng: random.Random, node_name: str) -> Json:
    """The node's heartbeat Lease in kube-node-lease, owned by the Node as kubelet makes it."""
    renew = BASE_TIME + timedelta(seconds=rng.randrange(86400))
    return {
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": node_name, "namespace": "kube-node-lease",
                     "ownerReferences": [owner_reference("v1", "Node", node_name, controller=False)]},
        "spec": {"holderIdentity": node_name, "leaseDurationSeconds": 40,
                 "renewTime": renew.strftime("%Y-%m-%dT%H:%M:%S.%fZ")},
    }


def node_ip(index: int) -> str:
    return f"172.16.{index // 250}.{index % 250 + 2}"


def pod_cidr(index: int) -> str:
    return f"10.{64 + index // 256}.{index % 256}.0/24"


def pod_ip(node_index: int, ordinal: int) -> str:
    return f"10.{64 + node_index // 256}.{node_index % 256}.{ordinal % 253 + 2}"


# ----------------------------------------------------------------------------- workloads

def pod_template(rng: random.Random, app: str, labels: Json) -> Json:
    """A workload's pod template: a container with resources, env, probes and mounts, and a
    quarter of the time a sidecar."""
    image, tag = rng.choice(_IMAGES)
    port = rng.choice((8080, 8443, 9090, 6379))
    prefix = app.split("-")[0]
    containers = [{
        "name": prefix,
        "image": f"{image}:{tag}",
        "imagePullPolicy": "IfNotPresent",
        "ports": [{"containerPort": port, "name": "http", "protocol": "TCP"}],
        "env": [{"name": f"{prefix.upper()}_SETTING_{k}", "value": _hex(rng, rng.randrange(8, 13))}
                for k in range(rng.randrange(1, 3))],
        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"},
                      "requests": {"cpu": f"{rng.choice((50, 100, 250))}m", "memory": "128Mi"}},
        "readinessProbe": _probe("/readyz", port, 5),
        "volumeMounts": [{"mountPath": "/etc/config", "name": "config", "readOnly": True}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }]
    if rng.random() < 0.5:
        containers[0]["livenessProbe"] = _probe("/healthz", port, 10)
    if rng.random() < 0.25:  # a log-shipping sidecar: no ports, no probes
        containers.append({
            "name": "log-shipper", "image": "fluent/fluent-bit:3.2", "imagePullPolicy": "IfNotPresent",
            "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}}, "volumeMounts": [],
        })
    return {
        "metadata": {"labels": dict(labels)},
        "spec": {
            "containers": containers,
            "dnsPolicy": "ClusterFirst",
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {"runAsNonRoot": True, "runAsUser": 1000},
            "terminationGracePeriodSeconds": 30,
            "volumes": [{"configMap": {"defaultMode": 420, "name": f"{app}-config"}, "name": "config"}],
        },
    }


def _probe(path: str, port: int, period: int) -> Json:
    return {"failureThreshold": 3, "httpGet": {"path": path, "port": port, "scheme": "HTTP"},
            "periodSeconds": period, "successThreshold": 1, "timeoutSeconds": 1}


def deployment(rng: random.Random, name: str, ns: str, replicas: int, template: Json) -> tuple[Json, Json]:
    body = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name},
                     "annotations": {"deployment.kubernetes.io/revision": "1"}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}, "template": template,
                 "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
                 "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
    }
    since = timestamp(rng)
    status = {
        "observedGeneration": 1, "replicas": replicas, "updatedReplicas": replicas,
        "readyReplicas": replicas, "availableReplicas": replicas,
        "conditions": [
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
             "message": "Deployment has minimum availability.", "lastTransitionTime": since, "lastUpdateTime": since},
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
             "message": f'ReplicaSet "{name}" has successfully progressed.', "lastTransitionTime": since,
             "lastUpdateTime": since},
        ],
    }
    return body, status


def replica_set(deploy: Json, template_hash: str) -> tuple[Json, Json]:
    """The deployment's current ReplicaSet: its template plus ``pod-template-hash``."""
    name = deploy["metadata"]["name"]
    replicas = deploy["spec"]["replicas"]
    labels = {"app": name, "pod-template-hash": template_hash}
    template = {**deploy["spec"]["template"], "metadata": {"labels": labels}}
    body = {
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": f"{name}-{template_hash}", "namespace": deploy["metadata"]["namespace"], "labels": labels,
                     "annotations": {"deployment.kubernetes.io/desired-replicas": str(replicas),
                                     "deployment.kubernetes.io/max-replicas": str(replicas + (replicas + 3) // 4),
                                     "deployment.kubernetes.io/revision": "1"},
                     "ownerReferences": [owner_reference("apps/v1", "Deployment", name)]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": labels}, "template": template},
    }
    status = {"observedGeneration": 1, "replicas": replicas, "fullyLabeledReplicas": replicas,
              "readyReplicas": replicas, "availableReplicas": replicas}
    return body, status


def stateful_set(rng: random.Random, name: str, ns: str, replicas: int, template: Json,
                 update_revision: str) -> tuple[Json, Json]:
    body = {
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": {"replicas": replicas, "serviceName": name, "selector": {"matchLabels": {"app": name}},
                 "template": template, "podManagementPolicy": "OrderedReady", "revisionHistoryLimit": 10,
                 "updateStrategy": {"rollingUpdate": {"partition": 0}, "type": "RollingUpdate"},
                 "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"}},
    }
    status = {"observedGeneration": 1, "replicas": replicas, "readyReplicas": replicas,
              "currentReplicas": replicas, "updatedReplicas": replicas, "availableReplicas": replicas,
              "currentRevision": update_revision, "updateRevision": update_revision, "collisionCount": 0}
    return body, status


def controller_revision(sts: Json, revision_hash: str, revision: int) -> Json:
    """One entry of a StatefulSet's history: the template as a replace patch, labelled with
    the set's selector (how the StatefulSet controller lists its revisions)."""
    name = sts["metadata"]["name"]
    template = sts["spec"]["template"]
    containers = [{**c, "image": c["image"].rsplit(":", 1)[0] + f":r{revision}"} for c in template["spec"]["containers"]]
    return {
        "apiVersion": "apps/v1", "kind": "ControllerRevision",
        "metadata": {"name": f"{name}-{revision_hash}", "namespace": sts["metadata"]["namespace"],
                     "labels": {"app": name, "controller.kubernetes.io/hash": revision_hash},
                     "ownerReferences": [owner_reference("apps/v1", "StatefulSet", name)]},
        "data": {"spec": {"template": {**template, "spec": {**template["spec"], "containers": containers},
                                       "$patch": "replace"}}},
        "revision": revision,
    }


def pod(rng: random.Random, name: str, ns: str, template: Json, labels: Json, owner: Json | None,
        node_index: int | None, ordinal: int) -> tuple[Json, Json]:
    """A pod made from ``template`` and the status kubelet reports: Running on its node, or
    Pending (unschedulable) when there are no nodes."""
    spec = {**template["spec"], "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0, "serviceAccountName": "default",
            "tolerations": [
                {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
                {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
            ]}
    token_volume = f"kube-api-access-{suffix(rng, 5)}"
    spec["containers"] = [{**c, "volumeMounts": [*c["volumeMounts"], {
        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": token_volume, "readOnly": True}]}
        for c in spec["containers"]]
    spec["volumes"] = [*spec["volumes"], {"name": token_volume, "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
    ]}}]
    metadata: Json = {"name": name, "namespace": ns, "labels": labels}
    if owner is not None:
        metadata["ownerReferences"] = [owner]
    started = timestamp(rng)
    if node_index is None:
        status = {"phase": "Pending", "qosClass": "Burstable", "conditions": [{
            "type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastProbeTime": None,
            "lastTransitionTime": started, "message": "0/0 nodes are available: no nodes available to schedule pods."}]}
        return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}, status
    spec["nodeName"] = f"node-{node_index}"
    host, ip = node_ip(node_index), pod_ip(node_index, ordinal)
    status = {
        "phase": "Running", "qosClass": "Burstable", "startTime": started,
        "hostIP": host, "hostIPs": [{"ip": host}], "podIP": ip, "podIPs": [{"ip": ip}],
        "conditions": [{"type": kind, "status": "True", "lastTransitionTime": started}
                       for kind in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")],
        "containerStatuses": [{
            "name": c["name"], "image": c["image"], "imageID": f"{c['image'].split(':')[0]}@sha256:{_hex(rng, 64)}",
            "containerID": f"containerd://{_hex(rng, 64)}", "ready": True, "started": True, "restartCount": 0,
            "lastState": {}, "state": {"running": {"startedAt": started}},
        } for c in spec["containers"]],
    }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}, status


# ----------------------------------------------------------------------------- config

def config_map(rng: random.Random, name: str, ns: str, size: int) -> Json:
    """A ConfigMap whose ``data`` values add up to ``size`` bytes."""
    half = size // 2
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": ns, "labels": {"app.kubernetes.io/part-of": "seed"}},
            "data": {"settings.yaml": _hex(rng, half), "extra.conf": _hex(rng, size - half)}}


def secret(rng: random.Random, name: str, ns: str, size: int) -> Json:
    """An Opaque Secret whose base64 ``data`` is about ``size`` bytes."""
    raw = rng.randbytes(max(size * 3 // 4, 1))
    return {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": name, "namespace": ns, "labels": {"app.kubernetes.io/part-of": "seed"}},
            "data": {"token": base64.b64encode(raw).decode()}}


def _hex(rng: random.Random, length: int) -> str:
    return rng.randbytes((length + 1) // 2).hex()[:length]


def _uuid(rng: random.Random) -> str:
    h = _hex(rng, 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
