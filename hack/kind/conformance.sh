#!/usr/bin/env bash
# In-cluster conformance on kind, done as a user would with the kind CLI and
# kubectl: a cluster from the node image, the presetsim image loaded into it,
# PodPreset without a webhook installed (deploy/policy), then the built-in
# suite run inside the cluster by the conformance Job (deploy/conformance),
# whole and as an Indexed Job of 3 shards (deploy/conformance/sharded). It
# reads both verdicts from their ConfigMaps, merges the shards' with
# presetsim report merge, fails unless the merged verdict is the whole
# run's, and fails when the whole run failed. The cluster is deleted at the
# end, whatever happens (KEEP=1 leaves it). The scenarios' pods run the test
# image, which hack/kind/mirror serves them for the while (nothing can be
# pulled here).
#
#   hack/kind/conformance.sh NODE-IMAGE      # make test-kind runs it
#
# kind's node image has no kube-proxy (so no Service routing): the overlay
# written here points the pods' in-cluster client at the node's API server
# (KUBERNETES_SERVICE_HOST = the node's address, port 6443) instead of the
# kubernetes Service. That, the image tag, the policy profile,
# --cluster-printenv (with the pods/log and pods/exec it needs: the mirror
# below makes every pod run the printenv image) and a longer --wait are all
# it changes of deploy/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
node_image=${1:?usage: hack/kind/conformance.sh NODE-IMAGE}
name=presetsim-conformance
ns=presetsim-conformance
work="$root/.cache/kind/conformance"
rm -rf "$work" && mkdir -p "$work/bin"
log() { echo "conformance: $*" >&2; }
started=$SECONDS

bin=$(hack/build-tools.sh)
kubectl="$bin/kubectl"
go build -o "$work/bin/kind" sigs.k8s.io/kind
go build -o "$work/bin/presetsim" ./cmd/presetsim
go build -o "$work/bin/mirror" ./hack/kind/mirror
kind="$work/bin/kind"
presetsim="$work/bin/presetsim"
image=$(hack/build-image.sh)
log "image $image"

export KUBECONFIG="$work/kubeconfig"
mirror_pid=
cleanup() {
	local status=$?
	if [[ -n "$mirror_pid" ]]; then
		kill "$mirror_pid" 2>/dev/null || true
		wait "$mirror_pid" 2>/dev/null || true
	fi
	if ((status != 0)) && [[ -s "$KUBECONFIG" ]]; then
		log "failed; the policy controller's log:"
		"$kubectl" -n presetsim-system logs deploy/presetsim-policy --tail=30 >&2 || true
	fi
	if [[ "${KEEP:-}" == 1 ]]; then
		log "KEEP=1: cluster $name stays (KUBECONFIG=$KUBECONFIG; $kind delete cluster --name $name)"
		return
	fi
	"$kind" delete cluster --name "$name" >/dev/null 2>&1 || true
}
trap cleanup EXIT
"$kind" delete cluster --name "$name" >/dev/null 2>&1 || true # a killed run's
go run ./hack/kind/config >"$work/cluster.yaml"
log "kind create cluster --name $name"
"$kind" create cluster --name "$name" --image "$node_image" --config "$work/cluster.yaml" --wait 3m >&2
log "kind load docker-image $image"
"$kind" load docker-image "$image" --name "$name" >&2
# The scenarios' pods pull ecorp/website and the like: the mirror serves
# them the test image, as the kind backend does during its own runs.
"$work/bin/mirror" "$name" 2>"$work/mirror.log" &
mirror_pid=$!
until grep -q "serving the test image" "$work/mirror.log"; do
	if ! kill -0 "$mirror_pid" 2>/dev/null; then
		cat "$work/mirror.log" >&2
		log "the image mirror did not start"
		exit 1
	fi
	sleep 1
done

# overlay DIR BASE [ARGS...]: deploy/BASE with the image just built, the
# node's API server address, and ARGS appended to the container's args.
overlay() {
	local dir="$work/$1" base=$2
	shift 2
	mkdir -p "$dir"
	local rel
	rel=$(realpath --relative-to="$dir" "$root/deploy/$base")
	local resources=$rel
	if [[ $base == conformance* ]]; then
		# The run compares what containers print and finishes Jobs' pods
		# (--cluster-printenv): pods/log and pods/exec besides the base role.
		resources="$rel, printenv-rbac.yaml"
		cat >"$dir/printenv-rbac.yaml" <<-'RBAC'
			apiVersion: rbac.authorization.k8s.io/v1
			kind: ClusterRole
			metadata: {name: presetsim-conformance-printenv}
			rules:
			- {apiGroups: [""], resources: [pods/log], verbs: [get]}
			- {apiGroups: [""], resources: [pods/exec], verbs: [create]}
			---
			apiVersion: rbac.authorization.k8s.io/v1
			kind: ClusterRoleBinding
			metadata: {name: presetsim-conformance-printenv}
			roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: presetsim-conformance-printenv}
			subjects: [{kind: ServiceAccount, name: presetsim-conformance, namespace: presetsim-conformance}]
		RBAC
	fi
	{
		echo "resources: [$resources]"
		echo "images: [{name: presetsim, newName: '${image%%:*}', newTag: '${image#*:}'}]"
		echo "patches:"
		echo "- target: {kind: 'Job|Deployment'}"
		echo "  patch: |-"
		echo "    - {op: add, path: /spec/template/spec/containers/0/env, value: [{name: KUBERNETES_SERVICE_HOST, valueFrom: {fieldRef: {fieldPath: status.hostIP}}}, {name: KUBERNETES_SERVICE_PORT, value: '6443'}]}"
		for arg in "$@"; do
			echo "    - {op: add, path: /spec/template/spec/containers/0/args/-, value: '$arg'}"
		done
	} >"$dir/kustomization.yaml"
	echo "$dir"
}

log "kubectl apply -k deploy/policy"
"$kubectl" apply -k "$(overlay policy policy)" >&2
"$kubectl" -n presetsim-system rollout status deploy/presetsim-policy --timeout=3m >&2

# finished JOB: waits until the Job is Complete or Failed (15 minutes at
# most) and prints which.
finished() {
	local deadline=$((SECONDS + 900)) state
	while ((SECONDS < deadline)); do
		state=$("$kubectl" -n "$ns" get job "$1" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')
		case " $state " in
		*" Complete "*) echo Complete; return ;;
		*" Failed "*) echo Failed; return ;;
		esac
		sleep 2
	done
	log "job $1 did not finish in 15 minutes"
	"$kubectl" -n "$ns" describe job "$1" >&2
	"$kubectl" -n "$ns" logs "job/$1" --tail=50 >&2 || true
	exit 1
}
# summary CONFIGMAP DIR: the report a run left in its ConfigMap.
summary() {
	mkdir -p "$2"
	"$kubectl" -n "$ns" get configmap "$1" -o jsonpath='{.data.summary\.json}' >"$2/summary.json"
}

# The scenarios' pods run for real on this machine's one kind node (the
# printenv image, started by a kubelet sharing two cores with the API
# server, the policy controller and the run): a Deployment's pod took more
# than the 30 s a check waits by default to be made, run and read (3 to 4
# workload scenarios of 82 failed, 2026-11-27), so the checks wait longer.
waits=(--wait 2m)
log "kubectl apply -k deploy/conformance (the whole suite, the policy profile)"
began=$SECONDS
"$kubectl" apply -k "$(overlay whole conformance --profile policy --cluster-printenv "${waits[@]}")" >&2
whole=$(finished presetsim-conformance)
"$kubectl" -n "$ns" logs job/presetsim-conformance >"$work/whole.log" 2>&1 || true
log "job presetsim-conformance: $whole in $((SECONDS - began)) s; the end of its log ($work/whole.log):"
tail -n 6 "$work/whole.log" >&2
summary presetsim-verdict "$work/reports/whole"

log "kubectl apply -k deploy/conformance/sharded (3 shards, the policy profile, 2 scenarios at a time each)"
began=$SECONDS
# The three shards share this machine's one kind node with its API server
# and the policy controller: at the default 4 scenarios working at once each
# (and their settle windows overlapping, steps/slots.go), a preset's policy
# took more than the 10 s a scenario waits for it (2 scenarios of 81 failed,
# 2026-11-26). On a cluster of several nodes the shards need no such bound.
"$kubectl" apply -k "$(overlay sharded conformance/sharded --profile policy --cluster-printenv --concurrency 2 "${waits[@]}")" >&2
sharded=$(finished presetsim-conformance-sharded)
log "job presetsim-conformance-sharded: $sharded in $((SECONDS - began)) s"
for i in 0 1 2; do
	pod=$("$kubectl" -n "$ns" get pods -l batch.kubernetes.io/job-name=presetsim-conformance-sharded,batch.kubernetes.io/job-completion-index=$i -o name | head -1)
	"$kubectl" -n "$ns" logs "$pod" >"$work/shard-$i.log" 2>&1 || true
	log "shard $((i + 1))/3: $(grep '^outcomes:' "$work/shard-$i.log" || tail -n 1 "$work/shard-$i.log") ($work/shard-$i.log)"
done
for i in 0 1 2; do
	summary "presetsim-verdict-$i" "$work/reports/shard-$i"
done
"$presetsim" report merge --out "$work/reports/merged" "$work"/reports/shard-{0,1,2} || true
"$presetsim" report verdict "$work/reports/whole" >"$work/whole.verdict"
"$presetsim" report verdict "$work/reports/merged" >"$work/merged.verdict"
if ! diff -u "$work/whole.verdict" "$work/merged.verdict" >&2; then
	log "FAIL: the 3 shards merged are not the whole run's verdict (above: - whole, + merged); the shards' failures:"
	grep -h -A3 '^  FAIL' "$work"/shard-{0,1,2}.log | cut -c1-600 >&2 || true
	exit 1
fi
log "the 3 shards merged are the whole run's verdict: $(grep '^totals:' "$work/whole.verdict")"
if [[ "$whole" != Complete ]]; then
	log "FAIL: the in-cluster run failed:"
	grep -A1 'FAIL\|failed' "$work/whole.verdict" >&2 || true
	exit 1
fi
log "passed in $((SECONDS - started)) s"
