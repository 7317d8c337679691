#!/usr/bin/env bash
# Makes sure that `docker run --privileged` works, as kind needs it for every
# node. On a host whose capability bounding set lacks a capability the kernel
# knows (this project's Firecracker VMs lack CAP_SYS_RESOURCE), Docker 20.10
# fails every privileged container with "unable to apply caps: operation not
# permitted"; there this script installs hack/kind/runcshim as the daemon's
# default runtime (see its doc.go) and checks again. Anything else is
# reported, not worked around.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
work="$root/.cache/kind"
mkdir -p "$work/bin"

(cd "$root" && CGO_ENABLED=0 go build -trimpath -o "$work/bin/runcshim" ./hack/kind/runcshim)

probe=presetsim.dev/probe:v1
if ! docker image inspect "$probe" >/dev/null 2>&1; then
	ctx=$(mktemp -d "$work/ctx.XXXXXX")
	trap 'rm -rf "$ctx"' EXIT
	cp "$work/bin/runcshim" "$ctx/"
	printf 'FROM scratch\nCOPY runcshim /runcshim\nENTRYPOINT ["/runcshim"]\n' >"$ctx/Dockerfile"
	out=$(DOCKER_BUILDKIT=0 docker build -q -t "$probe" "$ctx" 2>&1 >/dev/null) || { echo "$out" >&2; exit 1; }
fi

privileged() { docker run --rm --privileged "$probe" probe 2>&1; }

if out=$(privileged); then
	echo "docker-privileged: privileged containers work"
	exit 0
fi
if ! grep -q "unable to apply caps" <<<"$out"; then
	echo "docker-privileged: a privileged container fails, for a reason this script does not know how to fix:" >&2
	echo "$out" >&2
	exit 1
fi
echo "docker-privileged: privileged containers fail here ($(grep -o 'unable to apply caps[^"]*' <<<"$out" | head -1));"
echo "docker-privileged: the capability bounding set is $(awk '/^CapBnd/ {print $2}' /proc/self/status); installing hack/kind/runcshim as Docker's default runtime"
"$work/bin/runcshim" install
for _ in $(seq 1 50); do
	docker info --format '{{.DefaultRuntime}}' 2>/dev/null | grep -q presetsim-runc && break
	sleep 0.2
done
if ! out=$(privileged); then
	echo "docker-privileged: privileged containers still fail after installing the shim:" >&2
	echo "$out" >&2
	exit 1
fi
echo "docker-privileged: privileged containers work with the shim"
