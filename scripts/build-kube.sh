#!/usr/bin/env bash
# Builds the real control plane fakeapi is judged against, from the Go module proxy:
# kube-apiserver, kube-controller-manager, kube-scheduler, kubectl v1.35.4, etcd and etcdctl v3.6.6
# (module kube/: go.mod pins kubernetes' staging modules to v0.35.4), and kwok v0.8.0, the fake
# nodes and pods of `fakeapi cluster` (module kube/kwok/: kwok needs k8s.io/* v0.36, which cannot
# share a build list with kubernetes v1.35.4), with kwok's own Stage configs next to it
# (kwok-stages/, a copy of the module's kustomize/stage: node/fast, pod/fast, ...). On request
# only, e2e.test: kubernetes v1.35.4's end-to-end suite for the API groups fakeapi serves (module
# kube/e2e/, the same pins as kube/; `make conformance` runs it), and ginkgo, the CLI that runs
# it on several processes at once as kubernetes' hack/ginkgo-e2e.sh does (its version is the one
# e2e.test links).
#
# Binaries land in $FAKEAPI_KUBE_BIN (default ~/.cache/fakeapi/kube-v1.35.4), outside the work tree so
# every clone on a machine shares them; a binary is rebuilt only when its module's go.sum or Go
# files or this script changed. The Go build cache makes a rebuild take seconds; a cold build takes
# ~15 minutes on 2 cores.
#
#   scripts/build-kube.sh            # all seven (not e2e.test)
#   scripts/build-kube.sh kube-apiserver etcd
#   scripts/build-kube.sh e2e.test ginkgo
# Prints the bin directory on stdout.
set -euo pipefail
cd "$(dirname "$0")/../kube"
export PATH="/usr/local/go/bin:$PATH"

KUBE_VERSION=v1.35.4
ETCD_VERSION=v3.6.6
bin=${FAKEAPI_KUBE_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/fakeapi/kube-$KUBE_VERSION}
mkdir -p "$bin"

declare -A package=(
    [kube-apiserver]=k8s.io/kubernetes/cmd/kube-apiserver
    [kube-controller-manager]=k8s.io/kubernetes/cmd/kube-controller-manager
    [kube-scheduler]=k8s.io/kubernetes/cmd/kube-scheduler
    [kubectl]=k8s.io/kubernetes/cmd/kubectl
    [etcd]=go.etcd.io/etcd/server/v3
    [etcdctl]=go.etcd.io/etcd/etcdctl/v3
    [kwok]=sigs.k8s.io/kwok/cmd/kwok
    [e2e.test]=fakeapi/kube/e2e
    [ginkgo]=github.com/onsi/ginkgo/v2/ginkgo
)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd etcdctl kwok)

# The version strings kube's release builds stamp in (kubectl version, /version, User-Agent).
kube_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    kube_ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=35"
    kube_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=2026-04-01T00:00:00Z"
done

for name in "${targets[@]}"; do
    pkg=${package[$name]:?unknown binary $name}
    # One build of a binary at a time per bin directory (parallel test sessions share it), and
    # only of that binary: a session needing kube-apiserver does not wait for e2e.test's build.
    # Opening fd 9 again closes it, which releases the previous binary's lock.
    exec 9>"$bin/.$name.lock"
    flock 9
    case $name in
        kwok) module=kwok ;;
        e2e.test|ginkgo) module=e2e ;;
        *) module=. ;;
    esac
    # What the binary is built from: a change to its module's go.sum or Go files (tools.go's
    # imports, e2e_test.go's test sources) or this script rebuilds it.
    stamp=$(cat "$module/go.sum" "$module"/*.go ../scripts/build-kube.sh | sha256sum | cut -c1-16)
    if [ -x "$bin/$name" ] && [ "$(cat "$bin/$name.stamp" 2>/dev/null)" = "$stamp" ]; then
        continue
    fi
    echo "build-kube: building $name ($pkg)" >&2
    start=$SECONDS
    case $name in
        etcd*) go build -trimpath -ldflags "-s -w" -o "$bin/$name.new" "$pkg" ;;
        kwok)
            (cd kwok && go build -trimpath -ldflags "-s -w" -o "$bin/$name.new" "$pkg")
            rm -rf "$bin/kwok-stages"
            cp -r "$(cd kwok && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)/kustomize/stage" "$bin/kwok-stages"
            chmod -R u+w "$bin/kwok-stages" ;;
        # A test binary, built as kubernetes builds its e2e.test (hack/lib/golang.sh: go test -c,
        # the release tags and version stamps): the packages it shares with the binaries above
        # come from the Go build cache. No vet: it would analyse every one of the ~3,000
        # packages it imports, minutes of CPU for a binary that only runs.
        e2e.test) (cd e2e && go test -c -vet=off -trimpath -tags selinux,notest,grpcnotrace -ldflags "$kube_ldflags" \
                       -o "$bin/$name.new" "$pkg") ;;
        ginkgo) (cd e2e && go build -trimpath -ldflags "-s -w" -o "$bin/$name.new" "$pkg") ;;
        *) go build -trimpath -tags selinux,notest,grpcnotrace -ldflags "$kube_ldflags" -o "$bin/$name.new" "$pkg" ;;
    esac
    mv "$bin/$name.new" "$bin/$name"
    echo "$stamp" > "$bin/$name.stamp"
    echo "build-kube: $name built in $((SECONDS - start)) s" >&2
done
echo "$bin"
