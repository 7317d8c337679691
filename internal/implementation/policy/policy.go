// Package policy is the implementation under test when PodPreset is a
// MutatingAdmissionPolicy: the reference's presets compiled into one policy
// per namespace (package presets/policy), which the API server evaluates
// itself. The harness installs the reference CRD and runs the compiling
// controller in-process; no webhook of the harness is registered, so what
// the suite sees is the API server's doing.
package policy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/defaults"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/model"
	presetpolicy "presetsim.dev/presetsim/presets/policy"
)

// Name names the implementation on the command line (--implementation).
const Name = "policy"

// Options are the policy's choices.
type Options struct {
	// FailurePolicy of the compiled policies: Fail when empty.
	FailurePolicy admissionregistrationv1.FailurePolicyType
}

// Policy is PodPreset as MutatingAdmissionPolicies.
type Policy struct {
	opts Options

	api     *backend.API
	cluster backend.Objects
	target  implementation.Target
	ctrl    *presetpolicy.Controller
	cancel  context.CancelFunc
	done    chan error

	mu      sync.Mutex
	lastErr error // the controller's last failure to write, for messages
}

// New returns the policy implementation; Install starts it.
func New(o Options) *Policy { return &Policy{opts: o} }

// Name says what runs.
func (p *Policy) Name() string { return "MutatingAdmissionPolicy compiled from the presets" }

// CRD is ReferenceCRD: the presets are the reference's.
func (p *Policy) CRD() implementation.CRDSource { return implementation.ReferenceCRD }

// Install checks that the API server serves MutatingAdmissionPolicy,
// installs the reference CRD and starts the controller that compiles each
// namespace's presets into its policy and binding.
func (p *Policy) Install(ctx context.Context, t implementation.Target) error {
	api := backend.APIOf(t.Cluster)
	if api == nil {
		return fmt.Errorf("the %s backend has no API server to evaluate a MutatingAdmissionPolicy", t.Backend)
	}
	if gvk := t.Profile.PresetGVK(); gvk != v1alpha1.SchemeGroupVersion.WithKind("PodPreset") {
		return fmt.Errorf("the policy implementation compiles the reference PodPreset (%s), not the profile's %s", v1alpha1.SchemeGroupVersion.WithKind("PodPreset"), gvk)
	}
	p.api, p.cluster, p.target = api, t.Cluster, t
	if err := served(api); err != nil {
		return err
	}
	fmt.Fprintf(t.Progress, "installing the %s CRD ...\n", t.Profile.PresetGVK().Kind)
	if err := implementation.InstallCRD(ctx, api, t.Profile); err != nil {
		return err
	}
	fmt.Fprintln(t.Progress, "compiling presets into MutatingAdmissionPolicies (no webhook) ...")
	p.ctrl = presetpolicy.NewController(api.Client, api.Dynamic, presetpolicy.ControllerOptions{
		Options:  presetpolicy.Options{FailurePolicy: p.opts.FailurePolicy},
		Decorate: p.decorate,
		OnError: func(err error) {
			p.mu.Lock()
			p.lastErr = err
			p.mu.Unlock()
		},
	})
	var runCtx context.Context
	runCtx, p.cancel = context.WithCancel(context.Background())
	p.done = make(chan error, 1)
	go func() { p.done <- p.ctrl.Run(runCtx) }()
	return nil
}

// served says whether the API server serves MutatingAdmissionPolicy, in
// words a user of an older cluster understands.
func served(api *backend.API) error {
	gv := admissionregistrationv1.SchemeGroupVersion.String()
	resources, err := api.Client.Discovery().ServerResourcesForGroupVersion(gv)
	if err == nil {
		for _, r := range resources.APIResources {
			if r.Kind == "MutatingAdmissionPolicy" {
				return nil
			}
		}
	}
	return fmt.Errorf("the API server (%s) does not serve %s MutatingAdmissionPolicy: Kubernetes 1.36 or later is needed", api.Version, gv)
}

// decorate labels the objects with the run, so that a cluster that
// outlives the run can remove them, and narrows the binding to the run's
// namespaces.
func (p *Policy) decorate(o presetpolicy.Objects) {
	for _, m := range []*metav1.ObjectMeta{&o.Policy.ObjectMeta, &o.Binding.ObjectMeta} {
		m.Labels[backend.RunLabel] = p.target.RunID
	}
	if sel := p.target.Namespaces; sel != nil {
		ns := o.Binding.Spec.MatchResources.NamespaceSelector
		for k, v := range sel.MatchLabels {
			ns.MatchLabels[k] = v
		}
		ns.MatchExpressions = append(ns.MatchExpressions, sel.MatchExpressions...)
	}
}

// WaitForPreset waits until the controller has written the namespace's
// policy with the preset at resourceVersion or later, then until the API
// server applies it to a dry-run pod (implementation.ProbePreset).
func (p *Policy) WaitForPreset(ctx context.Context, namespace, name, resourceVersion string) error {
	err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, p.target.Wait, true, func(context.Context) (bool, error) {
		rv, ok := presetpolicy.CompiledVersion(p.ctrl.Compiled(namespace), name)
		return ok && implementation.NotOlder(rv, resourceVersion), nil
	})
	if err != nil {
		p.mu.Lock()
		last := p.lastErr
		p.mu.Unlock()
		if last != nil {
			return fmt.Errorf("PodPreset %s/%s at resourceVersion %s is not compiled into a policy: %w", namespace, name, resourceVersion, last)
		}
		return fmt.Errorf("PodPreset %s/%s at resourceVersion %s is not compiled into a policy: %w", namespace, name, resourceVersion, err)
	}
	// The API server applies the compiled policy once its own informer has
	// it, which on a loaded host takes seconds: a probe pod shows when. The
	// model says whether it can (not when the preset conflicts with another
	// for that pod), so the wait is as long as any and never wasted.
	shows := func(probe *corev1.Pod) bool {
		presets, err := p.ctrl.Presets(namespace)
		if err != nil {
			return false
		}
		outcomes := model.Admit(model.Admission{Presets: presets, Pod: defaults.Pod(probe)}, model.Options{})
		return len(outcomes) == 1 && outcomes[0].Pod != nil && outcomes[0].Pod.Annotations[merge.AnnotationKey(name)] != ""
	}
	return implementation.ProbePresetExpected(ctx, p.cluster, p.target.Profile, namespace, name, resourceVersion, p.target.Wait, shows)
}

// WaitForgotten waits until the controller has compiled the namespace's
// presets, now deleted, out of its policy: with no preset left it deletes
// the policy and its binding, and records nothing compiled
// (implementation.Forgetter).
func (p *Policy) WaitForgotten(ctx context.Context, namespace string) error {
	err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, p.target.Wait, true, func(context.Context) (bool, error) {
		return p.ctrl.Compiled(namespace) == "", nil
	})
	if err != nil {
		return fmt.Errorf("the policy of namespace %s still holds presets that were deleted (%s): %w", namespace, p.ctrl.Compiled(namespace), err)
	}
	return nil
}

// Stop stops the controller and deletes the policies and bindings it wrote.
func (p *Policy) Stop() error {
	if p.cancel == nil {
		return nil
	}
	p.cancel()
	errs := []error{<-p.done}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	api := p.api.Client.AdmissionregistrationV1()
	runObjects := metav1.ListOptions{LabelSelector: backend.RunLabel + "=" + p.target.RunID}
	errs = append(errs,
		api.MutatingAdmissionPolicyBindings().DeleteCollection(ctx, metav1.DeleteOptions{}, runObjects),
		api.MutatingAdmissionPolicies().DeleteCollection(ctx, metav1.DeleteOptions{}, runObjects),
	)
	return errors.Join(errs...)
}
