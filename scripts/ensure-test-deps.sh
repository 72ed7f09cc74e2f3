#!/usr/bin/env bash
# Makes sure the programs the tests start for real are present: etcd (Debian etcd-server, for the
# differential tests of the store), kubectl and Go (client-go harness). Installs etcd with apt when
# it can; otherwise, and for anything else missing, it fails loudly: tests never skip for a missing
# dependency.
set -euo pipefail

missing=()
if ! command -v etcd >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "ensure-test-deps: installing etcd-server with apt-get" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null
    fi
    command -v etcd >/dev/null 2>&1 || missing+=("etcd (Debian package etcd-server)")
fi
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
echo "ensure-test-deps: etcd $(etcd --version 2>/dev/null | head -1 | awk '{print $3}'), kubectl, go present" >&2
