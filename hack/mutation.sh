#!/usr/bin/env bash
# make mutation: gremlins (pinned in hack/tools/gremlins) mutates the
# packages of presets/ and judges every mutant by the feature suite alone,
# run offline against the reference (TestOfflineFeatureSuite, in each
# package's mutation_test.go, behind the "mutation" build tag). The unit
# tests beside the code are not run: GOFLAGS restricts go test to that test.
#
# gremlins copies the whole module for each worker, so it runs on a copy of
# the files git tracks or would track (no .cache, no .git). Results go to
# .cache/mutation/: results.json (gremlins' own) and the log.
# presets/rollout is left out: it is a controller, which the offline backend
# does not run (its feature runs on envtest), so the offline suite cannot
# judge it. presets/defaults is left out too: it restates the API server's
# defaults, and offline the same code defaults both the pod (standing in for
# the API server) and the preset's items, so no offline run can tell a
# mutant of it from the original; its unit tests judge it. MUTATION_ARGS adds gremlins flags, e.g. MUTATION_ARGS="--workers 1".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="$root/.cache/mutation"
mkdir -p "$out"

gremlins="$root/.cache/gremlins-$(sha256sum "$root/hack/tools/gremlins/go.sum" | cut -c1-12)"
if [[ ! -x $gremlins ]]; then
	echo "building gremlins ..." >&2
	(cd "$root/hack/tools/gremlins" && go build -o "$gremlins" github.com/go-gremlins/gremlins/cmd/gremlins)
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/presetsim-mutation.XXXXXX")
trap 'rm -rf "$stage"' EXIT
(cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$stage" -xf -

cd "$stage"
# shellcheck disable=SC2086 # MUTATION_ARGS is a list of flags
GOFLAGS="-run=^TestOfflineFeatureSuite\$" "$gremlins" unleash \
	--tags mutation \
	--output "$out/results.json" \
	--timeout-coefficient 10 \
	--exclude-files 'rollout/' \
	--exclude-files 'defaults/' \
	${MUTATION_ARGS:-} \
	./presets 2>&1 | tee "$out/log"

# The gate: gremlins' own --threshold-efficacy did not fail the run here
# (v0.6.0), so read the score from its results.
score=$(grep -o '"test_efficacy":[0-9.]*' "$out/results.json" | cut -d: -f2)
if ! awk -v s="${score:-0}" 'BEGIN { exit !(s >= 90) }'; then
	echo "make mutation: the suite kills ${score:-no}% of the covered mutants of presets/, below 90% (survivors above, marked LIVED; docs/mutation.md explains them)" >&2
	exit 1
fi
echo "make mutation: the suite kills ${score}% of the covered mutants of presets/" >&2
