package fuzz

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/internal/scenario"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// namespaces is a run's pool of namespaces, by logical name. A case takes
// the namespaces it needs and gives them back when it has settled; they are
// emptied then and handed out again only after a quarantine, so that what
// an implementation does late for one case (a held-back event) is not seen
// by the next one; an implementation that applies deleted presets for a
// while (implementation.Forgetter: the policy) must first have forgotten
// them. On an API server, a new namespace costs a dozen requests
// (the default ServiceAccount, the admission plug-ins' first lookups, the
// namespace controller's clean-up of every resource); emptying one costs
// one per resource a case creates.
type namespaces struct {
	w *harness.World
	// resources are what every case leaves in a namespace: they are
	// emptied. Events are emptied only when a case may have left some
	// (give's others): most cases list their namespace's events and see
	// none.
	resources []schema.GroupVersionResource
	// presets is the resource of the implementation's presets.
	presets    schema.GroupVersionResource
	quarantine time.Duration
	// forgetter is the implementation, when it applies deleted presets
	// for a while.
	forgetter implementation.Forgetter

	mu   sync.Mutex
	free map[string][]freeNamespace // by logical name, oldest first
	all  map[string]bool            // every namespace the pool made
	// peers are the namespaces made for PeerNamespace, by the physical
	// name of the pool's namespace each extends (peer).
	peers map[string]string
	// held are the presets each namespace held for earlier cases
	// (record), by physical name: of each preset name, the first version
	// and the last.
	held map[string][]*v1alpha1.PodPreset
	// stored are the presets cases created in the pool's namespaces, from
	// the start of their create until a quarantine after their deletion
	// (an implementation's cache may hold them that long): what an
	// admission may see of other namespaces (elsewhere).
	stored map[*v1alpha1.PodPreset]presence
}

// presence is what the pool knows of a preset it noted: whether it is
// surely stored (its create returned and no deletion began), and when it
// was deleted.
type presence struct {
	sure bool
	gone time.Time
}

type freeNamespace struct {
	name string
	// since is when the namespace was emptied.
	since time.Time
}

// neverAgain is the quarantine of a pool that hands out no namespace twice.
const neverAgain = time.Duration(1<<63 - 1)

// newNamespaces returns an empty pool for a World's cases.
func newNamespaces(w *harness.World) (*namespaces, error) {
	gvk := w.Profile.PresetGVK()
	mapping, err := w.Objects().Mapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("unknown preset kind %s: %w", gvk, err)
	}
	forgetter, _ := w.Implementation().(implementation.Forgetter)
	return &namespaces{
		w:         w,
		forgetter: forgetter,
		// Pods first: an implementation may watch its presets and act on
		// the pods that are still there.
		resources:  []schema.GroupVersionResource{backend.Pods, mapping.Resource},
		presets:    mapping.Resource,
		quarantine: 2 * w.Timeouts.Settle,
		free:       map[string][]freeNamespace{},
		all:        map[string]bool{},
		peers:      map[string]string{},
		held:       map[string][]*v1alpha1.PodPreset{},
		stored:     map[*v1alpha1.PodPreset]presence{},
	}, nil
}

// take returns an empty namespace for a logical one, made when none has
// served its quarantine.
func (p *namespaces) take(ctx context.Context, logical string) (string, error) {
	p.mu.Lock()
	if free := p.free[logical]; len(free) > 0 && time.Since(free[0].since) >= p.quarantine {
		p.free[logical] = free[1:]
		p.mu.Unlock()
		return free[0].name, nil
	}
	p.mu.Unlock()
	name, err := scenario.NewNamespace(ctx, p.w, logical, utilrand.String(8))
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	p.all[name] = true
	p.mu.Unlock()
	return name, nil
}

// peer returns the namespace of PeerNamespace for a case whose pod's
// namespace is base: base's name extended as a scenario extends a
// namespace it made ("-peer"), made the first time a case in base needs it
// and kept with base: a case gives it back emptied (emptyPeer), and the
// next case in base that needs it takes it again. A namespace made and
// deleted for each such case (the default ServiceAccount, the namespace
// controller's list and delete of every resource) cost a run on an API
// server about four requests a case, a sixth of them (docs/performance.md).
func (p *namespaces) peer(ctx context.Context, base string) (string, error) {
	p.mu.Lock()
	name, made := p.peers[base]
	p.mu.Unlock()
	if made {
		return name, nil
	}
	name = base + strings.TrimPrefix(PeerNamespace, "default")
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return "", fmt.Errorf("the namespace %s of presets in another namespace: %s", name, strings.Join(errs, "; "))
	}
	if err := p.w.Objects().CreateNamespace(ctx, name, p.w.NamespaceLabels(PeerNamespace)); err != nil {
		return "", err
	}
	p.mu.Lock()
	p.all[name] = true
	p.peers[base] = name
	p.mu.Unlock()
	return name, nil
}

// emptyPeer empties a namespace peer made, of the presets a case created
// there, once the case is done; one that cannot be emptied is deleted, and
// made again when next needed.
func (p *namespaces) emptyPeer(ctx context.Context, base, name string) error {
	if err := p.clean(ctx, name, p.presets); err != nil {
		p.mu.Lock()
		delete(p.peers, base)
		p.mu.Unlock()
		return errors.Join(err, p.drop(ctx, name))
	}
	p.mu.Lock()
	p.forget(name)
	p.mu.Unlock()
	return nil
}

// storing notes a preset a case is about to create in one of the pool's
// namespaces (its Namespace the physical name); created is called with
// the preset as stored, with its resourceVersion, or nil when the create
// failed.
func (p *namespaces) storing(preset *v1alpha1.PodPreset) (created func(stored *v1alpha1.PodPreset)) {
	p.mu.Lock()
	p.stored[preset] = presence{}
	p.mu.Unlock()
	return func(stored *v1alpha1.PodPreset) {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.stored, preset)
		if stored != nil {
			p.stored[stored] = presence{sure: true}
		}
	}
}

// deleting notes that a case is deleting one of its presets; deleted is
// called once it is.
func (p *namespaces) deleting(namespace, name string) (deleted func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var gone []*v1alpha1.PodPreset
	for q := range p.stored {
		if q.Namespace == namespace && q.Name == name {
			p.stored[q] = presence{}
			gone = append(gone, q)
		}
	}
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, q := range gone {
			p.stored[q] = presence{gone: time.Now()}
		}
	}
}

// leaving notes that a namespace's presets are being deleted: from now
// on an admission may or may not see them.
func (p *namespaces) leaving(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for q, was := range p.stored {
		if q.Namespace == name && was.gone.IsZero() {
			p.stored[q] = presence{}
		}
	}
}

// forget notes that a namespace's presets are deleted; p.mu held.
func (p *namespaces) forget(name string) {
	for q, was := range p.stored {
		if q.Namespace == name && was.gone.IsZero() {
			p.stored[q] = presence{gone: time.Now()}
		}
	}
}

// elsewhere are the presets stored in namespaces of the run other than
// mine (physical names): those surely stored, and those on their way in
// or out (deleted less than a quarantine ago).
func (p *namespaces) elsewhere(mine []string) (held, passing []*v1alpha1.PodPreset) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for q, is := range p.stored {
		if !is.gone.IsZero() && time.Since(is.gone) > p.quarantine {
			delete(p.stored, q)
			continue
		}
		if slices.Contains(mine, q.Namespace) {
			continue
		}
		if is.sure {
			held = append(held, q)
		} else {
			passing = append(passing, q)
		}
	}
	return held, passing
}

// give empties a namespace a case took (of the pool's resources and
// others the case created) and puts it back; a namespace that cannot be
// emptied is deleted instead.
func (p *namespaces) give(ctx context.Context, logical, name string, others ...schema.GroupVersionResource) error {
	if err := p.clean(ctx, name, slices.Concat(p.resources, others)...); err != nil {
		return errors.Join(err, p.drop(ctx, name))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forget(name)
	p.free[logical] = append(p.free[logical], freeNamespace{name: name, since: time.Now()})
	return nil
}

// clean deletes the resources of a namespace of the pool's, noting that
// its presets are on their way out, and waits until the implementation has
// forgotten them (implementation.Forgetter).
func (p *namespaces) clean(ctx context.Context, name string, resources ...schema.GroupVersionResource) error {
	p.leaving(name)
	var errs []error
	for _, gvr := range resources {
		if err := p.w.Objects().DeleteAll(ctx, gvr, name); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("unable to delete the %s of namespace %s: %w", gvr.Resource, name, err))
		}
	}
	if len(errs) == 0 && p.forgetter != nil {
		if err := p.forgetter.WaitForgotten(ctx, name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// empty deletes the presets of a namespace the pool did not make (a case's
// scenario did), noting that they are on their way out and then gone.
func (p *namespaces) empty(ctx context.Context, name string) error {
	p.leaving(name)
	if err := p.w.Objects().DeleteAll(ctx, p.presets, name); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("unable to delete the %s of namespace %s: %w", p.presets.Resource, name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forget(name)
	return nil
}

// record notes the presets a case created in a namespace (in the order it
// created them), before the namespace is emptied: a later case there is
// judged knowing what stood under its presets' names before (R6.1).
func (p *namespaces) record(name string, presets []*v1alpha1.PodPreset) {
	p.mu.Lock()
	defer p.mu.Unlock()
	held := p.held[name]
	for _, q := range presets {
		versions := 0
		last := -1
		for i, h := range held {
			if h.Name == q.Name {
				versions++
				last = i
			}
		}
		switch {
		case versions >= 2:
			held[last] = q // the first is kept, and the last
		default:
			held = append(held, q)
		}
	}
	p.held[name] = held
}

// heldBefore are the presets a namespace held for earlier cases (record):
// of each name, the first version and the last, in that order.
func (p *namespaces) heldBefore(name string) []*v1alpha1.PodPreset {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.held[name])
}

// drop deletes a namespace of the pool, and the one peer made for it.
func (p *namespaces) drop(ctx context.Context, name string) error {
	p.mu.Lock()
	names := []string{name}
	if peer, ok := p.peers[name]; ok {
		names = append(names, peer) // made for name's cases: it goes with it
		delete(p.peers, name)
	}
	for _, n := range names {
		delete(p.all, n)
		delete(p.held, n)
		p.forget(n)
	}
	p.mu.Unlock()
	var errs []error
	for _, n := range names {
		if err := p.w.Objects().Delete(ctx, backend.Namespaces, "", n); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("unable to delete namespace %s: %w", n, err))
		}
	}
	return errors.Join(errs...)
}

// close deletes every namespace of the pool (without waiting for them to
// go). Cases still running must have given theirs back first.
func (p *namespaces) close(ctx context.Context) error {
	p.mu.Lock()
	names := make([]string, 0, len(p.all))
	for name := range p.all {
		names = append(names, name)
	}
	p.free = map[string][]freeNamespace{}
	p.peers = map[string]string{}
	p.held = map[string][]*v1alpha1.PodPreset{}
	p.stored = map[*v1alpha1.PodPreset]presence{}
	p.mu.Unlock()
	var errs []error
	for _, name := range names {
		errs = append(errs, p.drop(ctx, name))
	}
	return errors.Join(errs...)
}
