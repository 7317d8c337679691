#!/usr/bin/env bash
# Builds the kind node image of presetsim on a machine that can reach no image
# registry, from Debian's packages, the Go module proxy and this repository.
# Prints the image's name on stdout; progress goes to stderr.
#
#   hack/kind/build-node-image.sh        # or: make kind-image
#
# Stages, each cached under .cache/kind and redone only when its inputs change:
#   1. rootfs: debootstrap of Debian bookworm with systemd, containerd, runc and
#      the CNI plugins (keyed by the package list).
#   2. binaries: kubelet, kubeadm, kubectl and the control-plane binaries from
#      the pinned k8s.io/kubernetes (hack/build-tools.sh kind); our pause and
#      printenv programs (cmd/pause, cmd/printenv).
#   3. images FROM scratch around those binaries, tagged with the names that
#      `kubeadm config images list` gives (kube-apiserver,
#      kube-controller-manager, kube-scheduler, etcd, pause), plus
#      presetsim.dev/printenv, saved as archives.
#   4. the node image: the rootfs imported, the node files of hack/kind/node
#      and the binaries added, and the image archives preloaded into the node's
#      containerd (imported by a containerd run in a build container, then
#      committed), tagged presetsim.dev/kind-node:<k8s version>-<hash of every
#      input>.
#
# Needs root, a Docker engine, and `docker run --privileged` working (see
# hack/kind/docker-privileged.sh, which this script runs first).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
work="$root/.cache/kind"
mkdir -p "$work"

log() { echo "kind-image: $*" >&2; }
started=$SECONDS

if ! docker info >/dev/null 2>&1; then
	echo "kind-image: no Docker engine answers (docker info failed); the kind node image needs one" >&2
	exit 1
fi
"$root/hack/kind/docker-privileged.sh" >&2

# --- 1. rootfs ---------------------------------------------------------------
suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=systemd,systemd-sysv,dbus,containerd,runc,containernetworking-plugins,iptables,iproute2,ca-certificates,conntrack,socat,ethtool,kmod,procps,util-linux,mount
rootfs_stamp=$(echo "$suite $packages" | sha256sum | cut -c1-12)
rootfs_tar="$work/rootfs-$rootfs_stamp.tar"
if [[ ! -s "$rootfs_tar" ]]; then
	if ! command -v debootstrap >/dev/null; then
		log "installing debootstrap (Debian package)"
		apt-get install -y debootstrap >&2 || { apt-get update >&2 && apt-get install -y debootstrap >&2; }
	fi
	tmp="$work/rootfs-$rootfs_stamp.tmp"
	rm -rf "$tmp"
	log "debootstrap $suite with $packages (a few minutes) ..."
	debootstrap --variant=minbase --include="$packages" "$suite" "$tmp" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ tail -20 "$work/debootstrap.log" >&2; log "debootstrap failed; the whole log is $work/debootstrap.log"; exit 1; }
	# A node gets its own machine-id at boot; apt's caches are not needed.
	: >"$tmp/etc/machine-id"
	rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*
	tar -C "$tmp" -cf "$rootfs_tar.tmp" .
	mv "$rootfs_tar.tmp" "$rootfs_tar"
	rm -rf "$tmp"
	log "rootfs ready after $((SECONDS - started))s"
fi

# --- 2. binaries ---------------------------------------------------------------
bin=$("$root/hack/build-tools.sh" kind)
k8s_version=$("$bin/kubeadm" version -o short)
ours="$work/bin"
mkdir -p "$ours"
for prog in pause printenv; do
	(cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$ours/$prog" "./cmd/$prog")
done

# quiet_build ARGS...: docker build with the legacy builder (this Docker has
# no buildx), its output shown only when it fails.
quiet_build() {
	local out
	out=$(DOCKER_BUILDKIT=0 docker build -q "$@" 2>&1 >/dev/null) || { echo "$out" >&2; return 1; }
}

# --- 3. images FROM scratch -----------------------------------------------------
# scratch_image NAME BINARY: an image holding only BINARY at /usr/local/bin.
scratch_image() {
	local name=$1 binary=$2 ctx
	ctx=$(mktemp -d "$work/ctx.XXXXXX")
	cp "$binary" "$ctx/"
	cat >"$ctx/Dockerfile" <<-EOF
		FROM scratch
		COPY $(basename "$binary") /usr/local/bin/$(basename "$binary")
		ENV PATH=/usr/local/bin
		ENTRYPOINT ["/usr/local/bin/$(basename "$binary")"]
	EOF
	quiet_build -t "$name" "$ctx" || { rm -rf "$ctx"; return 1; }
	rm -rf "$ctx"
}

# --- 4. node image ---------------------------------------------------------------
stamp=$( {
	echo "$rootfs_stamp $k8s_version"
	sha256sum "$bin"/{kubelet,kubeadm,kubectl,kube-apiserver,kube-controller-manager,kube-scheduler,etcd} "$ours"/{pause,printenv} | cut -d' ' -f1
	(cd "$root/hack/kind" && find node -type f | sort | xargs sha256sum)
	sha256sum "$0" | cut -d' ' -f1
} | sha256sum | cut -c1-12)
node_image="presetsim.dev/kind-node:$k8s_version-$stamp"
if docker image inspect "$node_image" >/dev/null 2>&1; then
	log "up to date: $node_image"
	echo "$node_image"
	exit 0
fi

images=$("$bin/kubeadm" config images list --kubernetes-version "$k8s_version" 2>/dev/null)
image_for() { grep -E "/$1:" <<<"$images"; }
declare -A image_binary=(
	[kube-apiserver]="$bin/kube-apiserver"
	[kube-controller-manager]="$bin/kube-controller-manager"
	[kube-scheduler]="$bin/kube-scheduler"
	[etcd]="$bin/etcd"
	[pause]="$ours/pause"
)
printenv_image=presetsim.dev/printenv:v1

base_image="presetsim.dev/kind-base:$rootfs_stamp"
if ! docker image inspect "$base_image" >/dev/null 2>&1; then
	log "importing the rootfs as $base_image"
	docker import "$rootfs_tar" "$base_image" >/dev/null
fi

ctx=$(mktemp -d "$work/ctx.XXXXXX")
preload=""
assembled="presetsim.dev/kind-node-assembled:$stamp"
preloaded="presetsim.dev/kind-node-preloaded:$stamp"
cleanup() {
	rm -rf "$ctx"
	if [[ -n "$preload" ]]; then docker rm -f "$preload" >/dev/null 2>&1 || true; fi
	docker rmi "$preloaded" "$assembled" >/dev/null 2>&1 || true
}
trap cleanup EXIT

log "building the images FROM scratch"
mkdir -p "$ctx/images"
for short in "${!image_binary[@]}"; do
	name=$(image_for "$short") || { log "kubeadm $k8s_version lists no $short image: $images"; exit 1; }
	scratch_image "$name" "${image_binary[$short]}"
	docker save -o "$ctx/images/$short.tar" "$name"
	log "  $name"
done
scratch_image "$printenv_image" "$ours/printenv"
docker save -o "$ctx/images/printenv.tar" "$printenv_image"
log "  $printenv_image"

log "assembling the node image"
cp -a "$root/hack/kind/node" "$ctx/node"
mkdir -p "$ctx/node/usr/bin" "$ctx/node/kind"
cp "$bin"/{kubelet,kubeadm,kubectl} "$ctx/node/usr/bin/"
echo "$k8s_version" >"$ctx/node/kind/version"
cat >"$ctx/Dockerfile" <<EOF
FROM $base_image
COPY node/ /
RUN systemctl enable kubelet.service containerd.service && \\
    systemctl mask getty@tty1.service console-getty.service apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer
EOF
quiet_build -t "$assembled" -f "$ctx/Dockerfile" "$ctx"

log "preloading the images into the node's containerd"
preload=$(docker run -d --privileged -v "$ctx/images:/kind/images:ro" --entrypoint /usr/bin/containerd "$assembled")
for _ in $(seq 1 100); do
	docker exec "$preload" ctr version >/dev/null 2>&1 && break
	sleep 0.2
done
for archive in "$ctx"/images/*.tar; do
	docker exec "$preload" ctr --namespace k8s.io images import --no-unpack "/kind/images/$(basename "$archive")" >/dev/null
done
docker exec "$preload" ctr --namespace k8s.io images list -q | grep -v '^sha256:' | sed 's/^/kind-image:   preloaded /' >&2
docker stop -t 10 "$preload" >/dev/null
docker commit "$preload" "$preloaded" >/dev/null
docker rm "$preload" >/dev/null
preload=""
# docker commit cannot set STOPSIGNAL; a last build sets the runtime settings.
cat >"$ctx/Dockerfile.final" <<EOF
FROM $preloaded
ENV container=docker
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]
CMD []
EOF
quiet_build -t "$node_image" -f "$ctx/Dockerfile.final" "$ctx/images"
# Node images of earlier inputs are of no use any more (900 MB each).
for old in $(docker image ls presetsim.dev/kind-node --format '{{.Repository}}:{{.Tag}}'); do
	if [[ "$old" != "$node_image" ]] && ! docker ps -a --format '{{.Image}}' | grep -qxF "$old"; then
		docker rmi "$old" >/dev/null && log "removed the outdated $old"
	fi
done
log "built $node_image in $((SECONDS - started))s"
echo "$node_image"
