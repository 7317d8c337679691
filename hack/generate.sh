#!/usr/bin/env bash
# Regenerates the PodPreset deepcopy functions and CRD manifest, the pins of
# the control-plane binaries presetsim embeds (hack/toolpins), and the CRD
# of the redhat-cop and Kubeflow profiles (hack/crds), with the controller-gen
# pinned in hack/tools/controller-gen.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gen="$root/.cache/controller-gen-$(sha256sum "$root/hack/tools/controller-gen/go.sum" | cut -c1-12)"
if [[ ! -x "$gen" ]]; then
	echo "building controller-gen ..." >&2
	(cd "$root/hack/tools/controller-gen" && go build -o "$gen" sigs.k8s.io/controller-tools/cmd/controller-gen)
fi
cd "$root"
"$gen" object paths=./presets/apis/... crd paths=./presets/apis/... output:crd:dir=./presets/config/crd
go run ./hack/crdpatch presets/config/crd/settings.k8s.io_podpresets.yaml
# deploy/policy installs the CRD with kubectl apply -k, which reads files
# under its own folder only.
cp presets/config/crd/settings.k8s.io_podpresets.yaml deploy/policy/podpreset-crd.yaml
# The example implementation's CRD, the reference's with its own names.
go run ./hack/examplecrd presets/config/crd/settings.k8s.io_podpresets.yaml profiles/example/crd.yaml
# The CRDs of the redhat-cop and Kubeflow profiles as each commit shipped
# them: from the APIs declared in hack/crds, each a module of its own that
# pins the k8s.io/api the commit generated its CRD with, and with its
# controller-gen options (wozniakjan's, untyped upstream, is written by hand
# in profiles/crds).
(cd hack/crds/redhatcop && "$gen" crd paths=./... output:crd:dir="$root/profiles/crds")
(cd hack/crds/kubeflow && "$gen" crd:maxDescLen=0 paths=./... output:crd:dir="$root/profiles/crds")
# The pins of the control-plane binaries, for presetsim tools install.
go run ./hack/toolpins
