package fuzz

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"presetsim.dev/presetsim/presets/conflict"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/oracle"
	"presetsim.dev/presetsim/internal/scenario"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
)

// UnscheduledName is the schedulerName of the pods fuzz creates.
const UnscheduledName = "presetsim-fuzz-unscheduled"

// runner admits cases on a World, each in namespaces of its own, taken
// from a pool.
type runner struct {
	w          *harness.World
	namespaces *namespaces
	// eventWait bounds the wait for the conflict events the model
	// expects: the World's wait timeout when zero. Shrinking waits only a
	// settle window, since it runs many cases whose events may never come.
	eventWait time.Duration
	// lags, when set, notes how long the implementation took to show
	// each preset a history created again.
	lags *lags
}

// lags are the propagation lags a run measured (R6.1).
type lags struct {
	mu sync.Mutex
	// max is the longest lag of a new version shown within the window;
	// late counts the versions not shown within it.
	max         time.Duration
	shown, late int
}

func (l *lags) note(d time.Duration, shown bool) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !shown {
		l.late++
		return
	}
	l.shown++
	l.max = max(l.max, d)
}

// trial is a case admitted whose events are still to be read and whose
// namespaces are still to be deleted (settle).
type trial struct {
	s   *scenario.Scenario
	obs oracle.Observed
	// taken are the case's namespaces from the pool, by logical name.
	taken map[string]string
	// owner is the UID of the pod's owner, when it has one.
	owner types.UID
	// settled is when the case's settle window ends.
	settled time.Time
	// admissions are the requests of the case the implementation was to
	// admit: the pod's creations (a dry run, for real, again), its
	// follow-ups.
	admissions int
	// findings are what the implementation did with the case's requests
	// its registration does not send it (outcome.Finding).
	findings []outcome.Finding
	// quiet is true when the case's last look at its namespace's events
	// saw none at all: there are none to delete.
	quiet bool
	// replicaSet is set when the case's follow-up created a ReplicaSet.
	replicaSet bool
}

// run admits one case and settles it.
func (r runner) run(ctx context.Context, c Case) (oracle.Observed, error) {
	t, err := r.admit(ctx, c)
	if err != nil {
		return oracle.Observed{}, err
	}
	err = r.settle(ctx, t)
	return t.obs, err
}

// admit creates a case's objects: its presets, then the pod with a
// server-side dry run and for real. On error, the case's namespaces go
// back to the pool.
func (r runner) admit(ctx context.Context, c Case) (_ *trial, err error) {
	t := &trial{s: scenario.New(r.w), taken: map[string]string{}}
	defer func() {
		if err != nil {
			_ = r.release(context.WithoutCancel(ctx), t)
		}
	}()
	for _, logical := range c.namespaces() {
		take := r.namespaces.take
		if logical == PeerNamespace {
			// Named after the pod's namespace (c.namespaces gives it
			// first), as a scenario names it.
			take = func(ctx context.Context, _ string) (string, error) {
				return r.namespaces.peer(ctx, t.taken["default"])
			}
		}
		name, err := take(ctx, logical)
		if err != nil {
			return nil, err
		}
		t.taken[logical] = name
		t.s.Adopt(logical, name)
		if logical == "default" {
			t.obs.Before = r.namespaces.heldBefore(name)
		}
	}
	// The namespaces come from a pool: only the failed requests noted
	// during this case are the case's.
	failedBefore, foundBefore := map[string]int{}, map[string]int{}
	for _, name := range t.taken {
		failedBefore[name] = len(r.w.FailedRequests(name))
		foundBefore[name] = len(r.w.FindingsIn(name))
	}
	// Likewise the pod creations the implementation was sent (R5.4).
	sentBefore, _ := r.w.PodCreatesSent(t.taken["default"])
	pod := c.Pod.DeepCopy()
	pod.Namespace = "default"
	if pod.Spec.NodeName == "" && pod.Spec.SchedulerName == "" {
		// No scheduler serves this name: the pod is never bound, so that
		// a case costs the API server its admission alone, not a
		// scheduling, a kubelet's status updates and their events.
		pod.Spec.SchedulerName = UnscheduledName
	}
	if c.Owned {
		owner := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: OwnerName, Namespace: "default"}}
		created, err := t.s.CreateObject(ctx, owner, nil)
		if err != nil {
			return nil, fmt.Errorf("unable to create the pod's owner: %w", err)
		}
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: OwnerName, UID: created.GetUID(), Controller: ptr(true)}}
		t.owner = created.GetUID()
	}
	t.obs.Pod = pod
	// The valid presets are created one after the other, then waited for
	// (scenario.Pending): taken up together, they cost an implementation
	// that compiles them (the policy) one compilation, not one each.
	type pending struct {
		*scenario.Pending
		preset *v1alpha1.PodPreset
	}
	var waits []pending
	presetErr := func(p *v1alpha1.PodPreset, err error) {
		t.obs.PresetErr = fmt.Errorf("%s %s/%s: %v", r.w.PresetKind(), p.Namespace, p.Name, err)
	}
	// takenUp waits for the presets created so far; false when one was
	// not taken up (PresetErr says which).
	takenUp := func() (bool, error) {
		// Waited for together: an implementation whose presets show only
		// through probe pods (a webhook) may show none of a namespace
		// whose presets conflict, each wait then lasting its whole bound.
		errs := make([]error, len(waits))
		var wg sync.WaitGroup
		for i, w := range waits {
			wg.Go(func() { errs[i] = w.Wait(ctx) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				if ctx.Err() != nil {
					return false, ctx.Err()
				}
				presetErr(waits[i].preset, err)
				return false, nil
			}
		}
		waits = nil
		return true, nil
	}
	for _, p := range c.creationOrder() {
		reasons := model.Validate(p)
		if len(reasons) > 0 && !t.s.Objects().Validates() {
			// No API server validates here (offline): the case goes on
			// without the preset, which is not judged.
			t.obs.Invalid = &oracle.InvalidPreset{Preset: p, Reasons: reasons, Unvalidated: true}
			continue
		}
		if len(reasons) > 0 {
			// Whether the implementation takes an invalid preset up
			// decides what is judged: the presets before it are taken up
			// first, and it is waited for at once.
			if ok, err := takenUp(); err != nil {
				return nil, err
			} else if !ok {
				return t, nil
			}
			_, err := t.s.CreateObject(ctx, p, nil)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			t.obs.Invalid = &oracle.InvalidPreset{Preset: p, Reasons: reasons, Err: err}
			if err == nil {
				return t, nil
			}
			continue
		}
		created, wait, err := r.createPreset(ctx, t, p)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			presetErr(p, err)
			return t, nil
		}
		waits = append(waits, pending{wait, p})
		stored := p.DeepCopy()
		stored.ResourceVersion = created.GetResourceVersion()
		if p.Namespace == "default" {
			t.obs.Presets = append(t.obs.Presets, stored)
		} else {
			t.obs.Others = append(t.obs.Others, stored)
		}
	}
	if ok, err := takenUp(); err != nil {
		return nil, err
	} else if !ok {
		return t, nil
	}
	c.AnnotateCopied(pod, copiable(r.w.Profile, Versions(t.obs.Presets)))
	t.obs.DryRun = r.create(ctx, t, pod, true)
	t.obs.Create = r.create(ctx, t, pod, false)
	if c.FollowUp != nil && t.obs.Create.Err == nil {
		if t.obs.Changed, err = r.followUps(ctx, t, c.FollowUp, t.obs.Create.Pod); err != nil {
			return nil, err
		}
	}
	if c.Recreate != nil {
		if err := r.recreate(ctx, t, c.Recreate, pod); err != nil {
			return nil, err
		}
	}
	if t.obs.Create.Pod != nil || t.obs.DryRun.Pod != nil {
		// Admitted, and not one creation of the case's was sent.
		if sent, known := r.w.PodCreatesSent(t.taken["default"]); known && sent == sentBefore {
			t.obs.Unsent = "its registration does not send it this pod's creation"
			if findings := r.w.RegistrationFindings(); len(findings) > 0 {
				t.obs.Unsent = "its registration: " + strings.Join(findings, "; ")
			}
		}
	}
	for _, name := range t.taken {
		if failed := r.w.FailedRequests(name); len(failed) > failedBefore[name] {
			t.obs.Unanswered = append(t.obs.Unanswered, failed[failedBefore[name]:]...)
		}
		if found := r.w.FindingsIn(name); len(found) > foundBefore[name] {
			t.findings = append(t.findings, found[foundBefore[name]:]...)
		}
	}
	t.obs.Remember(r.w)
	t.settled = time.Now().Add(t.s.SettleWindow(0))
	return t, nil
}

// settle reads the conflict events of an admitted case, when the profile
// claims events: it waits until the events the model expects are there,
// and, when the case has a conflict (the model's or one the implementation
// warned of), until its settle window has passed
// (an event may come later than the request), then lists them once more.
// Then it gives the case's namespaces back to the pool (release).
func (r runner) settle(ctx context.Context, t *trial) (err error) {
	defer func() {
		if derr := r.release(context.WithoutCancel(ctx), t); derr != nil && err == nil {
			err = fmt.Errorf("unable to clean the case's namespaces: %w", derr)
		}
	}()
	if !t.obs.Admitted() || !r.w.Profile.Claims(profile.Events) {
		return nil
	}
	expected := oracle.Expect(r.w, t.obs)
	ns, err := t.s.Namespace(ctx, "default")
	if err != nil {
		return err
	}
	events := t.s
	list := func(ctx context.Context) error {
		var err error
		t.obs.Events, t.quiet, err = conflictEvents(ctx, events, ns, t.objects())
		return err
	}
	if t.obs.Create.Err != nil && !expected.Refused() {
		// Refused, where the model admits: that is the disagreement
		// already, and no event is waited for.
		return list(ctx)
	}
	if want := expected.EventCount(); want > 0 {
		wait := r.eventWait
		if wait == 0 {
			wait = r.w.Timeouts.Wait
		}
		err := t.s.WaitUntil(ctx, ns, wait, func(ctx context.Context) (bool, error) {
			if err := list(ctx); err != nil {
				return false, err
			}
			return len(t.obs.Events) >= want, nil
		}, backend.Events)
		if err != nil && ctx.Err() != nil {
			return err
		}
	}
	if expected.Conflicts() || len(t.obs.DryRun.Warnings)+len(t.obs.Create.Warnings) > 0 {
		// A conflict the model expects, or one the implementation warned
		// of: its events may come later than the request.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(t.settled)):
		}
	}
	return list(ctx)
}

// create creates the case's pod, with a dry run or not.
func (r runner) create(ctx context.Context, t *trial, pod *corev1.Pod, dryRun bool) oracle.Request {
	warnings := &backend.Warnings{}
	// The case's namespaces: the pool's, and those its scenario made
	// (PeerNamespace).
	mine := slices.Concat(slices.Collect(maps.Values(t.taken)), t.s.OwnNamespaces())
	heldBefore, passingBefore := r.namespaces.elsewhere(mine)
	t.admissions++
	created, err := t.s.CreateObject(ctx, pod, &backend.CreateOptions{DryRun: dryRun, Warnings: warnings})
	heldAfter, passingAfter := r.namespaces.elsewhere(mine)
	req := oracle.Request{Err: err, Warnings: oracle.ImplementationWarnings(warnings.List()), Elsewhere: elsewhere(heldBefore, heldAfter, passingBefore, passingAfter)}
	if err == nil {
		req.Pod, req.Err = backend.ToPod(created)
	}
	return req
}

// createPreset creates a preset of the case, noted in the pool for as
// long as it may be stored (namespaces.elsewhere).
func (r runner) createPreset(ctx context.Context, t *trial, p *v1alpha1.PodPreset) (*unstructured.Unstructured, *scenario.Pending, error) {
	here := p.DeepCopy()
	ns, err := t.s.Namespace(ctx, cmp.Or(p.Namespace, "default"))
	if err != nil {
		return nil, nil, err
	}
	here.Namespace = ns
	noted := r.namespaces.storing(here)
	created, wait, err := t.s.CreateObjectLater(ctx, p, nil)
	if err != nil {
		noted(nil)
		return created, wait, err
	}
	stored := here.DeepCopy()
	stored.ResourceVersion = created.GetResourceVersion()
	noted(stored)
	return created, wait, nil
}

// elsewhere is what other cases' namespaces held while a request was
// made, from a look before it and one after: held in both, or in one.
func elsewhere(heldBefore, heldAfter, passingBefore, passingAfter []*v1alpha1.PodPreset) oracle.Elsewhere {
	var out oracle.Elsewhere
	for _, p := range heldBefore {
		if slices.Contains(heldAfter, p) {
			out.Held = append(out.Held, p)
		} else {
			out.Passing = append(out.Passing, p)
		}
	}
	for _, p := range slices.Concat(heldAfter, passingBefore, passingAfter) {
		if !slices.Contains(out.Held, p) && !slices.Contains(out.Passing, p) {
			out.Passing = append(out.Passing, p)
		}
	}
	return out
}

// objects are the case's pod and its owner, which its events are about.
func (t *trial) objects() caseObjects {
	var o caseObjects
	if t.obs.Create.Pod != nil {
		o.uids = append(o.uids, t.obs.Create.Pod.UID)
	}
	if t.obs.Pod != nil && t.obs.Pod.Name != "" {
		o.refs = append(o.refs, corev1.ObjectReference{Kind: "Pod", Name: t.obs.Pod.Name})
	}
	if t.owner != "" {
		o.uids = append(o.uids, t.owner)
		o.refs = append(o.refs, corev1.ObjectReference{Kind: "ConfigMap", Name: OwnerName})
	}
	return o
}

// caseObjects are the objects a case's events may be about: by UID, and,
// for an event recorded without one (at admission a pod has none, and an
// implementation may not learn it), by kind and name.
type caseObjects struct {
	uids []types.UID
	refs []corev1.ObjectReference
}

// about reports whether an event is about one of the objects: another
// case's objects may have had the namespace before, and their events,
// recorded late, stay in it; the pod a case's history creates again
// under another name is not the case's either.
func (o caseObjects) about(e *corev1.Event) bool {
	if uid := e.InvolvedObject.UID; uid != "" {
		return slices.Contains(o.uids, uid)
	}
	return slices.ContainsFunc(o.refs, func(r corev1.ObjectReference) bool {
		return r.Kind == e.InvolvedObject.Kind && r.Name == e.InvolvedObject.Name
	})
}

// release gives a case's namespaces back to the pool, and deletes any
// other namespace it made.
func (r runner) release(ctx context.Context, t *trial) error {
	var errs []error
	for _, name := range t.s.OwnNamespaces() {
		// Its presets go before the namespace, whose deletion the
		// namespace controller finishes some time later: from then on no
		// admission of another case sees them (elsewhere).
		errs = append(errs, r.namespaces.empty(ctx, name))
	}
	errs = append(errs, t.s.DeleteNamespaces(ctx))
	if peer, ok := t.taken[PeerNamespace]; ok {
		// Emptied before the pod's namespace is given back, with which
		// the next case that needs it takes it.
		r.namespaces.record(peer, t.obs.Others)
		errs = append(errs, r.namespaces.emptyPeer(ctx, t.taken["default"], peer))
	}
	for logical, name := range t.taken {
		switch logical {
		case PeerNamespace:
			continue
		case "default":
			created := t.obs.Presets
			if t.obs.Again != nil {
				created = append(slices.Clone(created), t.obs.Again.After)
			}
			r.namespaces.record(name, created)
		default:
			r.namespaces.record(name, t.obs.Others)
		}
		var others []schema.GroupVersionResource
		if t.owner != "" && logical == "default" {
			others = append(others, backend.ConfigMaps) // the pod's owner
		}
		if t.replicaSet && logical == "default" {
			others = append(others, backend.ReplicaSets) // the follow-up's
		}
		if !t.quiet || logical != "default" {
			// An event an implementation records later than the last
			// look is left for a later case, which sees it (not quiet)
			// and leaves it out (another case's UID).
			others = append(others, backend.Events)
		}
		errs = append(errs, r.namespaces.give(ctx, logical, name, others...))
	}
	t.taken = nil
	return errors.Join(errs...)
}

// conflictEvents lists the PodPresetConflict events of a namespace about
// the case's objects, one per occurrence (an event the recorder aggregated
// counts Count times). quiet is true when the namespace has no event at
// all.
func conflictEvents(ctx context.Context, events *scenario.Scenario, ns string, objects caseObjects) (_ []conflict.Event, quiet bool, _ error) {
	list, err := events.NamespaceEvents(ctx, ns)
	if err != nil {
		return nil, false, err
	}
	return objects.conflictEvents(list), len(list) == 0, nil
}

// conflictEvents are the PodPresetConflict events of list about the
// objects, one per occurrence.
func (o caseObjects) conflictEvents(list []corev1.Event) []conflict.Event {
	var out []conflict.Event
	for i := range list {
		e := &list[i]
		c, ok := conflict.Observed(e)
		if !ok || !o.about(e) {
			continue
		}
		for n := max(e.Count, 1); n > 0; n-- {
			out = append(out, c)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// copiable is versions without the presets whose applied annotation, as
// the profile writes it, no pod can carry (a prefix longer than the
// specification's and a name of the longest a preset may have): no pod is
// a copy of one they were applied to.
func copiable(p *profile.Profile, versions map[string]string) map[string]string {
	maps.DeleteFunc(versions, func(name, _ string) bool { return len(validation.IsQualifiedName(p.AppliedKey(name))) > 0 })
	return versions
}
