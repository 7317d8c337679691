#!/usr/bin/env bash
# Builds the presetsim image FROM scratch, with nothing pulled: static
# binaries only — presetsim, and the control plane a run starts (etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler) with kubectl, from
# hack/build-tools.sh — an empty /tmp (1777) for etcd's data and the
# certificates, and HOME=/tmp for the user cache. Prints the image's name,
# presetsim:<version> (the commit, "-dirty" when the tree has changes).
#
#   docker run --rm presetsim:<version> run                    # the built-in suite on envtest, inside
#   docker run --rm presetsim:<version> run --backend offline
#   docker run --rm --network host -v $PWD/x:/x presetsim:<version> fuzz \
#       --webhook-url https://127.0.0.1:9443/mutate --webhook-ca /x/ca.pem \
#       --webhook-kubeconfig-out /x/kubeconfig     # then start the host's webhook with x/kubeconfig
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$(hack/build-tools.sh)
version=$(git describe --always --dirty 2>/dev/null || echo dev)
ctx=$(mktemp -d "${TMPDIR:-/tmp}/presetsim-image.XXXXXX")
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/bin" "$ctx/tmp"
chmod 1777 "$ctx/tmp"
log() { echo "image: $*" >&2; }
started=$SECONDS
# A static build has a build cache of its own: the first one compiles every
# dependency again (minutes on two cores). A line every 30 s says it goes on.
log "building presetsim as a static binary (the first time takes minutes) ..."
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$ctx/bin/presetsim" ./cmd/presetsim &
build=$!
trap 'kill "$build" 2>/dev/null || true; rm -rf "$ctx"' EXIT
next=$((started + 30))
while kill -0 "$build" 2>/dev/null; do
	sleep 1
	if ((SECONDS >= next)); then
		log "  still building presetsim, $((SECONDS - started))s elapsed"
		next=$((next + 30))
	fi
done
wait "$build"
log "built presetsim in $((SECONDS - started))s"
cp "$bin"/{etcd,kube-apiserver,kube-controller-manager,kube-scheduler,kubectl} "$ctx/bin/"
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY bin/ /usr/local/bin/
COPY tmp/ /tmp/
ENV PATH=/usr/local/bin HOME=/tmp TMPDIR=/tmp PRESETSIM_BIN_DIR=/usr/local/bin
WORKDIR /tmp
ENTRYPOINT ["/usr/local/bin/presetsim"]
DOCKERFILE
log "docker build presetsim:$version ..."
out=$(DOCKER_BUILDKIT=0 docker build -q -t "presetsim:$version" "$ctx" 2>&1 >/dev/null) || { echo "$out" >&2; exit 1; }
log "built presetsim:$version in $((SECONDS - started))s"
echo "presetsim:$version"
