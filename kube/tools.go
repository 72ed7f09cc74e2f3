//go:build tools

// Package tools pins the real control plane fakeapi is judged against: kube-apiserver,
// kube-controller-manager and kube-scheduler v1.35.4, and etcd v3.6.6 (the etcd that
// kubernetes 1.35.4 pins). scripts/build-kube.sh builds them from this module.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "go.etcd.io/etcd/etcdctl/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
