package bench

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"
)

// TestChainsawTestsStandForSeedScenarios: every embedded chainsaw test is
// a chainsaw Test with a name of its own, opens with the seed feature and
// scenario it stands for, and that scenario is in that feature; so a
// renamed or removed seed scenario fails here, not in someone's
// side-by-side.
func TestChainsawTestsStandForSeedScenarios(t *testing.T) {
	header := regexp.MustCompile(`(?s)^# (features/\w+\.feature): "(.+?)"`)
	names := map[string]string{}
	err := fs.WalkDir(chainsawTests, "chainsaw", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Name() != "chainsaw-test.yaml" {
			t.Errorf("%s: chainsaw runs only files named chainsaw-test.yaml", p)
			return nil
		}
		data, err := fs.ReadFile(chainsawTests, p)
		if err != nil {
			return err
		}
		var test struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				Steps []any `json:"steps"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &test); err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if test.APIVersion != "chainsaw.kyverno.io/v1alpha1" || test.Kind != "Test" || len(test.Spec.Steps) == 0 {
			t.Errorf("%s: %s %s with %d steps, want a chainsaw.kyverno.io/v1alpha1 Test with steps", p, test.APIVersion, test.Kind, len(test.Spec.Steps))
		}
		if other, ok := names[test.Metadata.Name]; ok || test.Metadata.Name != filepath.Base(filepath.Dir(p)) {
			t.Errorf("%s: test name %q, want its folder's name, once (also %s)", p, test.Metadata.Name, other)
		}
		names[test.Metadata.Name] = p
		m := header.FindStringSubmatch(strings.ReplaceAll(string(data), "\n# ", " "))
		if m == nil {
			t.Errorf("%s: does not open with # features/….feature: \"scenario\"", p)
			return nil
		}
		feature, err := os.ReadFile(filepath.Join("..", "..", "..", m[1]))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if !strings.Contains(string(feature), "Scenario: "+m[2]+"\n") {
			t.Errorf("%s: %s has no scenario %q", p, m[1], m[2])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != chainsawTestCount() || len(names) == 0 {
		t.Errorf("%d tests, chainsawTestCount says %d", len(names), chainsawTestCount())
	}
	if _, ok := names[crossNamespaceTest]; !ok {
		t.Errorf("no chainsaw test %s: the second series would time all the tests again", crossNamespaceTest)
	}
}

// TestSeriesRatio: the pairwise median, run by run, not the ratio of the
// medians.
func TestSeriesRatio(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	for _, tc := range []struct {
		name                string
		presetsim, chainsaw []time.Duration
		want                float64
	}{
		{"one run", ms(1000), ms(4000), 0.25},
		{"pairwise, not medians (their ratio is 1)", ms(1000, 2000, 3000), ms(3000, 1000, 2000), 1.5},
		{"chainsaw faster", ms(3000, 3000, 3000), ms(1000, 1500, 2000), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (series{presetsim: tc.presetsim, chainsaw: tc.chainsaw}).ratio(); got != tc.want {
				t.Errorf("ratio = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestQuiet: waiting for a quiet cluster returns at once when no namespace
// is being deleted, once the last one is gone, and otherwise with an error
// that names what is still being deleted when its context ends.
func TestQuiet(t *testing.T) {
	terminating := func(name string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}
	}
	active := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	for _, tc := range []struct {
		name    string
		objects []runtime.Object
		goAway  string        // deleted after 300 ms
		within  time.Duration // the context's
		wantErr string
	}{
		{"nothing being deleted", []runtime.Object{active}, "", time.Second, ""},
		{"the last one goes", []runtime.Object{active, terminating("chainsaw-x")}, "chainsaw-x", 5 * time.Second, ""},
		{"one stays", []runtime.Object{active, terminating("chainsaw-y")}, "", 300 * time.Millisecond, "namespaces still being deleted: chainsaw-y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.objects...)
			if tc.goAway != "" {
				timer := time.AfterFunc(300*time.Millisecond, func() {
					_ = client.CoreV1().Namespaces().Delete(context.Background(), tc.goAway, metav1.DeleteOptions{})
				})
				defer timer.Stop()
			}
			ctx, cancel := context.WithTimeout(context.Background(), tc.within)
			defer cancel()
			err := quiet(ctx, client)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("quiet = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestReadSummary: the clean-up and the scenarios come from the summary
// presetsim run wrote; a summary without timing (a run that wrote its
// reports before it cleaned up) or none at all is an error.
func TestReadSummary(t *testing.T) {
	for _, tc := range []struct {
		name, file string // no file when empty
		wantErr    string
	}{
		{"timed", `{"apiVersion": "presetsim.dev/v1alpha1", "kind": "ConformanceReport", "scenarios": [{"name": "a"}, {"name": "b"}], "timing": {"cleanUpSeconds": 0.25}}`, ""},
		{"no timing", `{"apiVersion": "presetsim.dev/v1alpha1", "kind": "ConformanceReport", "scenarios": []}`, "has no timing"},
		{"not JSON", `{`, "summary.json"},
		{"another version", `{"apiVersion": "presetsim.dev/v9", "kind": "ConformanceReport"}`, "not a report this presetsim reads"},
		{"no summary", "", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := readSummary(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("readSummary = %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(s.Scenarios) != 2 || s.Timing.CleanUpSeconds != 0.25 {
				t.Errorf("readSummary = %+v, %v", s, err)
			}
		})
	}
}
