#!/usr/bin/env bash
# Makes sure the programs the tests start for real are present: kubectl and Go (client-go harness,
# and scripts/build-kube.sh, which builds the real etcd, etcdctl and kube-apiserver the tests
# compare against). Installs kubectl with apt when it can; otherwise, and for anything else
# missing, it fails loudly: tests never skip for a missing dependency.
set -euo pipefail

missing=()
if ! command -v kubectl >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && apt-cache show kubernetes-client >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubernetes-client >/dev/null
    fi
    command -v kubectl >/dev/null 2>&1 || missing+=("kubectl")
fi
command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] || missing+=("go (Go toolchain)")

if [ ${#missing[@]} -gt 0 ]; then
    echo "ensure-test-deps: missing: ${missing[*]}" >&2
    exit 1
fi
echo "ensure-test-deps: kubectl, go present" >&2
