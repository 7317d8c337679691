package preview

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/internal/manifest"
)

func TestRun(t *testing.T) {
	const input = `apiVersion: settings.k8s.io/v1alpha1
kind: PodPreset
metadata: {name: p}
spec:
  selector: {}
  env: [{name: A, value: "1"}]
---
apiVersion: v1
kind: Pod
metadata:
  name: excluded
  annotations: {podpreset.admission.kubernetes.io/exclude: "true"}
spec:
  containers: [{name: c, image: i}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "@daily"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: i}]
---
apiVersion: v1
kind: Secret
metadata: {name: ignored}
stringData: {k: v}
`
	objs, err := manifest.Decode(manifest.Source{File: "input.yaml", Line: 1}, input, manifest.Scheme())
	if err != nil {
		t.Fatal(err)
	}
	for _, impl := range Implementations {
		t.Run(string(impl), func(t *testing.T) { checkRun(t, objs, impl) })
	}
}

func checkRun(t *testing.T, objs []manifest.Object, impl Implementation) {
	results, err := Run(context.Background(), objs, impl)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Fatalf("%d results, want 2 (the pod and the CronJob's template)", len(results))
	}
	excluded, cron := results[0], results[1]
	if excluded.Source != "Pod excluded" || len(excluded.Applied) != 0 || len(excluded.Output.Spec.Containers[0].Env) != 0 {
		t.Errorf("the excluded pod was mutated: %+v", excluded)
	}
	if cron.Source != "CronJob nightly (pod template)" || strings.Join(cron.Applied, ",") != "p" {
		t.Errorf("CronJob template: source %q, applied %v", cron.Source, cron.Applied)
	}
	if got := cron.Output.Annotations["podpreset.admission.kubernetes.io/podpreset-p"]; got != OfflineResourceVersion {
		t.Errorf("annotation %q, want %q", got, OfflineResourceVersion)
	}
	if cron.Input.Annotations != nil {
		t.Errorf("the input pod was modified: %v", cron.Input.Annotations)
	}
}

// TestEachInOrder: pods admitted on several goroutines come out in the
// input's order, each admitted as one goroutine admits it, through either
// implementation.
func TestEachInOrder(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: settings.k8s.io/v1alpha1\nkind: PodPreset\nmetadata: {name: a}\nspec:\n  selector: {matchLabels: {tier: a}}\n  env: [{name: A, value: \"1\"}]\n---\n")
	b.WriteString("apiVersion: settings.k8s.io/v1alpha1\nkind: PodPreset\nmetadata: {name: b}\nspec:\n  selector: {matchLabels: {tier: b}}\n  env: [{name: A, value: \"2\"}]\n---\n")
	for i := range 300 {
		tier := []string{"a", "b", "c"}[i%3]
		fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata: {name: p%d, labels: {tier: %s}}\nspec:\n  containers: [{name: c, image: i}]\n---\n", i, tier)
	}
	objs, err := manifest.Decode(manifest.Source{File: "input.yaml", Line: 1}, b.String(), manifest.Scheme())
	if err != nil {
		t.Fatal(err)
	}
	for _, impl := range Implementations {
		t.Run(string(impl), func(t *testing.T) {
			want, err := Run(context.Background(), objs, impl)
			if err != nil {
				t.Fatal(err)
			}
			var in Input
			for _, o := range objs {
				if err := in.Add(o); err != nil {
					t.Fatal(err)
				}
			}
			var got []Result
			err = Each(context.Background(), &in, Options{Implementation: impl, Workers: 4, Explain: true}, YAML.Render, func(r Result, part []byte) error {
				if wantPart, err := YAML.Render(r); err != nil || !bytes.Equal(part, wantPart) {
					t.Errorf("%s: the part made beside admission is not the result's", r.Source)
				}
				got = append(got, r)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d results, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].Source != want[i].Source || !equality.Semantic.DeepEqual(got[i].Output, want[i].Output) || !slices.Equal(got[i].Applied, want[i].Applied) || len(got[i].Explained) != len(want[i].Explained) {
					t.Errorf("result %d: %s applied %v, want %s applied %v", i, got[i].Source, got[i].Applied, want[i].Source, want[i].Applied)
				}
			}
		})
	}
}
