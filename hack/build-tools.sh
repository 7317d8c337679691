#!/usr/bin/env bash
# Builds the control-plane binaries (kube-apiserver, kube-controller-manager,
# kube-scheduler, etcd) and kubectl from the modules pinned in hack/tools/*/go.mod into a git-ignored cache:
#
#   .cache/tools/<stamp>/bin/{kube-apiserver,kube-controller-manager,kube-scheduler,etcd,kubectl}
#
# With the argument "kind" it also builds the node binaries that the kind
# node image needs (kubelet, kubeadm; see hack/kind/build-node-image.sh).
#
# <stamp> is a hash of the pins (go.mod, go.sum) and the Go version, so the
# binaries are rebuilt only when a pin changes. Prints the directory on stdout
# (everything else goes to stderr) so callers can do BIN=$(hack/build-tools.sh).
#
# With the argument "--check" it builds nothing: it prints the directory if
# every control-plane binary is there, and exits 3 otherwise.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/hack/tools"
k8s_version=$(awk '$1=="require" && $2=="k8s.io/kubernetes" {print $3}' "$tools/kubernetes/go.mod")

stamp=$( { cat "$tools"/kubernetes/go.mod "$tools"/kubernetes/go.sum "$tools"/etcd/go.mod "$tools"/etcd/go.sum; go version; } | sha256sum | cut -c1-16)
out="$root/.cache/tools/$stamp/bin"
if [[ ${1:-} == --check ]]; then
	for name in kube-apiserver kube-controller-manager kube-scheduler kubectl etcd; do
		[[ -x "$out/$name" ]] || exit 3
	done
	echo "$out"
	exit 0
fi
mkdir -p "$out"

# build NAME MODULE_DIR PACKAGE [LDFLAGS]: builds one binary unless it is
# already in the cache, printing the elapsed time every 15 seconds.
build() {
	local name=$1 dir=$2 pkg=$3 ldflags=${4:-}
	if [[ -x "$out/$name" ]]; then
		return 0
	fi
	local start=$SECONDS next=$((SECONDS + 15))
	echo "building $name ($pkg) ..." >&2
	( cd "$dir" && CGO_ENABLED=0 exec go build -o "$out/$name.tmp" -ldflags "$ldflags" "$pkg" ) &
	local pid=$!
	trap 'kill $pid 2>/dev/null' EXIT INT TERM
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if (( SECONDS >= next )) && kill -0 "$pid" 2>/dev/null; then
			echo "  $name: still building, $((SECONDS - start))s elapsed" >&2
			next=$((SECONDS + 15))
		fi
	done
	if ! wait "$pid"; then
		trap - EXIT INT TERM
		echo "building $name failed after $((SECONDS - start))s" >&2
		return 1
	fi
	trap - EXIT INT TERM
	mv "$out/$name.tmp" "$out/$name"
	echo "built $name in $((SECONDS - start))s" >&2
}

minor=$(echo "$k8s_version" | cut -d. -f2)
vpkg=k8s.io/component-base/version
kube_ldflags="-s -w -X $vpkg.gitVersion=$k8s_version -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor -X $vpkg.gitTreeState=clean"

build kube-apiserver "$tools/kubernetes" k8s.io/kubernetes/cmd/kube-apiserver "$kube_ldflags"
build kube-controller-manager "$tools/kubernetes" k8s.io/kubernetes/cmd/kube-controller-manager "$kube_ldflags"
build kube-scheduler "$tools/kubernetes" k8s.io/kubernetes/cmd/kube-scheduler "$kube_ldflags"
build kubectl "$tools/kubernetes" k8s.io/kubernetes/cmd/kubectl "$kube_ldflags"
build etcd "$tools/etcd" go.etcd.io/etcd/server/v3 "-s -w"
if [[ "${1:-}" == kind ]]; then
	build kubelet "$tools/kubernetes" k8s.io/kubernetes/cmd/kubelet "$kube_ldflags"
	build kubeadm "$tools/kubernetes" k8s.io/kubernetes/cmd/kubeadm "$kube_ldflags"
fi

echo "$out"
