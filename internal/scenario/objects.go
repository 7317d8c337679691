package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/manifest"
)

// Create creates every object of a DocString, in order; kind, when not
// empty, is the kind each must have ("Given the PodPreset:"). Presets in a
// row are created one after the other, then waited for (createLater):
// every other object is created once the presets before it are taken up.
func (s *Scenario) Create(ctx context.Context, src manifest.Source, content, kind string) error {
	objs, err := s.decode(src, content, kind)
	if err != nil {
		return err
	}
	type line struct {
		*Pending
		line int
	}
	var pending []line
	takenUp := func() error {
		for _, p := range pending {
			if err := p.Wait(ctx); err != nil {
				return fmt.Errorf("%s:%d: %w", src.File, p.line, err)
			}
		}
		pending = nil
		return nil
	}
	for _, o := range objs {
		if !isPreset(o.GVK) {
			if err := takenUp(); err != nil {
				return err
			}
		}
		_, p, err := s.createLater(ctx, o, nil, false)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", src.File, o.Line, err)
		}
		if p != nil {
			pending = append(pending, line{p, o.Line})
		}
	}
	return takenUp()
}

// TryCreate is Create that records the outcome for a later Then step
// instead of failing; bad YAML still fails the step. With dryRun, the
// objects are created with a server-side dry run: admitted and returned,
// never stored.
func (s *Scenario) TryCreate(ctx context.Context, src manifest.Source, content string, dryRun bool) error {
	objs, err := s.decode(src, content, "")
	if err != nil {
		return err
	}
	s.last = &Attempt{Unvalidated: !s.cluster.Validates(), Backend: s.w.Backend}
	warnings := &backend.Warnings{}
	opts := &backend.CreateOptions{Warnings: warnings, DryRun: dryRun}
	for _, o := range objs {
		created, err := s.create(ctx, o, opts, false)
		var notTakenUp *NotTakenUpError
		if errors.As(err, &notTakenUp) {
			s.last.Object, s.last.NotTakenUp = created, notTakenUp.Err
			break
		}
		if err != nil {
			s.last.Err = err
			break
		}
		s.last.Object = created
	}
	s.last.Warnings = warnings.List()
	return nil
}

// TryUpdatePreset replaces the PodPreset name (in the DocString's logical
// namespace) with the DocString's object and records the outcome.
func (s *Scenario) TryUpdatePreset(ctx context.Context, name string, src manifest.Source, content string) error {
	objs, err := s.decode(src, content, "PodPreset")
	if err != nil {
		return err
	}
	if len(objs) != 1 {
		return fmt.Errorf("%s:%d: expected one PodPreset, got %d objects", src.File, src.Line, len(objs))
	}
	logical := namespaceOr(objs[0].Raw.GetNamespace())
	ns, err := s.Namespace(ctx, logical)
	if err != nil {
		return err
	}
	u, gvr, err := s.w.PresetObject(objs[0].Raw)
	if err != nil {
		return err
	}
	current, err := s.cluster.Get(ctx, gvr, ns, name)
	if err != nil {
		return fmt.Errorf("unable to get %s %q: %w", s.w.PresetKind(), name, err)
	}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetResourceVersion(current.GetResourceVersion())
	warnings := &backend.Warnings{}
	updated, err := s.cluster.Update(ctx, gvr, u, warnings)
	s.last = &Attempt{Err: err, Warnings: warnings.List(), Unvalidated: !s.cluster.Validates(), Backend: s.w.Backend}
	if err == nil {
		key := objectKey{"PodPreset", logical, name}
		s.versions[key] = updated.GetResourceVersion()
		canonical := objs[0].Raw.DeepCopy()
		canonical.SetName(name)
		if err := s.rememberPreset(logical, canonical, updated); err != nil {
			return err
		}
		return s.w.WaitForPreset(ctx, ns, name, updated.GetResourceVersion())
	}
	return nil
}

// kindOf resolves a kind written in a step ("pod", "ReplicaSet").
func (s *Scenario) kindOf(kind string) (schema.GroupVersionKind, *meta.RESTMapping, error) {
	mapper := s.cluster.Mapper()
	if kind == "PodPreset" {
		// A feature's PodPreset is the implementation's preset kind, as
		// "Given the PodPreset:" creates it (profile spec.preset).
		gvk := s.World().Profile.PresetGVK()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		return gvk, mapping, err
	}
	gvk, err := mapper.KindFor(schema.GroupVersionResource{Resource: strings.ToLower(kind)})
	if err != nil {
		return gvk, nil, fmt.Errorf("unknown kind %q: %w", kind, err)
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	return gvk, mapping, err
}

// objectNamespace resolves a kind written in a step, as KindOf, and returns
// the physical namespace of the scenario's object of that kind and name.
func (s *Scenario) objectNamespace(ctx context.Context, kind, name string) (schema.GroupVersionKind, *meta.RESTMapping, string, error) {
	gvk, mapping, err := s.kindOf(kind)
	if err != nil {
		return gvk, nil, "", err
	}
	ns, err := s.Namespace(ctx, s.namespaceOf(gvk.Kind, name))
	return gvk, mapping, ns, err
}

// CreateObject creates one API object given in Go (its apiVersion and kind
// set), as Create creates an object of a DocString: a canonical PodPreset
// in the implementation's terms, a pod's annotations translated, in the
// object's logical namespace. It returns what the API server returned.
func (s *Scenario) CreateObject(ctx context.Context, obj runtime.Object, opts *backend.CreateOptions) (*unstructured.Unstructured, error) {
	created, pending, err := s.CreateObjectLater(ctx, obj, opts)
	if err != nil {
		return created, err
	}
	return created, pending.Wait(ctx)
}

// CreateObjectLater is CreateObject without the wait for a preset to be
// taken up: the returned Pending waits (createLater).
func (s *Scenario) CreateObjectLater(ctx context.Context, obj runtime.Object, opts *backend.CreateOptions) (*unstructured.Unstructured, *Pending, error) {
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, nil, err
	}
	u := &unstructured.Unstructured{Object: raw}
	return s.createLater(ctx, manifest.Object{Object: obj, Raw: u, GVK: u.GroupVersionKind()}, opts, true)
}
