package harness

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

func (w *World) waitForImplementation(ctx context.Context) error {
	w.DefaultingNamespace = "presetsim-" + w.RunID + "-defaults"
	if err := w.cluster.CreateNamespace(ctx, w.DefaultingNamespace, map[string]string{RunLabel: w.RunID}); err != nil {
		return err
	}
	probeNS := "presetsim-" + w.RunID + "-probe"
	if err := w.cluster.CreateNamespace(ctx, probeNS, w.admittedLabels()); err != nil {
		return err
	}
	pp := &v1alpha1.PodPreset{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: probeNS},
		Spec: v1alpha1.PodPresetSpec{
			Selector: metav1.LabelSelector{MatchLabels: map[string]string{"presetsim.dev/probe": "true"}},
			Env:      []corev1.EnvVar{{Name: "PRESETSIM_PROBE", Value: "1"}},
		},
	}
	created, gvr, err := w.createPreset(ctx, pp)
	if err != nil {
		return fmt.Errorf("unable to create the probe %s: %w", w.PresetKind(), err)
	}
	if err := w.WaitForPreset(ctx, probeNS, "probe", created); err != nil {
		return err
	}
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: probeNS, Labels: map[string]string{"presetsim.dev/probe": "true"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "probe", Image: "probe"}}},
	}
	podObj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return err
	}
	var (
		last          error
		refusedSince  time.Time
		failingSince  time.Time
		unmutated     int
		triedRealPods int
	)
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := w.cluster.Create(ctx, backend.Pods, &unstructured.Unstructured{Object: podObj}, backend.CreateOptions{DryRun: true})
		if err != nil {
			if ctx.Err() != nil && last != nil {
				return false, nil // the deadline, not news: keep what the API server said
			}
			last = err
			// A webhook that keeps refusing connections is a setup error,
			// said once, not a failure of every scenario.
			if !isRefused(err) {
				refusedSince = time.Time{}
				// The API server reached the webhook and could not use its
				// answer (a malformed response, an error): say so in seconds,
				// in the API server's own words.
				if failingSince.IsZero() {
					failingSince = time.Now()
				} else if time.Since(failingSince) > answerGrace {
					return false, fmt.Errorf("the API server cannot use the %s webhook's answers: %v%s", w.Profile.Spec.Preset.Kind, err, w.processState())
				}
			} else if refusedSince.IsZero() {
				refusedSince = time.Now()
			} else if grace := w.refusedGrace(); time.Since(refusedSince) > grace {
				return false, fmt.Errorf("the webhook refuses connections (for %s): %v%s", grace, err, w.processState())
			}
			if state := w.processState(); state != "" {
				return false, fmt.Errorf("the webhook does not answer: %v%s", err, state)
			}
			return false, nil
		}
		failingSince, refusedSince = time.Time{}, time.Time{}
		// Look for the injected env var, not the annotation: a module that
		// writes no annotation (or another key) still answers.
		if mutated, err := hasProbeVar(got); err != nil || mutated {
			return mutated, err
		}
		if times, known := w.PodCreateSent(probeNS, pod.Name); known && times == 0 {
			// Its own registration leaves the run's namespaces out: no
			// pod will tell whether it is ready, and each scenario that
			// submits one fails on R5.4, which is the verdict. That it
			// accepts connections is what can be known: a pod that its
			// registration does send it would find it listening.
			if p := implementation.ProcessOf(w.impl); p != nil {
				if err := p.Dial(ctx); err != nil {
					last = fmt.Errorf("its registration sends it no probe pod, and it does not accept connections: %w", err)
					if state := w.processState(); state != "" {
						return false, fmt.Errorf("the webhook does not answer: %v%s", last, state)
					}
					return false, nil
				}
			}
			w.probeNote = "the API server does not send the probe pod's creation to the webhook, so its readiness is not confirmed: its registration leaves the run's namespaces out"
			if findings := w.RegistrationFindings(); len(findings) > 0 {
				w.probeNote += " (" + strings.Join(findings, "; ") + ")"
			}
			return true, nil
		}
		unmutated++
		last = fmt.Errorf("the webhook answered, but did not mutate the dry-run probe pod (no %s)", probeVar)
		if unmutated%20 != 0 {
			return false, nil
		}
		// It answers: maybe it leaves dry runs alone (R2.1). A real pod tells.
		triedRealPods++
		mutated, err := w.probeRealPod(ctx, podObj, triedRealPods)
		if err != nil {
			last = err
			return false, nil
		}
		if mutated {
			w.probeNote = "the webhook answers, but did not mutate the dry-run probe pod, only a real one: dry-run scenarios (R2.1) will fail"
			return true, nil
		}
		last = fmt.Errorf("the webhook answered, but mutated neither the dry-run probe pod nor a real one (no %s): it does not apply the probe %s", probeVar, w.Profile.Spec.Preset.Kind)
		switch {
		case w.acceptUnmutated:
			w.probeNote = last.Error()
			return true, nil
		case triedRealPods >= 3:
			return false, last // it answers, so waiting longer will not help
		}
		return false, nil
	})
	if err != nil {
		if !wait.Interrupted(err) {
			err = fmt.Errorf("setup error: %w", err)
		} else {
			err = fmt.Errorf("the admission webhook is not ready after 30s: %v%s", last, w.processState())
		}
		if output := w.ModuleOutput(); output != "" {
			err = fmt.Errorf("%w\n%s", err, output)
		}
		return err
	}
	// The probe has done its work: a cluster that stays up (presetsim up)
	// shows the user's presets only.
	if err := w.cluster.Delete(ctx, gvr, probeNS, pp.Name); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("unable to delete the probe %s: %w", w.PresetKind(), err)
	}
	return nil
}

// answerGrace is how long the readiness probe lets the API server fail to
// use a webhook's answers before it says so: long enough for a webhook that
// is still starting, short enough to show a real cause at once.
const answerGrace = 5 * time.Second

// probeVar is the env var the probe preset injects.
const probeVar = "PRESETSIM_PROBE"

// hasProbeVar reports whether a probe pod got the probe preset's env var.
func hasProbeVar(u *unstructured.Unstructured) (bool, error) {
	probe, err := backend.ToPod(u)
	if err != nil {
		return false, err
	}
	for _, c := range probe.Spec.Containers {
		for _, e := range c.Env {
			if e.Name == probeVar {
				return true, nil
			}
		}
	}
	return false, nil
}

// probeRealPod creates the probe pod for real (not as a dry run), reports
// whether it was mutated, and deletes it.
func (w *World) probeRealPod(ctx context.Context, podObj map[string]any, n int) (bool, error) {
	pod := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(podObj)}
	pod.SetName(fmt.Sprintf("probe-real-%d", n))
	got, err := w.cluster.Create(ctx, backend.Pods, pod, backend.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("the webhook answered, but did not mutate the dry-run probe pod, and a real probe pod was refused: %w", err)
	}
	if err := w.cluster.Delete(ctx, backend.Pods, got.GetNamespace(), got.GetName()); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("unable to delete the real probe pod: %w", err)
	}
	return hasProbeVar(got)
}

// createPreset creates the preset as the implementation's kind and returns
// its resourceVersion and resource.
func (w *World) createPreset(ctx context.Context, pp *v1alpha1.PodPreset) (string, schema.GroupVersionResource, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pp)
	if err != nil {
		return "", schema.GroupVersionResource{}, err
	}
	impl, gvr, err := w.PresetObject(&unstructured.Unstructured{Object: u})
	if err != nil {
		return "", gvr, err
	}
	obj, err := w.cluster.Create(ctx, gvr, impl, backend.CreateOptions{})
	if err != nil {
		return "", gvr, err
	}
	return obj.GetResourceVersion(), gvr, nil
}

// processState says how the implementation's process ended, if it has one
// and it has ended ("" otherwise), as a message suffix.
func (w *World) processState() string {
	if p := implementation.ProcessOf(w.impl); p != nil {
		return p.ProcessState()
	}
	return ""
}

// refusedGrace is how long the implementation may refuse connections at
// start-up: 10s, or what its process asks for.
func (w *World) refusedGrace() time.Duration {
	if p := implementation.ProcessOf(w.impl); p != nil {
		return p.RefusedGrace()
	}
	return 10 * time.Second
}

// isRefused reports whether the API server could not connect to the webhook.
func isRefused(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection refused")
}
