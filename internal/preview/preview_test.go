package preview

import (
	"context"
	"strings"
	"testing"

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
