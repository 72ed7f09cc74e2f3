"""A whole fake cluster: fakeapi, or the real kube-apiserver over etcd, with the real
kube-controller-manager, kube-scheduler and kwok around it; the processes of each."""
