#!/usr/bin/env bash
# Makes sure what the tests build with is present: Go (the client-go test programs, and
# scripts/build-kube.sh, which builds the real etcd, etcdctl, kubectl, kube-apiserver,
# kube-controller-manager and kube-scheduler the tests run). A missing one fails loudly: tests
# never skip for a missing dependency.
set -euo pipefail

missing=()
command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] || missing+=("go (Go toolchain)")

if [ ${#missing[@]} -gt 0 ]; then
    echo "ensure-test-deps: missing: ${missing[*]}" >&2
    exit 1
fi
echo "ensure-test-deps: go present" >&2
