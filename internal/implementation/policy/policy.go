// Package policy is the implementation under test when PodPreset is a
// MutatingAdmissionPolicy: the reference's presets compiled into one policy
// per namespace (package presets/policy), with a warning policy beside it,
// which the API server evaluates itself. The harness installs the
// reference CRD and runs the compiling controller in-process; no webhook of
// the harness is registered, so what the suite sees is the API server's
// doing. On the offline backend the API server's own policy plug-ins
// evaluate the policies in-process (package policyplugin).
package policy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/policyplugin"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
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

	api     *backend.API        // the API server evaluating the policies, or nil
	chain   *policyplugin.Chain // or the plug-ins evaluating them in-process
	cluster backend.Objects
	target  implementation.Target
	ctrl    *presetpolicy.Controller
	cancel  context.CancelFunc
	done    chan error

	mu      sync.Mutex
	lastErr error // the controller's last failure to write, for messages
	// uncompilable are the namespaces whose presets, as they are now, do
	// not compile (presets an API server would not have stored).
	uncompilable map[string]*presetpolicy.CompileError
}

// New returns the policy implementation; Install starts it.
func New(o Options) *Policy {
	return &Policy{opts: o, uncompilable: map[string]*presetpolicy.CompileError{}}
}

// Name says what runs.
func (p *Policy) Name() string { return "MutatingAdmissionPolicy compiled from the presets" }

// Profile is the profile the policy is tested with when the run names
// none (implementation.Profiled): profiles/policy.yaml, which declares what
// a MutatingAdmissionPolicy cannot do.
func (p *Policy) Profile() (*profile.Profile, error) { return profile.Shipped("policy.yaml") }

// CRD is ReferenceCRD: the presets are the reference's.
func (p *Policy) CRD() implementation.CRDSource { return implementation.ReferenceCRD }

// Install checks that the API server serves MutatingAdmissionPolicy and
// installs the reference CRD, or, on a cluster without an API server,
// starts the API server's policy plug-ins in-process; then it starts the
// controller that compiles each namespace's presets into its policies and
// bindings, and waits until it has listed the presets.
func (p *Policy) Install(ctx context.Context, t implementation.Target) error {
	if gvk := t.Profile.PresetGVK(); gvk != v1alpha1.SchemeGroupVersion.WithKind("PodPreset") {
		return fmt.Errorf("the policy implementation compiles the reference PodPreset (%s), not the profile's %s", v1alpha1.SchemeGroupVersion.WithKind("PodPreset"), gvk)
	}
	p.cluster, p.target = t.Cluster, t
	policies, presets, err := p.install(ctx, t)
	if err != nil {
		return err
	}
	p.ctrl = presetpolicy.NewController(policies, presets, presetpolicy.ControllerOptions{
		Options:  presetpolicy.Options{FailurePolicy: p.opts.FailurePolicy},
		Decorate: p.decorate,
		OnError: func(err error) {
			p.mu.Lock()
			p.lastErr = err
			var compile *presetpolicy.CompileError
			if errors.As(err, &compile) {
				p.uncompilable[compile.Namespace] = compile
			}
			p.mu.Unlock()
		},
		OnWrite: func(namespace, _ string) {
			p.mu.Lock()
			delete(p.uncompilable, namespace)
			p.mu.Unlock()
		},
	})
	var runCtx context.Context
	runCtx, p.cancel = context.WithCancel(context.Background())
	p.done = make(chan error, 1)
	go func() { p.done <- p.ctrl.Run(runCtx) }()
	// Presets written before the controller has listed them would reach
	// it only through a relist.
	synced := t.Wait
	if synced == 0 {
		synced = implementation.DefaultSyncTimeout
	}
	err = wait.PollUntilContextTimeout(ctx, time.Millisecond, synced, true, func(context.Context) (bool, error) {
		return p.ctrl.HasSynced(), nil
	})
	if err != nil {
		return fmt.Errorf("the policy controller has not listed the presets: %w", err)
	}
	return nil
}

// install readies what evaluates the policies: the API server, or where
// there is none, its admission-policy plug-ins run in-process by the
// cluster (package policyplugin). It returns where the policies are
// written and where the presets are read.
func (p *Policy) install(ctx context.Context, t implementation.Target) (kubernetes.Interface, dynamic.Interface, error) {
	if p.api = backend.APIOf(t.Cluster); p.api != nil {
		if err := served(p.api); err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(t.Progress, "installing the %s CRD ...\n", t.Profile.PresetGVK().Kind)
		if err := implementation.InstallCRD(ctx, p.api, t.Profile); err != nil {
			return nil, nil, err
		}
		fmt.Fprintln(t.Progress, "compiling presets into MutatingAdmissionPolicies (no webhook) ...")
		return p.api.Client, p.api.Dynamic, nil
	}
	inProcess, ok := t.Cluster.(backend.InProcessAdmission)
	if !ok {
		return nil, nil, fmt.Errorf("the %s backend has neither an API server nor in-process admission to evaluate a MutatingAdmissionPolicy", t.Backend)
	}
	clients := t.Cluster.Clients()
	chain, err := policyplugin.Start(ctx, policyplugin.Deps{
		Namespaces: clients.Typed, Dynamic: clients.Dynamic, Mapper: t.Cluster.Mapper(), Scheme: manifest.Scheme(),
		Default: policyplugin.DefaultPod,
	})
	if err != nil {
		return nil, nil, err
	}
	p.chain = chain
	fmt.Fprintln(t.Progress, "compiling presets into MutatingAdmissionPolicies, evaluated in-process by the API server's plug-in ...")
	if err := inProcess.Admit(chain, backend.AdmitOptions{Namespaces: t.Namespaces, Unsubscribed: t.Unsubscribed}); err != nil {
		return nil, nil, err
	}
	return chain.Client(), clients.Dynamic, nil
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
	for _, obj := range o.All() {
		m, err := meta.Accessor(obj)
		if err != nil {
			continue // all four are objects
		}
		labels := m.GetLabels()
		labels[backend.RunLabel] = p.target.RunID
		m.SetLabels(labels)
	}
	if sel := p.target.Namespaces; sel != nil {
		for _, ns := range []*metav1.LabelSelector{o.Binding.Spec.MatchResources.NamespaceSelector, o.WarningBinding.Spec.MatchResources.NamespaceSelector} {
			for k, v := range sel.MatchLabels {
				ns.MatchLabels[k] = v
			}
			ns.MatchExpressions = append(ns.MatchExpressions, sel.MatchExpressions...)
		}
	}
}

// WaitForPreset waits until the controller has written the namespace's
// policy with the preset at resourceVersion or later, then until the API
// server applies it to a dry-run pod (implementation.ProbePreset).
func (p *Policy) WaitForPreset(ctx context.Context, namespace, name, resourceVersion string) error {
	err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, p.controllerWait(), true, func(context.Context) (bool, error) {
		rv, ok := presetpolicy.CompiledVersion(p.ctrl.Compiled(namespace), name)
		if ok && implementation.NotOlder(rv, resourceVersion) {
			return true, nil
		}
		// A preset that does not compile at this version never will.
		p.mu.Lock()
		broken := p.uncompilable[namespace]
		p.mu.Unlock()
		if broken != nil {
			if rv, ok := presetpolicy.CompiledVersion(broken.Presets, name); ok && implementation.NotOlder(rv, resourceVersion) {
				return false, broken
			}
		}
		return false, nil
	})
	if err != nil {
		p.mu.Lock()
		last := p.lastErr
		p.mu.Unlock()
		var compile *presetpolicy.CompileError
		if last != nil && !errors.As(err, &compile) {
			return fmt.Errorf("PodPreset %s/%s at resourceVersion %s is not compiled into a policy: %w", namespace, name, resourceVersion, last)
		}
		return fmt.Errorf("PodPreset %s/%s at resourceVersion %s is not compiled into a policy: %w", namespace, name, resourceVersion, err)
	}
	// The API server compiles each written policy in its own time: a
	// probe pod says when it applies the preset (at least
	// implementation.CompileWait; the probe's error says what the API
	// server applies meanwhile).
	return implementation.ProbeCompiled(ctx, p.cluster, namespace, name, resourceVersion, p.target.Wait, true)
}

// controllerWait bounds the waits for the controller: its one worker
// writes four objects per namespace it compiles, and with many namespaces
// changing at once on a loaded host (fuzz at --concurrency 24 beside other
// work) it has fallen more than the run's wait behind.
func (p *Policy) controllerWait() time.Duration {
	return max(p.target.Wait, implementation.CompileWait)
}

// WaitForgotten waits until the controller has compiled the namespace's
// presets, now deleted, out of its policy: with no preset left it deletes
// the policy and its binding, and records nothing compiled
// (implementation.Forgetter).
func (p *Policy) WaitForgotten(ctx context.Context, namespace string) error {
	err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, p.controllerWait(), true, func(context.Context) (bool, error) {
		return p.ctrl.Compiled(namespace) == "", nil
	})
	if err != nil {
		return fmt.Errorf("the policy of namespace %s still holds presets that were deleted (%s): %w", namespace, p.ctrl.Compiled(namespace), err)
	}
	return nil
}

// Stop stops the controller and deletes the policies and bindings it wrote
// (in-process, stops the plug-ins, which hold them).
func (p *Policy) Stop() error {
	if p.chain != nil {
		// In-process: the policies go with the plug-ins.
		defer p.chain.Stop()
	}
	if p.cancel == nil {
		return nil
	}
	p.cancel()
	errs := []error{<-p.done}
	if p.chain != nil {
		return errors.Join(errs...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	api := p.api.Client.AdmissionregistrationV1()
	runObjects := metav1.ListOptions{LabelSelector: backend.RunLabel + "=" + p.target.RunID}
	errs = append(errs,
		api.MutatingAdmissionPolicyBindings().DeleteCollection(ctx, metav1.DeleteOptions{}, runObjects),
		api.MutatingAdmissionPolicies().DeleteCollection(ctx, metav1.DeleteOptions{}, runObjects),
		api.ValidatingAdmissionPolicyBindings().DeleteCollection(ctx, metav1.DeleteOptions{}, runObjects),
		api.ValidatingAdmissionPolicies().DeleteCollection(ctx, metav1.DeleteOptions{}, runObjects),
	)
	return errors.Join(errs...)
}
