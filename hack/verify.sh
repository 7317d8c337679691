#!/usr/bin/env bash
# Fails when generated files are stale or Go files are not gofmt'ed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
hack/generate.sh
if ! git diff --quiet -- presets/; then
	echo "generated files are stale: run make generate" >&2
	git diff --stat -- presets/ >&2
	exit 1
fi
bad=$(gofmt -l $(git ls-files '*.go'))
if [[ -n "$bad" ]]; then
	echo "not gofmt'ed: $bad" >&2
	exit 1
fi
