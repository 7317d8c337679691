package fuzz

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"presetsim.dev/presetsim/presets/conflict"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/oracle"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/model"
)

// Feature renders a case as a ready-to-run scenario in the step language:
// Given its presets, When the pod is created (a server-side dry run
// first), Then the outcome the model expects under the profile. The
// scenario is tagged with the rules the report names.
func Feature(w *harness.World, c Case, obs oracle.Observed, rep *Report) string {
	var b strings.Builder
	how := "shrunk"
	if rep.NotShrunk {
		how = "as found (not shrunk: the run shrinks its first kinds only)"
	}
	fmt.Fprintf(&b, "# Written by presetsim fuzz: case seed %d, %s.\n", rep.CaseSeed, how)
	fmt.Fprintf(&b, "# The implementation disagreed with the model (profile %s): %s\n", w.Profile.Metadata.Name, rep.Summary)
	b.WriteString("Feature: a case presetsim fuzz generated\n\n")
	var tags []string
	for _, r := range rep.Rules {
		tags = append(tags, "@"+string(r))
	}
	fmt.Fprintf(&b, "  %s\n  Scenario: case %d\n", strings.Join(tags, " "), rep.CaseSeed)
	if inv := obs.Invalid; len(oracle.InvalidDisagreements(w, inv)) > 0 {
		invalidFeature(&b, c, inv)
		return b.String()
	}
	want := oracle.Expect(w, obs)

	var objects []any
	for _, p := range c.creationOrder() {
		if inv := obs.Invalid; inv != nil && inv.Preset.Name == p.Name && inv.Preset.Namespace == p.Namespace {
			continue // refused, as it must be: the case went on without it
		}
		objects = append(objects, p)
	}
	if len(objects) > 0 {
		b.WriteString("    Given the objects:\n")
		docString(&b, objects...)
	}
	pod := obs.Pod.DeepCopy()
	name := pod.Name
	if name == "" {
		// The step language reads pods by name: the scenario names the
		// pod the case left unnamed (what an unnamed pod changes is in
		// the comment above).
		name = "website"
		pod.Name, pod.GenerateName = name, ""
		b.WriteString("    # The case's pod had a generateName and no name; it is named here.\n")
	}
	pod.OwnerReferences = nil
	for _, copied := range c.Copied {
		// A copy's annotation is at the version the preset is stored at.
		if _, ok := pod.Annotations[merge.AnnotationKey(copied)]; ok {
			pod.Annotations[merge.AnnotationKey(copied)] = "${rv:" + copied + "}"
		}
	}
	claims := w.Profile.Claims
	if len(want.DryRun) > 0 && !want.DryRun[0].Refused {
		b.WriteString("    When I try to create with a server-side dry run:\n")
		docString(&b, pod)
		b.WriteString("    Then the dry-run pod should be:\n")
		docString(&b, expectedPod(want.DryRun[0], name, c.Copied))
	}
	create := want.Create[0]
	if create.Refused {
		b.WriteString("    When I try to create:\n")
		docString(&b, pod)
		b.WriteString("    Then the request should be rejected with a message containing \"\"\n")
		fmt.Fprintf(&b, "    And the pod %q should not exist\n", name)
		return b.String()
	}
	b.WriteString("    When I try to create:\n")
	docString(&b, pod)
	b.WriteString("    Then the request should succeed\n")
	if claims("warnings") {
		if len(create.Warnings) == 0 {
			b.WriteString("    And the request should have no warnings\n")
		}
		for _, m := range create.Warnings {
			fmt.Fprintf(&b, "    And the request should have a warning containing %q\n", m)
		}
	}
	fmt.Fprintf(&b, "    And the pod %q should be:\n", name)
	docString(&b, expectedPod(create, name, c.Copied))
	if claims("events") {
		if len(create.Events) == 0 {
			fmt.Fprintf(&b, "    And the pod %q should have no events with reason %q\n", name, conflict.Reason)
		}
		if len(create.Events) > 0 && create.Events[0].Kind == "Pod" {
			fmt.Fprintf(&b, "    And the pod %q should have the event:\n      | type | reason | message |\n", name)
			for _, e := range create.Events {
				fmt.Fprintf(&b, "      | %s | %s | %s |\n", e.Type, e.Reason, e.Message)
			}
		}
	}
	if f := c.FollowUp; f != nil {
		followUpFeature(&b, f, name, obs.Pod)
	}
	if h := c.Recreate; h != nil && obs.Again != nil {
		recreateFeature(&b, w, h, obs, c.Copied)
	}
	return b.String()
}

// followUpFeature writes the steps of a case's follow-up: the pod labelled,
// given an ephemeral container, and a ReplicaSet of its template created,
// each as sent (R2.1, R3.2, R2.6).
func followUpFeature(b *strings.Builder, f *FollowUp, name string, pod *corev1.Pod) {
	fmt.Fprintf(b, "    When I label the pod %q with \"%s=%s\"\n", name, f.Label[0], f.Label[1])
	fmt.Fprintf(b, "    Then the pod %q should be as updated\n", name)
	fmt.Fprintf(b, "    When I add the ephemeral container to the pod %q:\n", name)
	container, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&DebugContainer)
	docString(b, container)
	fmt.Fprintf(b, "    Then the pod %q should be as updated\n", name)
	b.WriteString("    When I create the objects:\n")
	docString(b, FollowUpReplicaSetOf(pod))
	fmt.Fprintf(b, "    Then the ReplicaSet %q should be as submitted\n", FollowUpReplicaSet)
}

// invalidFeature writes the steps of a case whose invalid preset was
// stored, or refused without naming the field: Given the case's other
// presets, When the invalid one is created, Then the refusal names the
// first offending field path (R1.3–R1.6, R1.8).
func invalidFeature(b *strings.Builder, c Case, inv *oracle.InvalidPreset) {
	var objects []any
	for _, p := range c.creationOrder() {
		if p != inv.Preset && (p.Namespace != inv.Preset.Namespace || p.Name != inv.Preset.Name) {
			objects = append(objects, p)
		}
	}
	if len(objects) > 0 {
		b.WriteString("    Given the objects:\n")
		docString(b, objects...)
	}
	b.WriteString("    When I try to create:\n")
	docString(b, inv.Preset)
	fmt.Fprintf(b, "    Then the request should be rejected with a message containing %q\n", inv.Reasons[0].Err.Field)
}

// expectedPod is the model's pod as a "should be" DocString writes it:
// labels, annotations (the version of a preset applied, or of one the pod
// was copied with, as ${rv:<name>}) and spec.
func expectedPod(o model.Outcome, name string, copied []string) map[string]any {
	p := o.Pod.DeepCopy()
	annotations := maps.Clone(p.Annotations)
	for _, preset := range slices.Concat(o.Applied, copied) {
		if _, ok := annotations[merge.AnnotationKey(preset)]; ok {
			annotations[merge.AnnotationKey(preset)] = "${rv:" + preset + "}"
		}
	}
	meta := map[string]any{"name": name}
	if len(p.Labels) > 0 {
		meta["labels"] = p.Labels
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	spec, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&p.Spec)
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
}

// docString writes objects as a multi-document YAML DocString, without
// the empty fields Go's types add (creationTimestamp: null, status: {}).
func docString(b *strings.Builder, objects ...any) {
	b.WriteString("      \"\"\"\n")
	for i, o := range objects {
		if i > 0 {
			b.WriteString("      ---\n")
		}
		m, ok := o.(map[string]any)
		if !ok {
			if u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o); err == nil {
				m = u
			}
		}
		prune(m)
		if meta, ok := m["metadata"].(map[string]any); ok && meta["namespace"] == metav1.NamespaceDefault {
			delete(meta, "namespace")
		}
		data, err := yaml.Marshal(m)
		if err != nil {
			data = []byte(fmt.Sprintf("# unable to render: %v\n", err))
		}
		for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			b.WriteString("      " + line + "\n")
		}
	}
	b.WriteString("      \"\"\"\n")
}

// prune removes nil values and empty maps, recursively.
func prune(m map[string]any) {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			prune(v)
			if len(v) == 0 && k != "selector" {
				delete(m, k)
			}
		case []any:
			for _, item := range v {
				if im, ok := item.(map[string]any); ok {
					prune(im)
				}
			}
		}
	}
}
