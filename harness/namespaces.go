package harness

import (
	"context"
	"maps"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"presetsim.dev/presetsim/harness/backend"
)

// NamespaceLabels are the labels of a scenario's namespace whose logical
// name is logical: the labels the profile says a namespace carries where
// the implementation is deployed (profile.Spec.NamespaceLabels), the run
// (for clean-up), the label the implementation's registration selects,
// and the logical name.
func (w *World) NamespaceLabels(logical string) map[string]string {
	labels := w.admittedLabels()
	labels[LogicalLabel] = logical
	return labels
}

// admittedLabels are the labels of a namespace of the run whose pods the
// implementation admits: the profile's namespace labels, the run and the
// label its registration selects.
func (w *World) admittedLabels() map[string]string {
	labels := map[string]string{}
	if w.Profile != nil {
		maps.Copy(labels, w.Profile.Spec.NamespaceLabels)
	}
	labels[RunLabel], labels[AdmissionLabel] = w.RunID, w.RunID
	return labels
}

// PooledNamespace returns a namespace of the logical namespace that was
// made ahead, if one is ready: ok is false for any other logical
// namespace, on a backend with no API server, and when none is ready (then
// the caller makes one; waiting for the pool made four scenarios at once
// slower, measured).
func (w *World) PooledNamespace(logical string) (name string, ok bool) {
	if logical != metav1.NamespaceDefault || w.pool == nil {
		return "", false
	}
	select {
	case name := <-w.pool.ready:
		return name, true
	default:
		return "", false
	}
}

// poolSize is how many namespaces are made ahead: one for each scenario
// the runner starts at once (steps.DefaultConcurrency).
const poolSize = 6

// namespacePool makes namespaces of the logical namespace "default" — the
// one nearly every scenario creates first — ahead of the scenarios that
// take them, made and warmed up (warmUp): the first pod created in a
// namespace costs about 100 ms more than the next while the API server is
// busy (docs/performance.md, "Where a minimal scenario's time went"). The
// pool is only a shortcut: when it is empty, or fails, scenarios make their
// namespaces themselves.
type namespacePool struct {
	ready  chan string
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startNamespacePool fills the pool until it is stopped, with poolSize
// namespaces made at once (a namespace takes about 100 ms to make and warm
// up, mostly waiting). Namespaces made and never taken carry the run's
// label, and go with the run's clean-up.
func (w *World) startNamespacePool() {
	ctx, cancel := context.WithCancel(context.Background())
	p := &namespacePool{ready: make(chan string, poolSize), cancel: cancel}
	for range poolSize {
		p.wg.Go(func() {
			for {
				name := metav1.NamespaceDefault + "-" + utilrand.String(8)
				err := w.cluster.CreateNamespace(ctx, name, w.NamespaceLabels(metav1.NamespaceDefault))
				switch {
				case apierrors.IsAlreadyExists(err):
					continue // drawn before: draw again
				case err != nil:
					return // stopped, or the API server refuses: scenarios make their own
				}
				w.warmUp(ctx, name)
				select {
				case p.ready <- name:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	w.pool = p
}

// warmUpClaim is the object of warmUp: a claim no API server stores.
var warmUpClaim = &unstructured.Unstructured{Object: map[string]any{
	"apiVersion": "v1", "kind": "PersistentVolumeClaim",
	"metadata": map[string]any{"name": "presetsim-warm-up"},
	"spec": map[string]any{
		"accessModes": []any{"ReadWriteOnce"},
		"resources":   map[string]any{"requests": map[string]any{"storage": "1Mi"}},
	},
}}

// warmUp has the API server do, once, what it does in a namespace the
// first time a pod is created there. LimitRanger admits pods and claims
// alike; when its cache holds no LimitRange of the namespace it lists them
// from the API server and keeps that answer for 30 s. That list is a
// consistent read from the watch cache, which waits for etcd's next
// progress notification — requested every 100 ms (progressRequestPeriod)
// — whenever writes have moved the revision on since, as a busy test run's
// do. Measured on envtest, 2026-11-26: the first pod in each of ten
// namespaces made seconds before, created one after the other, took 100
// ms; 5 ms once each namespace had seen a dry-run PersistentVolumeClaim; a
// dry-run ConfigMap (ResourceQuota's lookup, not LimitRanger's) did not
// help. A claim, because no webhook or policy under test is called for one:
// the implementation sees nothing. A refusal (a cluster whose RBAC allows
// no claims) only leaves the namespace cold.
func (w *World) warmUp(ctx context.Context, namespace string) {
	claim := warmUpClaim.DeepCopy()
	claim.SetNamespace(namespace)
	_, _ = w.cluster.Create(ctx, persistentVolumeClaims, claim, backend.CreateOptions{DryRun: true})
}

var persistentVolumeClaims = corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")

// stop stops filling the pool and waits for it.
func (p *namespacePool) stop() {
	if p != nil {
		p.cancel()
		p.wg.Wait()
	}
}
