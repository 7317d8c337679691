#!/usr/bin/env bash
# make mutation: gremlins (pinned in hack/tools/gremlins) mutates the
# packages of presets/ and judges every mutant by what can run it, never by
# the unit tests written beside the code (docs/mutation.md):
#
#   suite   presets/admission, merge (and the CRD's embedding): the
#           feature suite, offline, against the reference
#           (TestOfflineFeatureSuite, in each package's mutation_test.go,
#           behind the "mutation" build tag);
#   model   presets/model: the oracle, judged by its own tables (hand-
#           written outcomes for every option) and by the offline suite;
#   explain internal/explain: the goldens of `presetsim apply --explain`
#           (internal/app TestApplyExplain*) and the package's own
#           tables, run as one test suite (gremlins --integration);
#   policy  presets/policy: the feature suite on envtest against the
#           presets compiled into MutatingAdmissionPolicies
#           (TestEnvtestPolicySuite);
#   policy-fuzz
#           presets/policy again, judged by generated cases instead:
#           presetsim fuzz offline, where k8s.io/apiserver's own plug-ins
#           evaluate the compiled policies (TestOfflinePolicyFuzz, 200
#           cases, stopped at the first disagreement).
#
# The gate counts every mutant: killed / (killed + lived + not covered +
# timed out), over the groups run, must be at least 90 %. gremlins' own
# "test efficacy" leaves out what no test reaches; this does not. And
# gremlins decides "reached" from Go's coverage, which has no block for a
# switch's case expressions: the mutants it calls not covered are run
# afterwards by mutationscore rejudge, each against the group's tests.
#
# gremlins copies the whole module for each worker, so it runs on a copy of
# the files git tracks or would track (no .cache, no .git). Results go to
# .cache/mutation/<group>.json and the log. Generated deep-copy code is
# left out (controller-gen's, not behaviour). internal/rollout is left out: it
# is a controller whose feature needs a rollout on envtest with a module
# served as a webhook, which no group here starts (its unit tests judge
# it). internal/defaults is left out too: it restates the API server's
# defaults, and the same code defaults the pod and the preset's items, so
# no run can tell a mutant of it from the original; its unit tests judge
# it.
#
# MUTATION_GROUPS picks groups (default "suite model explain policy
# policy-fuzz");
# MUTATION_ARGS adds gremlins flags, e.g. MUTATION_ARGS="--workers 1".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="$root/.cache/mutation"
mkdir -p "$out"
: > "$out/log"

gremlins="$root/.cache/gremlins-$(sha256sum "$root/hack/tools/gremlins/go.sum" | cut -c1-12)"
if [[ ! -x $gremlins ]]; then
	echo "building gremlins ..." >&2
	(cd "$root/hack/tools/gremlins" && go build -o "$gremlins" github.com/go-gremlins/gremlins/cmd/gremlins)
fi

score="$root/.cache/mutationscore"
(cd "$root" && go build -o "$score" ./hack/mutationscore)

stage=$(mktemp -d "${TMPDIR:-/tmp}/presetsim-mutation.XXXXXX")
trap 'rm -rf "$stage"' EXIT
(cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$stage" -xf -
cd "$stage"

# unleash GROUP TESTS PATH PACKAGES [gremlins flags...]: one gremlins
# run, then the mutants it did not run ("not covered": Go's coverage has no
# block for a switch's case expressions, for one) run by mutationscore
# rejudge, testing PACKAGES ("." is the mutated file's own).
unleash() {
	local group=$1 tests=$2 path=$3 packages=$4
	shift 4
	echo "== make mutation: $group ($path, judged by $tests)" | tee -a "$out/log" >&2
	# shellcheck disable=SC2086 # MUTATION_ARGS is a list of flags
	GOFLAGS="-run=$tests" "$gremlins" unleash \
		--tags mutation \
		--output "$out/$group.json" \
		--timeout-coefficient 10 \
		"$@" ${MUTATION_ARGS:-} \
		"$path" 2>&1 | tee -a "$out/log"
	echo "== make mutation: $group, the mutants gremlins did not run" | tee -a "$out/log" >&2
	"$score" rejudge "$out/$group.json" "$stage" "$path" "$packages" "-run=$tests" 2>&1 | tee -a "$out/log"
}

groups=${MUTATION_GROUPS:-suite model explain policy policy-fuzz}
for group in $groups; do
	case $group in
	suite) unleash suite '^TestOfflineFeatureSuite$' ./presets . \
		--exclude-files 'rollout/' --exclude-files 'defaults/' --exclude-files 'explain/' --exclude-files 'policy/' \
		--exclude-files 'model/' --exclude-files 'zz_generated' ;;
	model) unleash model '.' ./presets/model . ;;
	explain) unleash explain '^(TestApplyExplain|TestApplyExplainJSON|TestSelectionReasons|TestPodOrder|TestOrdinal)$' ./internal/explain ./internal/app,./internal/explain \
		--integration --coverpkg ./internal/explain ;;
	policy)
		export PRESETSIM_BIN_DIR=${PRESETSIM_BIN_DIR:-$("$root/hack/build-tools.sh")}
		unleash policy '^TestEnvtestPolicySuite$' ./presets/policy . --workers 1 ;;
	policy-fuzz) unleash policy-fuzz '^TestOfflinePolicyFuzz$' ./presets/policy . --workers 1 ;;
	*) echo "make mutation: unknown group $group (suite, model, explain, policy, policy-fuzz)" >&2; exit 2 ;;
	esac
done

# The gate, over every mutant of the groups run.
# shellcheck disable=SC2086 # groups is a list
"$score" "$out" $groups
