package scenario

import (
	"context"
	"strings"
	"testing"

	"presetsim.dev/presetsim/internal/backend/offlinetest"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/manifest"
)

const envObjects = `apiVersion: v1
kind: Secret
metadata:
  name: db
stringData:
  password: s3cr3t
---
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: web
      image: i
      env:
        - name: PW
          valueFrom:
            secretKeyRef: {name: db, key: password}
        - name: URL
          value: postgres://u:$(PW)@db
---
apiVersion: v1
kind: Pod
metadata:
  name: waiting
spec:
  containers:
    - name: web
      image: i
      envFrom:
        - configMapRef: {name: app-config}
`

// TestEnvironmentSteps covers the environment steps on the offline backend:
// Secret values are masked in every message unless ShowSecrets, and a
// missing ConfigMap is the step's outcome when there are no nodes.
func TestEnvironmentSteps(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	s := New(w)
	if err := s.Create(ctx, manifest.Source{File: "env.feature", Line: 1}, envObjects, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.SeesEnvironment(ctx, "web", "web", []EnvVar{{"PW", "s3cr3t"}, {"URL", "postgres://u:s3cr3t@db"}}, false); err != nil {
		t.Errorf("the right environment was refused: %v", err)
	}

	checks := []struct {
		name string
		run  func() error
		want string
	}{
		{"a wrong value", func() error { return s.SeesEnvironment(ctx, "web", "web", []EnvVar{{"PW", "wrong"}}, false) }, "PW: want ***, got ***"},
		{"a wrong derived value", func() error {
			return s.SeesEnvironment(ctx, "web", "web", []EnvVar{{"URL", "x"}}, false)
		}, "URL: want ***, got ***"},
		{"an unexpected variable", func() error { return s.SeesEnvironment(ctx, "web", "web", nil, true) }, "PW: want <unset>, got ***"},
		{"a variable that should not be seen", func() error { return s.DoesNotSee(ctx, "web", "web", []string{"PW"}) }, "PW = ***"},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			w.ShowSecrets = false
			err := c.run()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the Secret's value is in the message: %v", err)
			}
			w.ShowSecrets = true
			if err := c.run(); err == nil || !strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("with ShowSecrets, the value is not shown: %v", err)
			}
		})
	}
	w.ShowSecrets = false

	if err := s.FailsToStart(ctx, "waiting", "web", "CreateContainerConfigError", `configmap "app-config" not found`); err != nil {
		t.Errorf("missing ConfigMap not reported: %v", err)
	}
	if err := s.FailsToStart(ctx, "waiting", "web", "CreateContainerConfigError", "something else"); err == nil {
		t.Errorf("a wrong message was accepted")
	}
	if err := s.FailsToStart(ctx, "web", "web", "CreateContainerConfigError", ""); err == nil {
		t.Errorf("a container that can start was reported as failing")
	}
	if _, ok := backend.IsUnsupported(s.BecomesReady(ctx, "web")); !ok {
		t.Errorf("BecomesReady without nodes is not unsupported")
	}
}
