"""Built-in controllers: what kube-controller-manager does that clients of an API server see
(the garbage collector, the namespace controller, the CRD finalizer), and the kubelets' last
step of a graceful pod deletion. They sit above the registry: they observe
the watch caches' events and write through the registry like any client would, from their own
task, never inside an event dispatch."""

from .crd_cleanup import CustomResourceCleanup
from .garbage_collector import GarbageCollector
from .namespace_controller import NamespaceController
from .pod_termination import PodTermination

__all__ = ["CustomResourceCleanup", "GarbageCollector", "NamespaceController", "PodTermination"]
