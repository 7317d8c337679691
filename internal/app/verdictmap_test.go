package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"presetsim.dev/presetsim/internal/report"
	"presetsim.dev/presetsim/outcome"
)

// TestPublishVerdict: the ConfigMap an in-cluster run leaves holds the
// summary.json that --report-dir would hold and the verdict, and a second run
// replaces it. (make test-kind writes and reads it on a real cluster.)
func TestPublishVerdict(t *testing.T) {
	dir := t.TempDir()
	write := func(passed bool) (*outcome.Report, []byte) {
		s := report.Build("impl", "v", "cluster", []report.ScenarioResult{{Name: "a.feature: one", Failed: !passed, Tags: []string{"@R2.1"}}})
		if err := report.Write(dir, s); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		return s, raw
	}
	client := fake.NewClientset()
	ctx := context.Background()
	for _, passed := range []bool{true, false} {
		summary, want := write(passed)
		if err := publishVerdict(ctx, client, "ci/verdict", summary); err != nil {
			t.Fatal(err)
		}
		cm, err := client.CoreV1().ConfigMaps("ci").Get(ctx, "verdict", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Data["summary.json"] != string(want) {
			t.Errorf("summary.json in the ConfigMap is not the report's")
		}
		var s outcome.Report
		if err := json.Unmarshal([]byte(cm.Data["summary.json"]), &s); err != nil || s.Passed != passed {
			t.Errorf("the ConfigMap's summary: passed %t (%v), want %t", s.Passed, err, passed)
		}
		if v := cm.Data["verdict"]; !strings.Contains(v, "rule R2.1") || !strings.Contains(v, "a.feature: one") {
			t.Errorf("verdict in the ConfigMap:\n%s", v)
		}
	}
	if _, err := os.Stat(serviceAccountNamespace); err == nil {
		t.Skip("this test runs in a pod: a name without namespace is the pod's")
	}
	if err := publishVerdict(ctx, client, "verdict", report.Build("impl", "v", "cluster", nil)); err == nil || !strings.Contains(err.Error(), "NAMESPACE/NAME") {
		t.Errorf("a ConfigMap without namespace outside a pod: %v", err)
	}
}
