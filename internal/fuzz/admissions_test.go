package fuzz

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/internal/backend/offlinetest"
)

// TestAdmissionsCounted: a case counts each request it has the
// implementation admit: the pod's dry run and creation, its creation
// again (a history), and its follow-ups (an UPDATE of its labels, an
// ephemeral container, a ReplicaSet's creation when its template is one a
// ReplicaSet may have).
func TestAdmissionsCounted(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	pool, err := newNamespaces(w)
	if err != nil {
		t.Fatal(err)
	}
	r := runner{w: w, namespaces: pool, lags: &lags{}}
	plain := func(c Case) bool { return c.FollowUp == nil && c.Recreate == nil }
	for _, tc := range []struct {
		name string
		is   func(Case) bool
		want func(*trial) int
	}{
		{"a pod created", plain, func(*trial) int { return 2 }},
		{"a pod created again", func(c Case) bool { return c.FollowUp == nil && c.Recreate != nil }, func(tr *trial) int {
			if tr.obs.Again == nil {
				return 2
			}
			return 3
		}},
		{"a pod followed up", func(c Case) bool { return c.FollowUp != nil && c.Recreate == nil }, func(tr *trial) int {
			switch {
			case tr.obs.Create.Err != nil:
				return 2
			case tr.replicaSet:
				return 5
			}
			return 4
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed, found := uint64(1), 0; found < 3 && seed < 1000; seed++ {
				c := Generate(seed)
				if _, mirror := c.Pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror || !tc.is(c) || len(c.Others) > 0 {
					continue
				}
				tr, err := r.admit(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				if tr.obs.Invalid != nil || tr.obs.PresetErr != nil {
					_ = r.release(ctx, tr)
					continue // no pod created
				}
				found++
				if want := tc.want(tr); tr.admissions != want {
					t.Errorf("case seed %d: %d admissions, want %d", seed, tr.admissions, want)
				}
				if err := r.release(ctx, tr); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
