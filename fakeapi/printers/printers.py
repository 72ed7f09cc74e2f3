"""kube-apiserver's server-side printers (``pkg/printers/internalversion/printers.go``), per kind.

Each built-in resource whose storage sets ``printerstorage.TableConvertor`` prints with the column
definitions and row function kube registers in ``AddHandlers``; ``PRINTERS`` maps the resource
(group, plural) to that pair. kube-apiserver generates tables with ``GenerateOptions{Wide: true}``
(``pkg/printers/storage/storage.go``), so every row carries the priority-1 cells too and load
balancer addresses are never clipped. Resources without a printer (roles, cluster roles, limit
ranges, CRDs, ...) use ``rest.NewDefaultTableConvertor``: ``tables.py`` handles them. APIServices
print as kube-aggregator's own convertor does (``registry/apiservice/etcd``).

Rows are built from the stored JSON (v1 field names, defaults applied), not kube's internal
types; where a Go pointer's nil differs from a zero value the JSON's absence is read as nil.
Descriptions are ``SwaggerDoc()`` of the Go types kube names (``metav1.ObjectMeta``,
``extensionsv1beta1.DeploymentSpec``, ...), copied from k8s.io/api and apimachinery v0.35.0.
Quantities (PV/PVC capacity, quota usage, HPA values) are printed as stored, not re-canonicalised.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..machinery import schema

Obj = Mapping[str, Any]
Cell = str | int | float | bool | None

#: ``SwaggerDoc()`` of the fields kube's column definitions describe, by Go type.
_SWAGGER_DOCS: dict[str, dict[str, str]] = {
    'metav1.ObjectMeta': {
        'name': 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
        'creationTimestamp': 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
    },
    'apiv1.PodStatus': {
        'podIP': 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
        'nominatedNodeName': 'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
    },
    'apiv1.PodSpec': {
        'nodeName': 'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
        'readinessGates': 'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
        'nodeSelector': "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
    },
    'apiv1.ReplicationControllerSpec': {
        'replicas': 'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
        'selector': 'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
    },
    'apiv1.ReplicationControllerStatus': {
        'replicas': 'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
        'readyReplicas': 'The number of ready replicas for this replication controller.',
    },
    'apiv1.ServiceSpec': {
        'type': 'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
        'clusterIP': 'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
        'externalIPs': 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.',
        'ports': 'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
        'selector': 'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
    },
    'apiv1.Endpoints': {
        'subsets': 'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.',
    },
    'apiv1.NodeSystemInfo': {
        'kubeletVersion': 'Kubelet Version reported by the node.',
        'osImage': 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
        'kernelVersion': "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
        'containerRuntimeVersion': 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
    },
    'apiv1.NodeStatus': {
        'addresses': "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
    },
    'apiv1.Event': {
        'lastTimestamp': 'The time at which the most recent occurrence of this event was recorded.',
        'type': 'Type of this event (Normal, Warning), new types could be added in the future',
        'reason': "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
        'involvedObject': 'The object that this event is about.',
        'source': 'The component reporting this event. Should be a short machine understandable string.',
        'message': 'A human-readable description of the status of this operation.',
        'firstTimestamp': 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
        'count': 'The number of times this event has occurred.',
    },
    'apiv1.ObjectReference': {
        'fieldPath': 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
    },
    'apiv1.Secret': {
        'type': 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
        'data': "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    },
    'apiv1.ConfigMap': {
        'data': "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    },
    'apiv1.ServiceAccount': {
        'secrets': 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
    },
    'apiv1.PersistentVolumeSpec': {
        'capacity': "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
        'accessModes': 'accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes',
        'persistentVolumeReclaimPolicy': 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming',
        'claimRef': 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding',
        'volumeMode': 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.',
    },
    'apiv1.PersistentVolumeStatus': {
        'phase': 'phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase',
        'reason': 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
    },
    'apiv1.PersistentVolumeClaimSpec': {
        'volumeName': 'volumeName is the binding reference to the PersistentVolume backing this claim.',
        'volumeMode': 'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.',
    },
    'apiv1.PersistentVolumeClaimStatus': {
        'phase': 'phase represents the current phase of PersistentVolumeClaim.',
        'capacity': 'capacity represents the actual resources of the underlying volume.',
        'accessModes': 'accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1',
    },
    'extensionsv1beta1.ReplicaSetSpec': {
        'replicas': 'Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset',
        'selector': 'Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
    },
    'extensionsv1beta1.ReplicaSetStatus': {
        'replicas': 'Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset',
        'readyReplicas': 'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.',
    },
    'extensionsv1beta1.DaemonSetStatus': {
        'desiredNumberScheduled': 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
        'currentNumberScheduled': 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
        'numberReady': 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
        'updatedNumberScheduled': 'The total number of nodes that are running updated daemon pod',
        'numberAvailable': 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
    },
    'extensionsv1beta1.DaemonSetSpec': {
        'selector': 'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
    },
    'extensionsv1beta1.DeploymentSpec': {
        'selector': 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
    },
    'extensionsv1beta1.DeploymentStatus': {
        'updatedReplicas': 'Total number of non-terminating pods targeted by this deployment that have the desired template spec.',
        'availableReplicas': 'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.',
    },
    'extensionsv1beta1.NetworkPolicySpec': {
        'podSelector': 'Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.',
    },
    'batchv1.JobStatus': {
        'succeeded': 'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.',
    },
    'batchv1.JobSpec': {
        'selector': 'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
    },
    'batchv1beta1.CronJobSpec': {
        'schedule': 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.',
        'timeZone': 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones',
        'suspend': 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.',
    },
    'batchv1beta1.CronJobStatus': {
        'active': 'A list of pointers to currently running jobs.',
        'lastScheduleTime': 'Information when was the last time the job was successfully scheduled.',
    },
    'autoscalingv2beta1.HorizontalPodAutoscalerSpec': {
        'scaleTargetRef': 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.',
        'metrics': 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.',
        'minReplicas': 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.',
        'maxReplicas': 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.',
    },
    'autoscalingv2beta1.HorizontalPodAutoscalerStatus': {
        'currentReplicas': 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.',
    },
    'rbacv1beta1.RoleBinding': {
        'roleRef': 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
    },
    'rbacv1beta1.ClusterRoleBinding': {
        'roleRef': 'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
    },
    'coordinationv1.LeaseSpec': {
        'holderIdentity': 'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
    },
    'schedulingv1.PriorityClass': {
        'value': 'value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.',
        'globalDefault': 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.',
        'preemptionPolicy': 'preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.',
    },
    'storagev1.StorageClass': {
        'provisioner': 'provisioner indicates the type of the provisioner.',
        'reclaimPolicy': 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.',
        'volumeBindingMode': 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.',
        'allowVolumeExpansion': 'allowVolumeExpansion shows whether the storage class allow volume expand.',
    },
}


def doc(type_name: str, field_name: str) -> str:
    """``<type>{}.SwaggerDoc()[field]`` as kube-apiserver's printers read it."""
    return _SWAGGER_DOCS[type_name][field_name]


def api_doc(definition: str, field_name: str) -> str:
    """The ``SwaggerDoc()`` of a field of a k8s.io/api type (``flowcontrol.v1.FlowSchemaSpec``),
    which its OpenAPI definition's description is."""
    return schema.definitions()[f"io.k8s.api.{definition}"]["properties"][field_name].get("description", "")


# --- time --------------------------------------------------------------------------------------


def parse_time(value: Any) -> datetime | None:
    """A ``metav1.Time``/``MicroTime`` from its RFC 3339 JSON; ``None`` for the zero time."""
    if not value or not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def human_duration(seconds: float) -> str:
    """apimachinery's ``duration.HumanDuration`` (~2-3 significant figures), from seconds."""
    whole = int(seconds)  # Go's int(d.Seconds()) truncates toward zero
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        return f"{minutes}m{whole % 60}s" if whole % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return f"{hours // 24}d{hours % 24}h" if hours % 24 else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days_in_year = (hours // 24) % 365
        return f"{hours // 24 // 365}y{days_in_year}d" if days_in_year else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"


def since(value: Any, now: datetime) -> str:
    """``translateTimestampSince``: the age of a timestamp, ``<unknown>`` when unset."""
    moment = parse_time(value)
    if moment is None:
        return "<unknown>"
    return human_duration((now - moment).total_seconds())


def age(obj: Obj, now: datetime) -> str:
    return since(obj.get("metadata", {}).get("creationTimestamp"), now)


# --- formatting helpers shared by several printers ---------------------------------------------

def name(obj: Obj) -> str:
    return obj.get("metadata", {}).get("name", "")


def format_labels(labels: Mapping[str, str] | None) -> str:
    """``labels.FormatLabels``: ``k=v`` sorted by key, ``<none>`` when empty."""
    if not labels:
        return "<none>"
    return ",".join(f"{key}={labels[key]}" for key in sorted(labels))


_SELECTOR_OPERATORS = {"In": " in ", "NotIn": " notin "}


def selector_string(selector: Mapping[str, Any] | None) -> str | None:
    """``metav1.LabelSelectorAsSelector(s).String()``: requirements sorted by key; ``None`` when
    the selector is invalid."""
    if not selector:
        return ""
    requirements = [(key, f"{key}={value}") for key, value in (selector.get("matchLabels") or {}).items()]
    for expression in selector.get("matchExpressions") or []:
        key, operator = expression.get("key", ""), expression.get("operator")
        values = sorted(expression.get("values") or [])
        if operator in _SELECTOR_OPERATORS:
            requirements.append((key, f"{key}{_SELECTOR_OPERATORS[operator]}({','.join(values)})"))
        elif operator == "Exists":
            requirements.append((key, key))
        elif operator == "DoesNotExist":
            requirements.append((key, f"!{key}"))
        else:
            return None
    return ",".join(text for _, text in sorted(requirements, key=lambda requirement: requirement[0]))


def format_label_selector(selector: Mapping[str, Any] | None) -> str:
    """``metav1.FormatLabelSelector``: ``<none>`` for an empty selector, ``<error>`` if invalid."""
    text = selector_string(selector)
    if text is None:
        return "<error>"
    return text or "<none>"


def container_cells(pod_template: Obj | None) -> list[Cell]:
    """``layoutContainerCells``: the names and the images of a pod template's containers."""
    containers = ((pod_template or {}).get("spec") or {}).get("containers") or []
    return [",".join(c.get("name", "") for c in containers), ",".join(c.get("image", "") for c in containers)]


def bool_pointer(value: Any) -> str:
    """``printBoolPtr``."""
    if value is None:
        return "<unset>"
    return "True" if value else "False"


def int_or_string(value: Any) -> str:
    """``intstr.IntOrString.String()``."""
    return str(value)


def load_balancer_addresses(ingress: Sequence[Obj] | None) -> str:
    """``loadBalancerStatusStringer`` with ``wide``: unique IPs (else hostnames), sorted."""
    addresses = {entry.get("ip") or entry.get("hostname") for entry in ingress or ()}
    addresses.discard(None)
    addresses.discard("")
    return ",".join(sorted(addresses))


def condition_status(conditions: Sequence[Obj] | None, condition_type: str) -> str | None:
    """The status of the first condition of a type, ``None`` without one."""
    for condition in conditions or ():
        if condition.get("type") == condition_type:
            return condition.get("status")
    return None


# --- columns -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Column:
    """A ``metav1.TableColumnDefinition``."""

    name: str
    description: str
    type: str = "string"
    format: str = ""
    priority: int = 0

    def definition(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "format": self.format,
                "description": self.description, "priority": self.priority}


NAME = Column("Name", doc("metav1.ObjectMeta", "name"), format="name")
AGE = Column("Age", doc("metav1.ObjectMeta", "creationTimestamp"))
CONTAINERS = Column("Containers", "Names of each container in the template.", priority=1)
IMAGES = Column("Images", "Images referenced by each container in the template.", priority=1)


def selector_column(type_name: str) -> Column:
    return Column("Selector", doc(type_name, "selector"), priority=1)


Cells = Callable[[Obj, datetime], list[Cell]]
RowConditions = Callable[[Obj], list[dict[str, str]] | None]


def _no_conditions(obj: Obj) -> None:
    return None


@dataclass(frozen=True, slots=True)
class Printer:
    """One ``TableHandler``: its column definitions, the cells of a row and the row's conditions."""

    columns: tuple[Column, ...]
    cells: Cells
    conditions: RowConditions = field(default=_no_conditions)
    #: The order of a list's rows (a list handler that sorts its items): the list's by default.
    list_order: Callable[[Sequence[Obj]], Sequence[Obj]] = field(default=lambda objects: objects)

    def column_definitions(self) -> list[dict[str, Any]]:
        return [column.definition() for column in self.columns]


# --- pods --------------------------------------------------------------------------------------

_POD_SUCCEEDED = [{"type": "Completed", "status": "True", "reason": "Succeeded",
                   "message": "The pod has completed successfully."}]
_POD_FAILED = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]
#: ``node.NodeUnreachablePodReason``.
_NODE_LOST = "NodeLost"


def _is_restartable_init_container(container: Obj | None) -> bool:
    """``podutil.IsRestartableInitContainer``: a sidecar (``restartPolicy: Always``)."""
    return container is not None and container.get("restartPolicy") == "Always"


def _last_termination(status: Obj) -> datetime | None:
    terminated = (status.get("lastState") or {}).get("terminated")
    return None if terminated is None else parse_time(terminated.get("finishedAt"))


def _later(current: datetime | None, candidate: datetime | None) -> datetime | None:
    if candidate is None or (current is not None and current >= candidate):
        return current
    return candidate


def _terminated_reason(terminated: Obj, prefix: str) -> str:
    if terminated.get("reason"):
        return prefix + terminated["reason"]
    if terminated.get("signal"):
        return f"{prefix}Signal:{terminated['signal']}"
    return f"{prefix}ExitCode:{terminated.get('exitCode', 0)}"


@dataclass(slots=True)
class _PodTally:
    """What ``printPod`` accumulates over container statuses."""

    reason: str
    ready: int = 0
    restarts: int = 0
    last_restart: datetime | None = None
    sidecar_restarts: int = 0
    last_sidecar_restart: datetime | None = None


def _tally_init_containers(pod: Obj, tally: _PodTally) -> bool:
    """``printPod``'s init container loop; true while the pod is initializing."""
    init_containers = (pod.get("spec") or {}).get("initContainers") or []
    by_name = {container.get("name"): container for container in init_containers}
    for index, status in enumerate((pod.get("status") or {}).get("initContainerStatuses") or []):
        restarts, finished = status.get("restartCount", 0), _last_termination(status)
        tally.restarts += restarts
        tally.last_restart = _later(tally.last_restart, finished)
        sidecar = _is_restartable_init_container(by_name.get(status.get("name")))
        if sidecar:
            tally.sidecar_restarts += restarts
            tally.last_sidecar_restart = _later(tally.last_sidecar_restart, finished)
        state = status.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting")
        if terminated is not None and terminated.get("exitCode", 0) == 0:
            continue
        if sidecar and status.get("started") is True:
            if status.get("ready"):
                tally.ready += 1
            continue
        if terminated is not None:
            tally.reason = _terminated_reason(terminated, "Init:")
        elif waiting is not None and waiting.get("reason") and waiting["reason"] != "PodInitializing":
            tally.reason = "Init:" + waiting["reason"]
        else:
            tally.reason = f"Init:{index}/{len(init_containers)}"
        return True
    return False


def _tally_containers(pod: Obj, tally: _PodTally) -> None:
    """``printPod``'s app container loop, last status first (the first container's reason wins)."""
    status = pod.get("status") or {}
    tally.restarts, tally.last_restart = tally.sidecar_restarts, tally.last_sidecar_restart
    has_running = False
    for container in reversed(status.get("containerStatuses") or []):
        tally.restarts += container.get("restartCount", 0)
        tally.last_restart = _later(tally.last_restart, _last_termination(container))
        state = container.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting")
        if waiting is not None and waiting.get("reason"):
            tally.reason = waiting["reason"]
        elif terminated is not None:
            tally.reason = _terminated_reason(terminated, "")
        elif container.get("ready") and state.get("running") is not None:
            has_running = True
            tally.ready += 1
    if tally.reason == "Completed" and has_running:
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or ())
        tally.reason = "Running" if ready else "NotReady"


def _readiness_gates(pod: Obj) -> str:
    gates = (pod.get("spec") or {}).get("readinessGates") or []
    if not gates:
        return "<none>"
    conditions = (pod.get("status") or {}).get("conditions")
    passed = sum(condition_status(conditions, gate.get("conditionType")) == "True" for gate in gates)
    return f"{passed}/{len(gates)}"


def _pod_cells(pod: Obj, now: datetime) -> list[Cell]:
    """``printPod`` (wide)."""
    spec, status, metadata = pod.get("spec") or {}, pod.get("status") or {}, pod.get("metadata") or {}
    phase = status.get("phase", "")
    tally = _PodTally(reason=status.get("reason") or phase)
    for condition in status.get("conditions") or ():
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            tally.reason = "SchedulingGated"
    initializing = _tally_init_containers(pod, tally)
    if not initializing or condition_status(status.get("conditions"), "Initialized") == "True":
        _tally_containers(pod, tally)
    if metadata.get("deletionTimestamp") and status.get("reason") == _NODE_LOST:
        tally.reason = "Unknown"
    elif metadata.get("deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        tally.reason = "Terminating"
    restarts = str(tally.restarts)
    if tally.restarts and tally.last_restart is not None:
        restarts = f"{tally.restarts} ({human_duration((now - tally.last_restart).total_seconds())} ago)"
    total = len(spec.get("containers") or []) + sum(
        map(_is_restartable_init_container, spec.get("initContainers") or []))
    pod_ips = status.get("podIPs") or []
    return [
        name(pod), f"{tally.ready}/{total}", tally.reason, restarts, age(pod, now),
        (pod_ips[0].get("ip") if pod_ips else "") or "<none>", spec.get("nodeName") or "<none>",
        status.get("nominatedNodeName") or "<none>", _readiness_gates(pod),
    ]


def _pod_conditions(pod: Obj) -> list[dict[str, str]] | None:
    phase = (pod.get("status") or {}).get("phase")
    return _POD_SUCCEEDED if phase == "Succeeded" else _POD_FAILED if phase == "Failed" else None


# --- workloads ---------------------------------------------------------------------------------

def _template(obj: Obj) -> Obj:
    return (obj.get("spec") or {}).get("template") or {}


def _deployment_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printDeployment`` (wide)."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    selector = selector_string(spec.get("selector"))
    return [name(obj), f"{status.get('readyReplicas', 0)}/{spec.get('replicas', 1)}",
            status.get("updatedReplicas", 0), status.get("availableReplicas", 0), age(obj, now),
            *container_cells(_template(obj)), "<invalid>" if selector is None else selector]


def _pod_template_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printPodTemplate``."""
    template = obj.get("template") or {}
    return [name(obj), *container_cells(template), format_labels((template.get("metadata") or {}).get("labels"))]


def _replica_set_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printReplicaSet`` (wide)."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [name(obj), spec.get("replicas", 1), status.get("replicas", 0), status.get("readyReplicas", 0),
            age(obj, now), *container_cells(_template(obj)), format_label_selector(spec.get("selector"))]


def _replication_controller_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printReplicationController`` (wide)."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [name(obj), spec.get("replicas", 1), status.get("replicas", 0), status.get("readyReplicas", 0),
            age(obj, now), *container_cells(spec.get("template")), format_labels(spec.get("selector"))]


def _stateful_set_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printStatefulSet`` (wide)."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [name(obj), f"{status.get('readyReplicas', 0)}/{spec.get('replicas', 1)}", age(obj, now),
            *container_cells(_template(obj))]


def _daemon_set_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printDaemonSet`` (wide)."""
    status = obj.get("status") or {}
    counts = [status.get(key, 0) for key in ("desiredNumberScheduled", "currentNumberScheduled", "numberReady",
                                             "updatedNumberScheduled", "numberAvailable")]
    node_selector = (_template(obj).get("spec") or {}).get("nodeSelector")
    return [name(obj), *counts, format_labels(node_selector), age(obj, now), *container_cells(_template(obj)),
            format_label_selector((obj.get("spec") or {}).get("selector"))]


_JOB_STATUS_BY_CONDITION = (("Complete", "Complete"), ("Failed", "Failed"))
_JOB_LATE_STATUS_BY_CONDITION = (("Suspended", "Suspended"), ("FailureTarget", "FailureTarget"))


def _job_status(obj: Obj) -> str:
    conditions = (obj.get("status") or {}).get("conditions")
    for condition_type, status in _JOB_STATUS_BY_CONDITION:
        if condition_status(conditions, condition_type) == "True":
            return status
    if (obj.get("metadata") or {}).get("deletionTimestamp"):
        return "Terminating"
    for condition_type, status in _JOB_LATE_STATUS_BY_CONDITION:
        if condition_status(conditions, condition_type) == "True":
            return status
    return "Running"


def _job_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printJob`` (wide)."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    succeeded = status.get("succeeded", 0)
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{spec['completions']}"
    elif (spec.get("parallelism") or 0) > 1:
        completions = f"{succeeded}/1 of {spec['parallelism']}"
    else:
        completions = f"{succeeded}/1"
    start, completion = parse_time(status.get("startTime")), parse_time(status.get("completionTime"))
    duration = "" if start is None else human_duration(((completion or now) - start).total_seconds())
    return [name(obj), _job_status(obj), completions, duration, age(obj, now), *container_cells(_template(obj)),
            format_label_selector(spec.get("selector"))]


def _cron_job_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printCronJob`` (wide)."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    job_spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    last_schedule = status.get("lastScheduleTime")
    time_zone = "<none>" if spec.get("timeZone") is None else spec["timeZone"]
    return [name(obj), spec.get("schedule", ""), time_zone, bool_pointer(spec.get("suspend")),
            len(status.get("active") or []), "<none>" if last_schedule is None else since(last_schedule, now),
            age(obj, now), *container_cells(job_spec.get("template")), format_label_selector(job_spec.get("selector"))]


# --- services and networking -------------------------------------------------------------------

def _service_external_ip(spec: Obj, status: Obj) -> str:
    """``getServiceExternalIP`` (wide)."""
    service_type, external_ips = spec.get("type"), spec.get("externalIPs") or []
    if service_type in ("ClusterIP", "NodePort"):
        return ",".join(external_ips) or "<none>"
    if service_type == "LoadBalancer":
        balancer = load_balancer_addresses((status.get("loadBalancer") or {}).get("ingress"))
        if external_ips:
            return ",".join([*(balancer.split(",") if balancer else []), *external_ips])
        return balancer or "<pending>"
    if service_type == "ExternalName":
        return spec.get("externalName", "")
    return "<unknown>"


def _service_ports(ports: Sequence[Obj]) -> str:
    """``makePortString``."""
    return ",".join(
        f"{port.get('port', 0)}:{port['nodePort']}/{port.get('protocol', '')}" if port.get("nodePort", 0) > 0
        else f"{port.get('port', 0)}/{port.get('protocol', '')}" for port in ports)


def _service_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printService`` (wide)."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    cluster_ips = spec.get("clusterIPs") or []
    return [name(obj), spec.get("type", ""), cluster_ips[0] if cluster_ips else "<none>",
            _service_external_ip(spec, status), _service_ports(spec.get("ports") or []) or "<none>", age(obj, now),
            format_labels(spec.get("selector"))]


def _join_host_port(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _format_endpoints(subsets: Sequence[Obj]) -> str:
    """``formatEndpoints`` with every port."""
    if not subsets:
        return "<none>"
    shown: list[str] = []
    limit, count = 3, 0
    for subset in subsets:
        addresses = subset.get("addresses") or []
        targets = [address.get("ip", "") for address in addresses]
        per_port = [[_join_host_port(ip, port.get("port", 0)) for ip in targets] for port in subset.get("ports") or []]
        for entries in per_port or [targets]:
            count += len(entries)
            shown.extend(entries[:max(0, limit - len(shown))])
    if count > limit:
        return f"{','.join(shown)} + {count - limit} more..."
    return ",".join(shown)


def _endpoints_cells(obj: Obj, now: datetime) -> list[Cell]:
    return [name(obj), _format_endpoints(obj.get("subsets") or []), age(obj, now)]


def _ingress_hosts(rules: Sequence[Obj]) -> str:
    """``formatHosts``."""
    hosts: list[str] = []
    more = False
    for rule in rules:
        if len(hosts) == 3:
            more = True
        if not more and rule.get("host"):
            hosts.append(rule["host"])
    if not hosts:
        return "*"
    return f"{','.join(hosts)} + {len(rules) - 3} more..." if more else ",".join(hosts)


def _ingress_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printIngress`` (wide)."""
    spec = obj.get("spec") or {}
    ingress = ((obj.get("status") or {}).get("loadBalancer") or {}).get("ingress")
    return [name(obj), spec.get("ingressClassName") or "<none>", _ingress_hosts(spec.get("rules") or []),
            load_balancer_addresses(ingress), "80, 443" if spec.get("tls") else "80", age(obj, now)]


def _network_policy_cells(obj: Obj, now: datetime) -> list[Cell]:
    return [name(obj), format_label_selector((obj.get("spec") or {}).get("podSelector") or {}), age(obj, now)]


# --- cluster and configuration -----------------------------------------------------------------

_NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
_NODE_ROLE_LABEL = "kubernetes.io/role"


def _node_roles(labels: Mapping[str, str]) -> str:
    """``findNodeRoles``: ``node-role.kubernetes.io/<role>`` keys and ``kubernetes.io/role`` values."""
    roles = {key.removeprefix(_NODE_ROLE_PREFIX) for key in labels if key.startswith(_NODE_ROLE_PREFIX)}
    roles.discard("")
    if labels.get(_NODE_ROLE_LABEL):
        roles.add(labels[_NODE_ROLE_LABEL])
    return ",".join(sorted(roles)) or "<none>"


def _node_address(status: Obj, address_type: str) -> str:
    return next((a.get("address", "") for a in status.get("addresses") or () if a.get("type") == address_type),
                "<none>")


def _node_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printNode`` (wide)."""
    status, info = obj.get("status") or {}, (obj.get("status") or {}).get("nodeInfo") or {}
    ready = None
    for condition in status.get("conditions") or ():  # kube keeps the last Ready condition
        if condition.get("type") == "Ready":
            ready = condition.get("status")
    states = ["Unknown" if ready is None else "Ready" if ready == "True" else "NotReady"]
    if (obj.get("spec") or {}).get("unschedulable"):
        states.append("SchedulingDisabled")
    return [name(obj), ",".join(states), _node_roles((obj.get("metadata") or {}).get("labels") or {}), age(obj, now),
            info.get("kubeletVersion", ""), _node_address(status, "InternalIP"), _node_address(status, "ExternalIP"),
            info.get("osImage") or "<unknown>", info.get("kernelVersion") or "<unknown>",
            info.get("containerRuntimeVersion") or "<unknown>"]


def _namespace_cells(obj: Obj, now: datetime) -> list[Cell]:
    return [name(obj), (obj.get("status") or {}).get("phase", ""), age(obj, now)]


def _config_map_cells(obj: Obj, now: datetime) -> list[Cell]:
    return [name(obj), len(obj.get("data") or {}) + len(obj.get("binaryData") or {}), age(obj, now)]


def _secret_cells(obj: Obj, now: datetime) -> list[Cell]:
    return [name(obj), obj.get("type", ""), len(obj.get("data") or {}), age(obj, now)]


def _name_and_age_cells(obj: Obj, now: datetime) -> list[Cell]:
    """The printers of only a name and an age (``printServiceAccount``, ``printDeviceClass``,
    ``printResourceClaimTemplate``)."""
    return [name(obj), age(obj, now)]


def _lease_cells(obj: Obj, now: datetime) -> list[Cell]:
    return [name(obj), (obj.get("spec") or {}).get("holderIdentity") or "", age(obj, now)]


def _priority_class_cells(obj: Obj, now: datetime) -> list[Cell]:
    return [name(obj), obj.get("value", 0), bool(obj.get("globalDefault")), age(obj, now),
            obj.get("preemptionPolicy") or ""]


_DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                              "storageclass.beta.kubernetes.io/is-default-class")


def _storage_class_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printStorageClass``, the default marked from its own annotation (``IsDefaultAnnotation``)."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    is_default = any(annotations.get(key) == "true" for key in _DEFAULT_CLASS_ANNOTATIONS)
    return [name(obj) + (" (default)" if is_default else ""), obj.get("provisioner", ""),
            obj.get("reclaimPolicy") or "Delete", obj.get("volumeBindingMode") or "Immediate",
            bool(obj.get("allowVolumeExpansion")), age(obj, now)]


def _subjects(subjects: Sequence[Obj]) -> list[Cell]:
    """``rbac.SubjectsStrings``: users, groups and service accounts, each joined with ``, ``."""
    by_kind: dict[str, list[str]] = {"User": [], "Group": [], "ServiceAccount": []}
    for subject in subjects:
        kind, subject_name = subject.get("kind"), subject.get("name", "")
        if kind == "ServiceAccount":
            by_kind[kind].append(f"{subject.get('namespace', '')}/{subject_name}")
        elif kind in by_kind:
            by_kind[kind].append(subject_name)
    return [", ".join(by_kind["User"]), ", ".join(by_kind["Group"]), ", ".join(by_kind["ServiceAccount"])]


def _role_binding_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printRoleBinding`` and ``printClusterRoleBinding`` (wide)."""
    role = obj.get("roleRef") or {}
    return [name(obj), f"{role.get('kind', '')}/{role.get('name', '')}", age(obj, now),
            *_subjects(obj.get("subjects") or [])]


def _pdb_cells(obj: Obj, now: datetime) -> list[Cell]:
    spec = obj.get("spec") or {}
    bounds = [int_or_string(spec[key]) if spec.get(key) is not None else "N/A"
              for key in ("minAvailable", "maxUnavailable")]
    return [name(obj), *bounds, (obj.get("status") or {}).get("disruptionsAllowed", 0), age(obj, now)]


def _resource_quota_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printResourceQuota``: ``resource: used/hard`` by resource name, ``limits.*`` apart."""
    status = obj.get("status") or {}
    hard, used = status.get("hard") or {}, status.get("used") or {}
    requests, limits = [], []
    for resource in sorted(hard):
        column = limits if resource.split(".")[0] == "limits" and "." in resource else requests
        column.append(f"{resource}: {used.get(resource, '0')}/{hard[resource]}")
    return [name(obj), ", ".join(requests), ", ".join(limits), age(obj, now)]


# --- storage -----------------------------------------------------------------------------------

_ACCESS_MODES = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                 ("ReadWriteOncePod", "RWOP"))
_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def _access_modes(modes: Sequence[str] | None) -> str:
    """``helper.GetAccessModesAsString``."""
    present = set(modes or ())
    return ",".join(short for mode, short in _ACCESS_MODES if mode in present)


def _storage_class_name(obj: Obj) -> str:
    """``GetPersistentVolumeClass`` / ``GetPersistentVolumeClaimClass``: the beta annotation first."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    if _STORAGE_CLASS_ANNOTATION in annotations:
        return annotations[_STORAGE_CLASS_ANNOTATION]
    return (obj.get("spec") or {}).get("storageClassName") or ""


def _volume_phase(obj: Obj) -> str:
    if (obj.get("metadata") or {}).get("deletionTimestamp"):
        return "Terminating"
    return (obj.get("status") or {}).get("phase", "")


def _persistent_volume_cells(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    claim = spec.get("claimRef")
    return [name(obj), str((spec.get("capacity") or {}).get("storage", "0")), _access_modes(spec.get("accessModes")),
            spec.get("persistentVolumeReclaimPolicy", ""), _volume_phase(obj),
            "" if claim is None else f"{claim.get('namespace', '')}/{claim.get('name', '')}",
            _storage_class_name(obj), spec.get("volumeAttributesClassName") or "<unset>", status.get("reason", ""),
            age(obj, now), spec.get("volumeMode") or "<unset>"]


def _persistent_volume_claim_cells(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    bound = bool(spec.get("volumeName"))
    capacity = str((status.get("capacity") or {}).get("storage", "0")) if bound else ""
    return [name(obj), _volume_phase(obj), spec.get("volumeName", ""), capacity,
            _access_modes(status.get("accessModes")) if bound else "", _storage_class_name(obj),
            spec.get("volumeAttributesClassName") or "<unset>", age(obj, now), spec.get("volumeMode") or "<unset>"]


# --- events ------------------------------------------------------------------------------------

#: events.k8s.io/v1 field names of core/v1 Event fields (``pkg/apis/events/v1`` conversion).
_EVENTS_V1_NAMES = {"regarding": "involvedObject", "note": "message", "deprecatedSource": "source",
                    "deprecatedFirstTimestamp": "firstTimestamp", "deprecatedLastTimestamp": "lastTimestamp",
                    "deprecatedCount": "count", "reportingController": "reportingComponent"}


def _as_core_event(event: Obj) -> Obj:
    if not str(event.get("apiVersion", "")).startswith("events.k8s.io/"):
        return event
    return {_EVENTS_V1_NAMES.get(key, key): value for key, value in event.items()}


def _event_source(event: Obj) -> str:
    """``formatEventSource``, falling back to the reporting controller and instance."""
    source = event.get("source") or {}
    component = source.get("component") or event.get("reportingComponent") or ""
    instance = source.get("host") or event.get("reportingInstance") or ""
    return f"{component}, {instance}" if instance else component


def _event_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printEvent`` (wide), for core/v1 and events.k8s.io/v1 events alike."""
    event = _as_core_event(obj)
    first_seen = since(event.get("firstTimestamp") or event.get("eventTime"), now)
    last_seen = since(event["lastTimestamp"], now) if event.get("lastTimestamp") else first_seen
    count = event.get("count") or 1  # singleton events of the new API have no count
    series = event.get("series")
    if series is not None:
        last_seen, count = since(series.get("lastObservedTime"), now), series.get("count", 0)
    involved = event.get("involvedObject") or {}
    target = involved.get("kind", "").lower()
    if involved.get("name"):
        target = f"{target}/{involved['name']}"
    return [last_seen, event.get("type", ""), event.get("reason", ""), target, involved.get("fieldPath", ""),
            _event_source(event), event.get("message", "").strip(), first_seen, count, name(obj)]


# --- autoscaling -------------------------------------------------------------------------------

def _metric_target(spec_target: Obj, current: Obj | None, label: str) -> str:
    """One resource or container resource metric of ``formatHPAMetrics``."""
    if spec_target.get("averageValue") is not None:
        observed = (current or {}).get("averageValue")
        return f"{label}: {'<unknown>' if observed is None else observed}/{spec_target['averageValue']}"
    observed_percent = (current or {}).get("averageUtilization")
    target_percent = spec_target.get("averageUtilization")
    return (f"{label}: {'<unknown>' if observed_percent is None else f'{observed_percent}%'}/"
            f"{'<auto>' if target_percent is None else f'{target_percent}%'}")


def _value_metric(spec_target: Obj, current: Obj | None) -> str:
    """An external or object metric: an average value ``(avg)``, else a value."""
    if spec_target.get("averageValue") is not None:
        observed = (current or {}).get("averageValue")
        return f"{'<unknown>' if observed is None else observed}/{spec_target['averageValue']} (avg)"
    observed = "<unknown>" if current is None else current.get("value", "0")
    return f"{observed}/{spec_target.get('value', '0')}"


_METRIC_FIELDS = {"External": "external", "Pods": "pods", "Object": "object", "Resource": "resource",
                  "ContainerResource": "containerResource"}


def _format_metric(metric: Obj, status: Obj | None) -> str:
    source_field = _METRIC_FIELDS.get(metric.get("type", ""))
    if source_field is None:
        return "<unknown type>"
    source = metric.get(source_field) or {}
    current_source = None if status is None else status.get(source_field)
    current = None if current_source is None else current_source.get("current") or {}
    target = source.get("target") or {}
    if source_field in ("resource", "containerResource"):
        return _metric_target(target, current, source.get("name", ""))
    if source_field == "pods":
        observed = "<unknown>" if current is None else current.get("averageValue", "0")
        return f"{observed}/{target.get('averageValue', '0')}"
    return _value_metric(target, current)


#: autoscaling/v2 ``SetDefaults_HorizontalPodAutoscaler``: no metric is an 80% CPU utilization target.
_DEFAULT_CPU_UTILIZATION = 80
_DEFAULT_METRIC = {"type": "Resource", "resource": {"name": "cpu", "target": {
    "type": "Utilization", "averageUtilization": _DEFAULT_CPU_UTILIZATION}}}


def _hpa_metrics(hpa: Obj) -> list[tuple[Obj, Obj | None]]:
    """The metrics and their current values in autoscaling/v2 form; an autoscaling/v1 CPU target
    becomes the Resource metric the internal type holds."""
    spec, status = hpa.get("spec") or {}, hpa.get("status") or {}
    if hpa.get("apiVersion") == "autoscaling/v1":
        target = {"type": "Utilization", "averageUtilization": spec.get("targetCPUUtilizationPercentage",
                                                                        _DEFAULT_CPU_UTILIZATION)}
        current = status.get("currentCPUUtilizationPercentage")
        metric = {"type": "Resource", "resource": {"name": "cpu", "target": target}}
        observed = None if current is None else {"resource": {"current": {"averageUtilization": current}}}
        return [(metric, observed)]
    statuses = status.get("currentMetrics") or []
    metrics = spec.get("metrics") or [_DEFAULT_METRIC]
    return [(metric, statuses[i] if i < len(statuses) else None) for i, metric in enumerate(metrics)]


def _hpa_targets(hpa: Obj) -> str:
    """``formatHPAMetrics``: the first two metrics, then ``+ N more...``."""
    metrics = _hpa_metrics(hpa)
    if not metrics:
        return "<none>"
    shown = ", ".join(_format_metric(metric, current) for metric, current in metrics[:2])
    return f"{shown} + {len(metrics) - 2} more..." if len(metrics) > 2 else shown


def _hpa_cells(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    target = spec.get("scaleTargetRef") or {}
    min_replicas = spec.get("minReplicas")
    return [name(obj), f"{target.get('kind', '')}/{target.get('name', '')}", _hpa_targets(obj),
            "<unset>" if min_replicas is None else str(min_replicas), spec.get("maxReplicas", 0),
            status.get("currentReplicas", 0), age(obj, now)]


def _api_service_cells(obj: Obj, now: datetime) -> list[Cell]:
    """kube-aggregator's ``apiservice/etcd`` ``ConvertToTable``."""
    spec = obj.get("spec") or {}
    service = spec.get("service")
    available = "Unknown"
    for condition in (obj.get("status") or {}).get("conditions") or ():
        if condition.get("type") == "Available":
            status, reason = condition.get("status", ""), condition.get("reason")
            available = f"{status} ({reason})" if status != "True" and reason else status
            break
    where = "Local" if service is None else f"{service.get('namespace', '')}/{service.get('name', '')}"
    return [name(obj), where, available, age(obj, now)]


def _flow_schema_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printFlowSchema``: MissingPL is the Dangling condition's status, "?" without one."""
    spec = obj.get("spec") or {}
    method = spec.get("distinguisherMethod")
    missing = next((c.get("status", "") for c in (obj.get("status") or {}).get("conditions") or ()
                    if c.get("type") == "Dangling"), "?")
    return [name(obj), (spec.get("priorityLevelConfiguration") or {}).get("name", ""),
            spec.get("matchingPrecedence", 0), "<none>" if method is None else method.get("type", ""),
            age(obj, now), missing]


def _flow_schema_order(objects: Sequence[Obj]) -> Sequence[Obj]:
    """``apihelpers.FlowSchemaSequence``: by matching precedence, then name."""
    return sorted(objects, key=lambda fs: ((fs.get("spec") or {}).get("matchingPrecedence", 0), name(fs)))


def _priority_level_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printPriorityLevelConfiguration``: a limited level's shares and queuing, else "<none>"."""
    spec = obj.get("spec") or {}
    limited = spec.get("limited")
    shares = queues = hand_size = queue_length_limit = "<none>"
    if limited is not None:
        shares = limited.get("nominalConcurrencyShares", 0)
        queuing = (limited.get("limitResponse") or {}).get("queuing")
        if queuing is not None:
            queues, hand_size, queue_length_limit = (queuing.get(key, 0) for key in ("queues", "handSize",
                                                                                       "queueLengthLimit"))
    return [name(obj), spec.get("type", ""), shares, queues, hand_size, queue_length_limit, age(obj, now)]


def _service_cidr_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printServiceCIDR``."""
    return [name(obj), ",".join((obj.get("spec") or {}).get("cidrs") or ()), age(obj, now)]


def _ip_address_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printIPAddress``: the parent as ``resource[.group][/namespace]/name``, lower case."""
    parent = (obj.get("spec") or {}).get("parentRef")
    parent_name = "<none>"
    if parent is not None:
        group = parent.get("group") or ""
        parent_name = (parent.get("resource") or "") + (f".{group}" if group else "")
        parent_name = parent_name.lower()
        if parent.get("namespace"):
            parent_name += "/" + parent["namespace"]
        parent_name += "/" + (parent.get("name") or "")
    return [name(obj), parent_name, age(obj, now)]


def _runtime_class_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printRuntimeClass``."""
    return [name(obj), obj.get("handler", ""), age(obj, now)]


def _resource_claim_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printResourceClaim``: ``resourceClaimState``."""
    deleted = bool((obj.get("metadata") or {}).get("deletionTimestamp"))
    status = obj.get("status") or {}
    states = ["deleted"] if deleted else []
    if status.get("allocation") is None:
        if not deleted:
            states.append("pending")
    else:
        states.append("allocated")
        if status.get("reservedFor"):
            states.append("reserved")
    return [name(obj), ",".join(states), age(obj, now)]


def _resource_slice_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printResourceSlice``."""
    spec = obj.get("spec") or {}
    return [name(obj), spec.get("nodeName", ""), spec.get("driver", ""), (spec.get("pool") or {}).get("name", ""),
            age(obj, now)]


def _volume_attachment_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printVolumeAttachment``."""
    spec = obj.get("spec") or {}
    return [name(obj), spec.get("attacher", ""), (spec.get("source") or {}).get("persistentVolumeName") or "",
            spec.get("nodeName", ""), (obj.get("status") or {}).get("attached", False), age(obj, now)]


def _csi_node_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printCSINode``."""
    return [name(obj), len((obj.get("spec") or {}).get("drivers") or ()), age(obj, now)]


def _controller_revision_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printControllerRevision``: the controller as ``kind[.group]/name``, lower case."""
    owner = next((ref for ref in (obj.get("metadata") or {}).get("ownerReferences") or () if ref.get("controller")),
                 None)
    controller = "<none>"
    if owner is not None:
        api_version = owner.get("apiVersion") or ""
        group = api_version.rpartition("/")[0]
        kind = owner.get("kind") or ""
        group_kind = kind + (f".{group}" if group else "")
        controller = f"{group_kind.lower()}/{owner.get('name', '')}" if group_kind else owner.get("name", "")
    return [name(obj), controller, obj.get("revision", 0), age(obj, now)]


def _list_with_more(items: Sequence[str], limit: int = 3) -> str:
    """``listWithMoreString``: the first ``limit`` items, then how many more; ``<unset>`` for none."""
    text = ",".join(items[:limit])
    if len(items) > limit:
        return f"{text} + {len(items) - limit} more..."
    return text or "<unset>"


def _endpoint_slice_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printEndpointSlice``: ports by number (else name, else ``*``), the endpoints' addresses."""
    ports = [_endpoint_port(port) for port in obj.get("ports") or ()]
    addresses = [address for endpoint in obj.get("endpoints") or () for address in endpoint.get("addresses") or ()]
    return [name(obj), obj.get("addressType", ""), _list_with_more(ports), _list_with_more(addresses), age(obj, now)]


def _endpoint_port(port: Obj) -> str:
    if port.get("port") is not None:
        return str(port["port"])
    return "*" if port.get("name") is None else port["name"]


def _webhook_configuration_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printMutatingWebhook`` and ``printValidatingWebhook``: how many webhooks."""
    return [name(obj), len(obj.get("webhooks") or ()), age(obj, now)]


def _admission_policy_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printValidatingAdmissionPolicy``: the validations, the params' ``apiVersion/kind``."""
    spec = obj.get("spec") or {}
    param_kind = spec.get("paramKind")
    kind = "<unset>" if param_kind is None else f"{param_kind.get('apiVersion', '')}/{param_kind.get('kind', '')}"
    return [name(obj), len(spec.get("validations") or ()), kind, age(obj, now)]


def _admission_policy_binding_cells(obj: Obj, now: datetime) -> list[Cell]:
    """``printValidatingAdmissionPolicyBinding``: the param by ``namespace/name`` (``*`` for no
    namespace: it cannot tell a cluster-scoped param), else its selector as Go's generated
    ``String()`` prints the ``LabelSelector``."""
    spec = obj.get("spec") or {}
    param_ref = spec.get("paramRef")
    param = "<unset>"
    if param_ref is not None:
        if param_ref.get("name"):
            param = f"{param_ref.get('namespace') or '*'}/{param_ref['name']}"
        elif param_ref.get("selector") is not None:
            param = _go_label_selector_string(param_ref["selector"])
    return [name(obj), spec.get("policyName", ""), param, age(obj, now)]


def _go_label_selector_string(selector: Obj) -> str:
    """gogo-protobuf's ``(*LabelSelector).String()``: labels sorted, expressions as listed."""
    labels = selector.get("matchLabels") or {}
    label_text = "".join(f"{key}: {labels[key]}," for key in sorted(labels))
    expressions = "".join(
        f"LabelSelectorRequirement{{Key:{e.get('key', '')},Operator:{e.get('operator', '')},"
        f"Values:[{' '.join(e.get('values') or ())}],}},"
        for e in selector.get("matchExpressions") or ())
    return f"&LabelSelector{{MatchLabels:map[string]string{{{label_text}}},MatchExpressions:[]LabelSelectorRequirement{{{expressions}}},}}"


# --- the printers ------------------------------------------------------------------------------

_POD = Printer((
    NAME,
    Column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
    Column("Status", "The aggregate status of the containers in this pod."),
    Column("Restarts", "The number of times the containers in this pod have been restarted and when the last "
                       "container in this pod has restarted."),
    AGE,
    Column("IP", doc("apiv1.PodStatus", "podIP"), priority=1),
    Column("Node", doc("apiv1.PodSpec", "nodeName"), priority=1),
    Column("Nominated Node", doc("apiv1.PodStatus", "nominatedNodeName"), priority=1),
    Column("Readiness Gates", doc("apiv1.PodSpec", "readinessGates"), priority=1),
), _pod_cells, _pod_conditions)

_READY = Column("Ready", "Number of the pod with ready state")
_DEPLOYMENT = Printer((
    NAME, _READY,
    Column("Up-to-date", doc("extensionsv1beta1.DeploymentStatus", "updatedReplicas")),
    Column("Available", doc("extensionsv1beta1.DeploymentStatus", "availableReplicas")),
    AGE, CONTAINERS, IMAGES, selector_column("extensionsv1beta1.DeploymentSpec"),
), _deployment_cells)

def _replicas_columns(kind: str) -> tuple[Column, ...]:
    """Replica sets' and replication controllers' shared columns (``kind``: the doc type prefix,
    e.g. ``extensionsv1beta1.ReplicaSet``)."""
    return (
        NAME,
        Column("Desired", doc(f"{kind}Spec", "replicas"), type="integer"),
        Column("Current", doc(f"{kind}Status", "replicas"), type="integer"),
        Column("Ready", doc(f"{kind}Status", "readyReplicas"), type="integer"),
        AGE, CONTAINERS, IMAGES, selector_column(f"{kind}Spec"),
    )


_POD_TEMPLATE = Printer((
    NAME,
    Column("Containers", CONTAINERS.description),
    Column("Images", IMAGES.description),
    Column("Pod Labels", "The labels for the pod template."),
), _pod_template_cells)

_REPLICA_SET = Printer(_replicas_columns("extensionsv1beta1.ReplicaSet"), _replica_set_cells)
_REPLICATION_CONTROLLER = Printer(_replicas_columns("apiv1.ReplicationController"), _replication_controller_cells)

_STATEFUL_SET = Printer((NAME, _READY, AGE, CONTAINERS, IMAGES), _stateful_set_cells)

_DAEMON_SET = Printer((
    NAME,
    *(Column(title, doc("extensionsv1beta1.DaemonSetStatus", status_field), type="integer")
      for title, status_field in (("Desired", "desiredNumberScheduled"), ("Current", "currentNumberScheduled"),
                                  ("Ready", "numberReady"), ("Up-to-date", "updatedNumberScheduled"),
                                  ("Available", "numberAvailable"))),
    Column("Node Selector", doc("apiv1.PodSpec", "nodeSelector")),
    AGE, CONTAINERS, IMAGES, selector_column("extensionsv1beta1.DaemonSetSpec"),
), _daemon_set_cells)

_JOB = Printer((
    NAME,
    Column("Status", "Status of the job."),
    Column("Completions", doc("batchv1.JobStatus", "succeeded")),
    Column("Duration", "Time required to complete the job."),
    AGE, CONTAINERS, IMAGES, selector_column("batchv1.JobSpec"),
), _job_cells)

_CRON_JOB = Printer((
    NAME,
    Column("Schedule", doc("batchv1beta1.CronJobSpec", "schedule")),
    Column("Timezone", doc("batchv1beta1.CronJobSpec", "timeZone")),
    Column("Suspend", doc("batchv1beta1.CronJobSpec", "suspend"), type="boolean"),
    Column("Active", doc("batchv1beta1.CronJobStatus", "active"), type="integer"),
    Column("Last Schedule", doc("batchv1beta1.CronJobStatus", "lastScheduleTime")),
    AGE, CONTAINERS, IMAGES, selector_column("batchv1.JobSpec"),
), _cron_job_cells)

_SERVICE = Printer((
    NAME,
    Column("Type", doc("apiv1.ServiceSpec", "type")),
    Column("Cluster-IP", doc("apiv1.ServiceSpec", "clusterIP")),
    Column("External-IP", doc("apiv1.ServiceSpec", "externalIPs")),
    Column("Port(s)", doc("apiv1.ServiceSpec", "ports")),
    AGE, selector_column("apiv1.ServiceSpec"),
), _service_cells)

_ENDPOINTS = Printer((NAME, Column("Endpoints", doc("apiv1.Endpoints", "subsets")), AGE), _endpoints_cells)

_INGRESS = Printer((
    NAME,
    Column("Class", "The name of the IngressClass resource that should be used for additional configuration"),
    Column("Hosts", "Hosts that incoming requests are matched against before the ingress rule"),
    Column("Address", "Address is a list containing ingress points for the load-balancer"),
    Column("Ports", "Ports of TLS configurations that open"),
    AGE,
), _ingress_cells)

_NETWORK_POLICY = Printer((
    NAME, Column("Pod-Selector", doc("extensionsv1beta1.NetworkPolicySpec", "podSelector")), AGE,
), _network_policy_cells)

_NODE = Printer((
    NAME,
    Column("Status", "The status of the node"),
    Column("Roles", "The roles of the node"),
    AGE,
    Column("Version", doc("apiv1.NodeSystemInfo", "kubeletVersion")),
    Column("Internal-IP", doc("apiv1.NodeStatus", "addresses"), priority=1),
    Column("External-IP", doc("apiv1.NodeStatus", "addresses"), priority=1),
    Column("OS-Image", doc("apiv1.NodeSystemInfo", "osImage"), priority=1),
    Column("Kernel-Version", doc("apiv1.NodeSystemInfo", "kernelVersion"), priority=1),
    Column("Container-Runtime", doc("apiv1.NodeSystemInfo", "containerRuntimeVersion"), priority=1),
), _node_cells)

_EVENT = Printer((
    Column("Last Seen", doc("apiv1.Event", "lastTimestamp")),
    Column("Type", doc("apiv1.Event", "type")),
    Column("Reason", doc("apiv1.Event", "reason")),
    Column("Object", doc("apiv1.Event", "involvedObject")),
    Column("Subobject", doc("apiv1.ObjectReference", "fieldPath"), priority=1),
    Column("Source", doc("apiv1.Event", "source"), priority=1),
    Column("Message", doc("apiv1.Event", "message")),
    Column("First Seen", doc("apiv1.Event", "firstTimestamp"), priority=1),
    Column("Count", doc("apiv1.Event", "count"), priority=1),
    Column("Name", doc("metav1.ObjectMeta", "name"), format="name", priority=1),
), _event_cells)

_NAMESPACE = Printer((NAME, Column("Status", "The status of the namespace"), AGE), _namespace_cells)
_SECRET = Printer((
    NAME, Column("Type", doc("apiv1.Secret", "type")), Column("Data", doc("apiv1.Secret", "data")), AGE,
), _secret_cells)
_NAME_AND_AGE = Printer((NAME, AGE), _name_and_age_cells)
_CONFIG_MAP = Printer((NAME, Column("Data", doc("apiv1.ConfigMap", "data")), AGE), _config_map_cells)

_PERSISTENT_VOLUME = Printer((
    NAME,
    Column("Capacity", doc("apiv1.PersistentVolumeSpec", "capacity")),
    Column("Access Modes", doc("apiv1.PersistentVolumeSpec", "accessModes")),
    Column("Reclaim Policy", doc("apiv1.PersistentVolumeSpec", "persistentVolumeReclaimPolicy")),
    Column("Status", doc("apiv1.PersistentVolumeStatus", "phase")),
    Column("Claim", doc("apiv1.PersistentVolumeSpec", "claimRef")),
    Column("StorageClass", "StorageClass of the pv"),
    Column("VolumeAttributesClass", "VolumeAttributesClass of the pv"),
    Column("Reason", doc("apiv1.PersistentVolumeStatus", "reason")),
    AGE,
    Column("VolumeMode", doc("apiv1.PersistentVolumeSpec", "volumeMode"), priority=1),
), _persistent_volume_cells)

_PERSISTENT_VOLUME_CLAIM = Printer((
    NAME,
    Column("Status", doc("apiv1.PersistentVolumeClaimStatus", "phase")),
    Column("Volume", doc("apiv1.PersistentVolumeClaimSpec", "volumeName")),
    Column("Capacity", doc("apiv1.PersistentVolumeClaimStatus", "capacity")),
    Column("Access Modes", doc("apiv1.PersistentVolumeClaimStatus", "accessModes")),
    Column("StorageClass", "StorageClass of the pvc"),
    Column("VolumeAttributesClass", "VolumeAttributesClass of the pvc"),
    AGE,
    Column("VolumeMode", doc("apiv1.PersistentVolumeClaimSpec", "volumeMode"), priority=1),
), _persistent_volume_claim_cells)

_LEASE = Printer((NAME, Column("Holder", doc("coordinationv1.LeaseSpec", "holderIdentity")), AGE),
                 _lease_cells)

_PRIORITY_CLASS = Printer((
    NAME,
    Column("Value", doc("schedulingv1.PriorityClass", "value"), type="integer"),
    Column("Global-Default", doc("schedulingv1.PriorityClass", "globalDefault"), type="boolean"),
    AGE,
    Column("PreemptionPolicy", doc("schedulingv1.PriorityClass", "preemptionPolicy")),
), _priority_class_cells)

_STORAGE_CLASS = Printer((
    NAME,
    *(Column(title, doc("storagev1.StorageClass", class_field)) for title, class_field in (
        ("Provisioner", "provisioner"), ("ReclaimPolicy", "reclaimPolicy"),
        ("VolumeBindingMode", "volumeBindingMode"), ("AllowVolumeExpansion", "allowVolumeExpansion"))),
    AGE,
), _storage_class_cells)


def _binding_printer(kind: str, noun: str) -> Printer:
    """``roleBindingsColumnDefinitions`` / ``clusterRoleBindingsColumnDefinitions``."""
    return Printer((
        NAME, Column("Role", doc(f"rbacv1beta1.{kind}", "roleRef")), AGE,
        Column("Users", f"Users in the {noun}", priority=1),
        Column("Groups", f"Groups in the {noun}", priority=1),
        Column("ServiceAccounts", f"ServiceAccounts in the {noun}", priority=1),
    ), _role_binding_cells)


_HPA = Printer((
    NAME,
    *(Column(title, doc(f"autoscalingv2beta1.HorizontalPodAutoscaler{part}", hpa_field)) for title, part, hpa_field in (
        ("Reference", "Spec", "scaleTargetRef"), ("Targets", "Spec", "metrics"), ("MinPods", "Spec", "minReplicas"),
        ("MaxPods", "Spec", "maxReplicas"), ("Replicas", "Status", "currentReplicas"))),
    AGE,
), _hpa_cells)

_PDB = Printer((
    NAME,
    Column("Min Available", "The minimum number of pods that must be available."),
    Column("Max Unavailable", "The maximum number of pods that may be unavailable."),
    Column("Allowed Disruptions", "Calculated number of pods that may be disrupted at this time.", type="integer"),
    AGE,
), _pdb_cells)

_RESOURCE_QUOTA = Printer((
    NAME,
    Column("Request", "Request represents a minimum amount of cpu/memory that a container may consume."),
    Column("Limit", "Limits control the maximum amount of cpu/memory that a container may use independent of "
                    "contention on the node."),
    AGE,
), _resource_quota_cells)

_API_SERVICE = Printer((
    NAME,
    Column("Service", "The reference to the service that hosts this API endpoint."),
    Column("Available", "Whether this service is available."),
    AGE,
), _api_service_cells)

_FLOW_SCHEMA = Printer((
    NAME,
    Column("PriorityLevel", api_doc("flowcontrol.v1.PriorityLevelConfigurationReference", "name")),
    Column("MatchingPrecedence", api_doc("flowcontrol.v1.FlowSchemaSpec", "matchingPrecedence")),
    Column("DistinguisherMethod", api_doc("flowcontrol.v1.FlowSchemaSpec", "distinguisherMethod")),
    AGE,
    Column("MissingPL", "references a broken or non-existent PriorityLevelConfiguration"),
), _flow_schema_cells, list_order=_flow_schema_order)

_PRIORITY_LEVEL = Printer((
    NAME,
    Column("Type", api_doc("flowcontrol.v1.PriorityLevelConfigurationSpec", "type")),
    Column("NominalConcurrencyShares", api_doc("flowcontrol.v1.LimitedPriorityLevelConfiguration",
                                               "nominalConcurrencyShares")),
    Column("Queues", api_doc("flowcontrol.v1.QueuingConfiguration", "queues")),
    Column("HandSize", api_doc("flowcontrol.v1.QueuingConfiguration", "handSize")),
    Column("QueueLengthLimit", api_doc("flowcontrol.v1.QueuingConfiguration", "queueLengthLimit")),
    AGE,
), _priority_level_cells)

_SERVICE_CIDR = Printer((NAME, Column("CIDRs", api_doc("networking.v1.ServiceCIDRSpec", "cidrs")), AGE),
                        _service_cidr_cells)
#: kube defines no Age column for IP addresses, yet their rows carry the age (a third cell).
_IP_ADDRESS = Printer((NAME, Column("ParentRef", api_doc("networking.v1.IPAddressSpec", "parentRef"))),
                      _ip_address_cells)
#: ``Handler``'s description is of an internal field kube-apiserver has no SwaggerDoc for: empty.
_RUNTIME_CLASS = Printer((NAME, Column("Handler", ""), AGE), _runtime_class_cells)
_RESOURCE_CLAIM = Printer((
    NAME, Column("State", "A summary of the current state (allocated, pending, reserved, etc.)."), AGE,
), _resource_claim_cells)
_RESOURCE_SLICE = Printer((
    NAME,
    Column("Node", api_doc("resource.v1.ResourceSliceSpec", "nodeName")),
    Column("Driver", api_doc("resource.v1.ResourceSliceSpec", "driver")),
    Column("Pool", api_doc("resource.v1.ResourcePool", "name")),
    AGE,
), _resource_slice_cells)
_VOLUME_ATTACHMENT = Printer((
    NAME,
    Column("Attacher", api_doc("storage.v1.VolumeAttachmentSpec", "attacher"), format="name"),
    Column("PV", api_doc("storage.v1.VolumeAttachmentSource", "persistentVolumeName")),
    Column("Node", api_doc("storage.v1.VolumeAttachmentSpec", "nodeName")),
    Column("Attached", api_doc("storage.v1.VolumeAttachmentStatus", "attached"), type="boolean"),
    AGE,
), _volume_attachment_cells)
_CSI_NODE = Printer((
    NAME, Column("Drivers", "Drivers indicates the number of CSI drivers registered on the node", type="integer"), AGE,
), _csi_node_cells)
_CONTROLLER_REVISION = Printer((
    NAME,
    Column("Controller", "Controller of the object"),
    Column("Revision", "revision indicates the revision of the state represented by Data."),
    AGE,
), _controller_revision_cells)

#: The descriptions are the internal type's SwaggerDoc, older than v1's.
_ENDPOINT_SLICE = Printer((
    NAME,
    Column("AddressType", (
        "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice "
        "must be the same type. This field is immutable after creation. The following address types are "
        "currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: "
        "Represents a Fully Qualified Domain Name.")),
    Column("Ports", (
        "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a "
        "unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined "
        'with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.')),
    Column("Endpoints", api_doc("discovery.v1.EndpointSlice", "endpoints")),
    AGE,
), _endpoint_slice_cells)
_WEBHOOK_CONFIGURATION = Printer((
    NAME, Column("Webhooks", "Webhooks indicates the number of webhooks registered in this configuration",
                 type="integer"), AGE,
), _webhook_configuration_cells)
_ADMISSION_POLICY = Printer((
    NAME,
    Column("Validations", "Validations indicates the number of validation rules defined in this configuration",
           type="integer"),
    Column("ParamKind", "ParamKind specifies the kind of resources used to parameterize this policy"),
    AGE,
), _admission_policy_cells)
_ADMISSION_POLICY_BINDING = Printer((
    NAME,
    Column("PolicyName", "PolicyName indicates the policy definition which the policy binding binded to"),
    Column("ParamRef", "ParamRef indicates the param resource which sets the configuration param"),
    AGE,
), _admission_policy_binding_cells)

#: The printer of each built-in resource, by (group, plural); every served version shares it.
PRINTERS: Mapping[tuple[str, str], Printer] = {
    ("", "pods"): _POD,
    ("", "podtemplates"): _POD_TEMPLATE,
    ("", "replicationcontrollers"): _REPLICATION_CONTROLLER,
    ("", "services"): _SERVICE,
    ("", "endpoints"): _ENDPOINTS,
    ("", "nodes"): _NODE,
    ("", "namespaces"): _NAMESPACE,
    ("", "configmaps"): _CONFIG_MAP,
    ("", "secrets"): _SECRET,
    ("", "serviceaccounts"): _NAME_AND_AGE,
    ("", "events"): _EVENT,
    ("events.k8s.io", "events"): _EVENT,
    ("", "persistentvolumes"): _PERSISTENT_VOLUME,
    ("", "persistentvolumeclaims"): _PERSISTENT_VOLUME_CLAIM,
    ("", "resourcequotas"): _RESOURCE_QUOTA,
    ("apps", "deployments"): _DEPLOYMENT,
    ("apps", "replicasets"): _REPLICA_SET,
    ("apps", "statefulsets"): _STATEFUL_SET,
    ("apps", "daemonsets"): _DAEMON_SET,
    ("batch", "jobs"): _JOB,
    ("batch", "cronjobs"): _CRON_JOB,
    ("autoscaling", "horizontalpodautoscalers"): _HPA,
    ("networking.k8s.io", "ingresses"): _INGRESS,
    ("networking.k8s.io", "networkpolicies"): _NETWORK_POLICY,
    ("coordination.k8s.io", "leases"): _LEASE,
    ("scheduling.k8s.io", "priorityclasses"): _PRIORITY_CLASS,
    ("storage.k8s.io", "storageclasses"): _STORAGE_CLASS,
    ("rbac.authorization.k8s.io", "rolebindings"): _binding_printer("RoleBinding", "roleBinding"),
    ("rbac.authorization.k8s.io", "clusterrolebindings"): _binding_printer("ClusterRoleBinding", "clusterRoleBinding"),
    ("policy", "poddisruptionbudgets"): _PDB,
    ("apiregistration.k8s.io", "apiservices"): _API_SERVICE,
    ("flowcontrol.apiserver.k8s.io", "flowschemas"): _FLOW_SCHEMA,
    ("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"): _PRIORITY_LEVEL,
    ("networking.k8s.io", "servicecidrs"): _SERVICE_CIDR,
    ("networking.k8s.io", "ipaddresses"): _IP_ADDRESS,
    ("node.k8s.io", "runtimeclasses"): _RUNTIME_CLASS,
    ("resource.k8s.io", "deviceclasses"): _NAME_AND_AGE,
    ("resource.k8s.io", "resourceclaims"): _RESOURCE_CLAIM,
    ("resource.k8s.io", "resourceclaimtemplates"): _NAME_AND_AGE,
    ("resource.k8s.io", "resourceslices"): _RESOURCE_SLICE,
    ("storage.k8s.io", "volumeattachments"): _VOLUME_ATTACHMENT,
    ("storage.k8s.io", "csinodes"): _CSI_NODE,
    ("apps", "controllerrevisions"): _CONTROLLER_REVISION,
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"): _WEBHOOK_CONFIGURATION,
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations"): _WEBHOOK_CONFIGURATION,
    ("admissionregistration.k8s.io", "validatingadmissionpolicies"): _ADMISSION_POLICY,
    ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"): _ADMISSION_POLICY_BINDING,
    ("discovery.k8s.io", "endpointslices"): _ENDPOINT_SLICE,
}
