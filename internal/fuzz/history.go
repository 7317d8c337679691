package fuzz

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/oracle"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// RecreatePercent is the share of cases with a history (Case.Recreate).
const RecreatePercent = 20

// Recreate is a case's history: once the pod is created, a preset of its
// namespace is deleted and created again under the same name with another
// spec (its selector kept, so that it still selects the pod), and the pod
// is created once more under another name, AgainSuffix added. The second
// pod is judged by the presets as they stand then (R6.1): once the
// implementation shows the new version, or once the profile's propagation
// window has passed, only the new one is right.
type Recreate struct {
	// Preset names the preset; Spec is its spec the second time.
	Preset string
	Spec   v1alpha1.PodPresetSpec
}

// AgainSuffix names the pod a case's history creates: the case's pod's
// name (or "website" for one with only a generateName) with the suffix.
const AgainSuffix = "-again"

// recreate gives a case, in RecreatePercent of the cases, its history. It
// draws from a source of its own, so that the rest of every case is what
// the same seed made before. A preset the pod was copied with is not
// chosen: its annotation on the pod is at the version stored first, which
// a written scenario cannot name once the preset is created again.
func recreate(seed uint64, c *Case) {
	g := gen{rand.New(rand.NewPCG(seed^0x4ec4ea7e, seed))}
	if !g.chance(RecreatePercent) {
		return
	}
	var names []string
	for _, p := range c.Presets {
		if !slices.Contains(c.Copied, p.Name) {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return
	}
	name := names[g.n(len(names))]
	old := c.Presets[slices.IndexFunc(c.Presets, func(p *v1alpha1.PodPreset) bool { return p.Name == name })]
	spec := g.preset(name, old.Namespace).Spec
	spec.Selector = *old.Spec.Selector.DeepCopy()
	c.Recreate = &Recreate{Preset: name, Spec: spec}
}

// againName is the name of the pod a case's history creates.
func againName(pod *corev1.Pod) string {
	name := pod.Name
	if name == "" {
		name = "website"
	}
	return name + AgainSuffix
}

// recreate runs a case's history once its pod was created (pod is the pod
// as submitted): the preset deleted and created again, a wait of at most
// the propagation window for the implementation to show the new version,
// then the pod created again under another name, with no owner (its
// conflict events, on that pod, are not the case's). A preset of the
// history that the case did not create (shrunk away, or refused) leaves
// the case without a history.
func (r runner) recreate(ctx context.Context, t *trial, h *Recreate, pod *corev1.Pod) error {
	i := slices.IndexFunc(t.obs.Presets, func(p *v1alpha1.PodPreset) bool { return p.Name == h.Preset })
	if i < 0 {
		return nil
	}
	before := t.obs.Presets[i]
	deleted := r.namespaces.deleting(t.taken[cmp.Or(before.Namespace, "default")], before.Name)
	if err := t.s.Delete(ctx, "PodPreset", before.Name); err != nil {
		return fmt.Errorf("the history's delete of %s %q: %w", r.w.PresetKind(), before.Name, err)
	}
	deleted()
	after := before.DeepCopy()
	after.ResourceVersion, after.Spec = "", *h.Spec.DeepCopy()
	created, pending, err := r.createPreset(ctx, t, after)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		t.obs.PresetErr = fmt.Errorf("%s %s/%s created again: %v", r.w.PresetKind(), after.Namespace, after.Name, err)
		return nil
	}
	after.ResourceVersion = created.GetResourceVersion()
	start := time.Now()
	deadline := start.Add(r.w.Profile.Propagation())
	wctx, cancel := context.WithDeadline(ctx, deadline)
	err = pending.Wait(wctx)
	cancel()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	r.lags.note(time.Since(start), err == nil)
	if err != nil {
		// Not shown within the window (or the wait gave up early): once
		// the window has passed, only the new version is right.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(deadline)):
		}
	}
	again := pod.DeepCopy()
	again.Name, again.GenerateName, again.OwnerReferences = againName(pod), "", nil
	t.obs.Again = &oracle.Again{Before: before, After: after, Pod: again, Create: r.create(ctx, t, again, false), TakenUp: err == nil}
	return nil
}

// recreateFeature writes the steps of a case's history: the preset deleted
// and created again, then the pod created again and what the model makes
// of it with the presets as they stand then.
func recreateFeature(b *strings.Builder, w *harness.World, h *Recreate, obs oracle.Observed, copied []string) {
	a := obs.Again
	fmt.Fprintf(b, "    When I delete the PodPreset %q\n", h.Preset)
	b.WriteString("    And the objects:\n")
	docString(b, a.After)
	again := a.Pod.DeepCopy()
	for _, name := range copied {
		if _, ok := again.Annotations[merge.AnnotationKey(name)]; ok {
			again.Annotations[merge.AnnotationKey(name)] = "${rv:" + name + "}"
		}
	}
	b.WriteString("    When I try to create:\n")
	docString(b, again)
	want := oracle.Expect(w, obs.Later())
	create := want.Create[0]
	if create.Refused {
		b.WriteString("    Then the request should be rejected with a message containing \"\"\n")
		return
	}
	b.WriteString("    Then the request should succeed\n")
	if w.Profile.Claims("warnings") {
		if len(create.Warnings) == 0 {
			b.WriteString("    And the request should have no warnings\n")
		}
		for _, m := range create.Warnings {
			fmt.Fprintf(b, "    And the request should have a warning containing %q\n", m)
		}
	}
	fmt.Fprintf(b, "    And the pod %q should be:\n", again.Name)
	docString(b, expectedPod(create, again.Name, copied))
}
