"""The numbers behind /metrics: requests, watch caches, storage calls (kube's endpoints/metrics
and etcd3/metrics)."""
