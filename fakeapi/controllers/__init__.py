"""Built-in controllers: what kube-controller-manager does that clients of an API server see
(the garbage collector, the namespace controller, the ClusterRole aggregation controller, the
ValidatingAdmissionPolicy status controller), what kube-apiserver's own controllers do (the CRD
finalizer, the APIService availability controllers, the APIServices of CRD groups, the
FlowSchemas' Dangling condition), and the kubelets' last step of a graceful pod deletion. They
sit above the registry: they observe the watch caches' events and write through the registry
like any client would, from their own task, never inside an event dispatch."""

from .apiservice_availability import APIServiceAvailability
from .clusterrole_aggregation import ClusterRoleAggregation
from .crd_cleanup import CustomResourceCleanup
from .crd_registration import CRDRegistration
from .flowschema_status import FlowSchemaStatus
from .garbage_collector import GarbageCollector
from .namespace_controller import NamespaceController
from .pod_termination import PodTermination
from .policy_status import PolicyStatus

__all__ = ["APIServiceAvailability", "CRDRegistration", "ClusterRoleAggregation", "CustomResourceCleanup",
           "FlowSchemaStatus", "GarbageCollector", "NamespaceController", "PodTermination", "PolicyStatus"]
