package audit

import (
	"bytes"
	"flag"
	"testing"

	"presetsim.dev/presetsim/internal/report/reporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestWriteTable: the table by workload, each drifted workload's findings
// once (not once per pod) and its fix.
func TestWriteTable(t *testing.T) {
	missing := Finding{Kind: Missing, Preset: "late", Detail: "late (resourceVersion 12) applies to the template and the pod does not carry it: created before the preset, or admitted while the implementation was down under failurePolicy Ignore"}
	deleted := Finding{Kind: Deleted, Preset: "doomed", Detail: "carries doomed (resourceVersion 9), which no longer exists"}
	r := &Report{Unowned: 2, Workloads: []Workload{
		{Namespace: "shop", Kind: "Deployment", Name: "fine", Pods: []Pod{{Name: "fine-1"}}},
		{Namespace: "shop", Kind: "Deployment", Name: "web", Pods: []Pod{{Name: "web-1", Findings: []Finding{missing}}, {Name: "web-2", Findings: []Finding{missing, deleted}}}},
		{Namespace: "shop", Kind: "ReplicaSet", Name: "bare", Pods: []Pod{{Name: "bare-x", Findings: []Finding{deleted}}}},
	}}
	for i := range r.Workloads {
		if r.Workloads[i].Drifted() {
			r.Workloads[i].Fix = fix(r.Workloads[i])
		}
	}
	var b bytes.Buffer
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	reporttest.Golden(t, "table", b.Bytes(), *update)
}
