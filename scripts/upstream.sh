#!/usr/bin/env bash
# Builds upstream Kubernetes from the Go module proxy into .cache/upstream/<version>/bin:
# kube-apiserver, kube-scheduler, kube-controller-manager, kubectl (k8s.io/kubernetes/cmd/…), etcd (go.etcd.io/etcd/server/v3)
# and the scheduler-framework oracle (test/upstream/oracle). Idempotent: each binary is rebuilt only
# when what it is built from changed (a stamp of the go.mod/go.sum and sources beside it), so a second
# run with the cache in place takes seconds. Prints the folder of the binaries on its last line.
#
#   scripts/upstream.sh            build what is missing or stale
#   scripts/upstream.sh --print    only print the folder (exit 1 when something is missing)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="v1.37.2"
module="$root/test/upstream"
cache="${PODPLAN_UPSTREAM_CACHE:-$root/.cache/upstream}/$version"
bin="$cache/bin"
mkdir -p "$bin"

# Go builds inside this repository's modules only; never a toolchain switch behind our back.
export GOFLAGS="${GOFLAGS:-} -mod=readonly"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 -X k8s.io/component-base/version.gitTreeState=clean"

stamp_of() { # files… → one hash of their contents
  cat "$@" | sha256sum | cut -c1-16
}

# build NAME STAMP DIR PACKAGE…: go build in DIR when bin/NAME's stamp differs.
build() {
  local name="$1" stamp="$2" dir="$3"
  shift 3
  if [ -x "$bin/$name" ] && [ "$(cat "$bin/.$name.stamp" 2>/dev/null)" = "$stamp" ]; then
    return 0
  fi
  echo "upstream: building $name ($version)…" >&2
  local started=$SECONDS
  (cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$bin/$name.tmp" "$@")
  mv "$bin/$name.tmp" "$bin/$name"
  echo "$stamp" >"$bin/.$name.stamp"
  echo "upstream: $name built in $((SECONDS - started)) s" >&2
}

if [ "${1:-}" = "--print" ]; then
  for name in kube-apiserver kube-scheduler kube-controller-manager kubectl etcd oracle; do
    [ -x "$bin/$name" ] || { echo "upstream: $bin/$name is missing (run npm run upstream)" >&2; exit 1; }
  done
  echo "$bin"
  exit 0
fi

command -v go >/dev/null || { echo "upstream: Go is not installed (the project's machines have Go 1.26.8)" >&2; exit 2; }

kube_stamp="$(stamp_of "$module/go.mod" "$module/go.sum" "$0" | cut -c1-8)-$version"
oracle_stamp="$(stamp_of "$module/go.mod" "$module/go.sum" "$module"/oracle/*.go)"
etcd_stamp="$(stamp_of "$module/etcd/go.mod" "$module/etcd/go.sum")"

# The oracle first: the fidelity suite needs only it, and it is the quickest to build.
build oracle "$oracle_stamp" "$module" ./oracle
build kube-scheduler "$kube_stamp" "$module" k8s.io/kubernetes/cmd/kube-scheduler
build kube-apiserver "$kube_stamp" "$module" k8s.io/kubernetes/cmd/kube-apiserver
build kubectl "$kube_stamp" "$module" k8s.io/kubernetes/cmd/kubectl
build kube-controller-manager "$kube_stamp" "$module" k8s.io/kubernetes/cmd/kube-controller-manager
build etcd "$etcd_stamp" "$module/etcd" go.etcd.io/etcd/server/v3

echo "$bin"
