package policy_test

import (
	"context"
	"flag"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/internal/fuzz"
	"presetsim.dev/presetsim/presets/defaults"
	"presetsim.dev/presetsim/presets/model"
	"presetsim.dev/presetsim/presets/policy"
)

var cases = flag.Int("cases", 100, "generated cases TestMatchesModel runs")

// TestMatchesModel: on cases the fuzzer generates (presets whose items
// collide with each other's and with the pod's, shared items, excluded
// and mirror pods), the compiled policy, evaluated by the API server's own
// CEL pieces, makes of each pod what the model of the specification says,
// on the first admission and on the second the API server makes of its
// output. Without an API server: the suite on envtest checks the rest
// (the binding, defaulting, the real dispatcher).
func TestMatchesModel(t *testing.T) {
	n := *cases
	if testing.Short() {
		n = 30
	}
	ctx := context.Background()
	checked := 0
	for i := range n {
		seed := fuzz.CaseSeed(7, i)
		c := fuzz.Generate(seed)
		objs, err := policy.Compile("default", c.Presets, policy.Options{})
		if err != nil {
			continue // an invalid preset (the generator breaks some): not this test's
		}
		pod := defaults.Pod(c.Pod)
		pod.Namespace = "default"
		want := model.Admit(model.Admission{Presets: c.Presets, Pod: pod}, model.Options{})[0]
		if len(want.InvalidSelectors) > 0 {
			continue
		}
		e := newEvaluator(t, objs.Policy)
		got, err := e.admit(ctx, pod.DeepCopy())
		if err != nil {
			t.Errorf("seed %d: the policy refuses the pod: %v", seed, err)
			continue
		}
		got = defaults.Pod(got) // as the dispatcher defaults the patched pod
		if !equality.Semantic.DeepEqual(got, want.Pod) {
			t.Errorf("seed %d: the policy's pod differs from the model's (-model +policy):\n%s", seed, cmp.Diff(want.Pod, got))
			continue
		}
		again, err := e.admit(ctx, got.DeepCopy())
		if err != nil {
			t.Errorf("seed %d: the policy refuses its own output: %v", seed, err)
			continue
		}
		if again = defaults.Pod(again); !equality.Semantic.DeepEqual(again, got) {
			t.Errorf("seed %d: admitting the policy's output again changes it (R3.8):\n%s", seed, cmp.Diff(got, again))
		}
		checked++
	}
	if checked < n/2 {
		t.Errorf("only %d of %d cases were checked", checked, n)
	}
	t.Logf("%d of %d generated cases checked", checked, n)
}
