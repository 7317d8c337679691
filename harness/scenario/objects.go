package scenario

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/compare"
	"presetsim.dev/presetsim/harness/manifest"
)

// Create creates every object of a DocString, in order; kind, when not
// empty, is the kind each must have ("Given the PodPreset:").
func (s *Scenario) Create(ctx context.Context, src manifest.Source, content, kind string) error {
	objs, err := s.decode(src, content, kind)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if _, err := s.create(ctx, o, nil); err != nil {
			return fmt.Errorf("%s:%d: %w", src.File, o.Line, err)
		}
	}
	return nil
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
		created, err := s.create(ctx, o, opts)
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
		return s.w.WaitForPreset(ctx, ns, name, updated.GetResourceVersion())
	}
	return nil
}

// kindOf resolves a kind written in a step ("pod", "ReplicaSet").
func (s *Scenario) kindOf(kind string) (schema.GroupVersionKind, *meta.RESTMapping, error) {
	mapper := s.cluster.Mapper()
	gvk, err := mapper.KindFor(schema.GroupVersionResource{Resource: strings.ToLower(kind)})
	if err != nil {
		return gvk, nil, fmt.Errorf("unknown kind %q: %w", kind, err)
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	return gvk, mapping, err
}

// ObjectAsSubmitted checks that an object the scenario created was not
// changed: for a pod its spec, labels and annotations; for other kinds its
// spec and labels, and no annotation under the module's prefix.
func (s *Scenario) ObjectAsSubmitted(ctx context.Context, kind, name string) error {
	gvk, mapping, err := s.kindOf(kind)
	if err != nil {
		return err
	}
	if gvk.Kind == "Pod" && gvk.Group == "" {
		return s.PodAsSubmitted(ctx, name)
	}
	logical := s.namespaceOf(gvk.Kind, name)
	submitted, ok := s.submitted[objectKey{gvk.Kind, logical, name}]
	if !ok {
		return fmt.Errorf("this scenario created no %s %q", gvk.Kind, name)
	}
	got, err := s.cluster.Get(ctx, mapping.Resource, submitted.GetNamespace(), name)
	if err != nil {
		return s.failed(err, "unable to get %s %q", gvk.Kind, name)
	}
	dry := submitted.DeepCopy()
	dry.SetNamespace(s.w.DefaultingNamespace)
	defaulted, err := s.cluster.Create(ctx, mapping.Resource, dry, backend.CreateOptions{DryRun: true})
	if err != nil {
		return fmt.Errorf("unable to default the submitted %s (dry-run create: %s)", gvk.Kind, s.Logical(err.Error()))
	}
	var diffs []compare.Difference
	diffs = append(diffs, compare.Values("metadata.labels", submitted.GetLabels(), got.GetLabels())...)
	for k, v := range got.GetAnnotations() {
		if _, ok := submitted.GetAnnotations()[k]; !ok && strings.HasPrefix(k, s.w.AnnotationPrefix) {
			diffs = append(diffs, compare.Difference{Path: "metadata.annotations[" + k + "]", Want: "<absent>", Got: fmt.Sprintf("%q", v)})
		}
	}
	diffs = append(diffs, compare.Values("spec", defaulted.Object["spec"], got.Object["spec"])...)
	if len(diffs) > 0 {
		lines := make([]string, len(diffs))
		for i, d := range diffs {
			lines[i] = d.String()
		}
		return fmt.Errorf("%s %q is not as submitted:\n%s", gvk.Kind, name, strings.Join(lines, "\n"))
	}
	return nil
}
