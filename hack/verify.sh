#!/usr/bin/env bash
# Fails when the generated files are stale (regenerating them changes them)
# or Go files are not gofmt'ed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
generated=(presets/apis/settings/v1alpha1/zz_generated.deepcopy.go presets/config/crd/settings.k8s.io_podpresets.yaml deploy/policy/podpreset-crd.yaml profiles/crds/redhatcop.redhat.io_podpresets.yaml profiles/crds/kubeflow.org_poddefaults.yaml profiles/example/crd.yaml backends/envtest/zz_generated.pins.go)
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT
for f in "${generated[@]}"; do
	mkdir -p "$before/$(dirname "$f")" && cp "$f" "$before/$f"
done
hack/generate.sh
for f in "${generated[@]}"; do
	if ! diff -u "$before/$f" "$f" >&2; then
		echo "$f was stale and has been regenerated: review and commit it" >&2
		exit 1
	fi
done
bad=$(gofmt -l $(git ls-files -co --exclude-standard '*.go'))
if [[ -n "$bad" ]]; then
	echo "not gofmt'ed: $bad" >&2
	exit 1
fi
