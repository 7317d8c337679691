package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// TestApplyInputs: the manifests apply's scaling runs read are valid, and
// hold what their figures are per: pods, or a preset's items.
func TestApplyInputs(t *testing.T) {
	tests := []struct {
		name           string
		content        string
		presets, pods  int
		itemsOfPresets int
	}{
		{name: "generated manifests", content: generatedManifests(50), presets: 10, pods: 50, itemsOfPresets: 10},
		{name: "a large preset", content: largePreset(300), presets: 1, pods: 1, itemsOfPresets: 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Decode(manifest.Source{File: tt.name, Line: 1}, tt.content, manifest.Scheme())
			if err != nil {
				t.Fatal(err)
			}
			presets, pods, items := 0, 0, 0
			for _, o := range objs {
				switch obj := o.Object.(type) {
				case *v1alpha1.PodPreset:
					presets++
					items += len(obj.Spec.Env)
				case *corev1.Pod:
					pods++
				}
			}
			if presets != tt.presets || pods != tt.pods || items != tt.itemsOfPresets {
				t.Errorf("%d presets of %d env vars and %d pods, want %d, %d and %d", presets, items, pods, tt.presets, tt.itemsOfPresets, tt.pods)
			}
		})
	}
}

// TestReadFuzzSummary: a fuzz run's pace is read from its fuzz.json, and
// a report with no pace to read is an error, not a rate of zero or
// infinity.
func TestReadFuzzSummary(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string // "" writes no file
		wantErr string
		cases   int
	}{
		{name: "a run's report", content: `{"seed": 1, "cases": 200, "casesSeconds": 8.5, "admissions": 470, "seconds": 9}`, cases: 200},
		{name: "no report", wantErr: "no such file"},
		{name: "not JSON", content: `cases: 200`, wantErr: "fuzz.json: invalid character"},
		{name: "an earlier binary's report, with no casesSeconds", content: `{"seed": 1, "cases": 200, "seconds": 9}`, wantErr: "no pace to read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.content != "" {
				if err := os.WriteFile(filepath.Join(dir, "fuzz.json"), []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sum, err := readFuzzSummary(dir)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			case tc.wantErr == "" && (sum.Cases != tc.cases || sum.Admissions != 470):
				t.Errorf("read %d cases and %d admissions, want %d and 470", sum.Cases, sum.Admissions, tc.cases)
			}
		})
	}
}
