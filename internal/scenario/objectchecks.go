package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/internal/compare/valuediff"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/manifest/yamldoc"
)

// target is the object a step names: its kind, resource, physical
// namespace ("" for a cluster-scoped kind) and name.
type target struct {
	gvk     schema.GroupVersionKind
	gvr     schema.GroupVersionResource
	ns      string // physical
	logical string
	name    string
}

func (s *Scenario) target(ctx context.Context, kind, name string) (target, error) {
	gvk, mapping, err := s.kindOf(kind)
	if err != nil {
		return target{}, err
	}
	t := target{gvk: gvk, gvr: mapping.Resource, name: name}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		t.logical = s.namespaceOf(gvk.Kind, name)
		if t.ns, err = s.Namespace(ctx, t.logical); err != nil {
			return target{}, err
		}
	}
	return t, nil
}

// ShouldMatch waits, up to the run's wait bound, until the object matches
// the partial object of the DocString (valuediff.Subset), and otherwise fails
// with every difference of the last look, by keyed path. The DocString may
// leave out apiVersion and kind; when written they must be the object's.
// It is checked against the kind's Go type, when it has one, so that a
// misspelt field is an error at its line rather than a check that can never
// pass. ${rv:<preset>} expands to a preset's resourceVersion, and
// metadata.namespace is the logical namespace.
func (s *Scenario) ShouldMatch(ctx context.Context, kind, name string, src manifest.Source, content string) error {
	t, err := s.target(ctx, kind, name)
	if err != nil {
		return err
	}
	want, goType, err := s.partial(ctx, t, src, content)
	if err != nil {
		return err
	}
	var last string
	err = s.WaitUntil(ctx, t.ns, s.World().Timeouts.Wait, func(ctx context.Context) (bool, error) {
		got, err := s.Objects().Get(ctx, t.gvr, t.ns, t.name)
		switch {
		case apierrors.IsNotFound(err):
			last = "it does not exist"
			return false, nil
		case err != nil:
			return false, s.Failed(err, "unable to read %s %q", t.gvk.Kind, t.name)
		}
		diffs := valuediff.Subset("", want, got.Object, goType)
		if len(diffs) == 0 {
			return true, nil
		}
		if t.gvk.Group == "" && t.gvk.Kind == "Secret" && !s.World().ShowSecrets {
			diffs = maskSecretData(diffs)
		}
		lines := make([]string, len(diffs))
		for i, d := range diffs {
			lines[i] = "  " + d.String()
		}
		last = fmt.Sprintf("%d difference(s):\n%s", len(diffs), strings.Join(lines, "\n"))
		return false, nil
	}, t.gvr)
	if err != nil && wait.Interrupted(err) {
		return fmt.Errorf("%s %q does not match after %s: %s", t.gvk.Kind, t.name, s.World().Timeouts.Wait, s.logical(last))
	}
	return err
}

// partial decodes the DocString: checked against the kind's Go type when it
// has one (which is returned, for the merge keys), and returned as written,
// with apiVersion and kind left out, ${rv:…} expanded and a logical
// metadata.namespace made physical.
func (s *Scenario) partial(ctx context.Context, t target, src manifest.Source, content string) (map[string]any, any, error) {
	var goType any
	if obj, err := manifest.Scheme().New(t.gvk); err == nil {
		if err := manifest.DecodeInto(src, content, manifest.Scheme(), obj); err != nil {
			return nil, nil, err
		}
		goType = obj
	} else {
		// Decoded unstructured, apiVersion and kind must be written: add
		// them, above the DocString's first line, when they are not.
		withKind, at := content, src
		var m map[string]any
		if yaml.Unmarshal([]byte(content), &m) == nil && m["kind"] == nil {
			withKind = fmt.Sprintf("apiVersion: %s\nkind: %s\n%s", t.gvk.GroupVersion(), t.gvk.Kind, content)
			at.Line -= 2
		}
		if err := manifest.DecodeInto(at, withKind, manifest.Scheme(), &unstructured.Unstructured{}); err != nil {
			return nil, nil, err
		}
	}
	line := src.Line
	if line < 1 {
		line = 1
	}
	docs, problems := yamldoc.Parse(src.File, line, content)
	if len(problems) > 0 || len(docs) != 1 {
		return nil, nil, fmt.Errorf("%s:%d: expected one partial object", src.File, line)
	}
	data, p := docs[0].ToJSON()
	if p != nil {
		return nil, nil, fmt.Errorf("%s:%d: %s", src.File, p.Line, p.Msg)
	}
	var want map[string]any
	if err := yaml.Unmarshal(data, &want); err != nil {
		return nil, nil, fmt.Errorf("%s:%d: %w", src.File, line, err)
	}
	delete(want, "apiVersion")
	delete(want, "kind")
	if md, ok := want["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok && t.gvk.Group == "" && t.gvk.Kind == "Pod" {
			md["annotations"] = s.profileAnnotations(ann)
		}
		if logical, ok := md["namespace"].(string); ok && t.ns != "" {
			physical, err := s.Namespace(ctx, logical)
			if err != nil {
				return nil, nil, err
			}
			md["namespace"] = physical
		}
	}
	if err := s.expandValues(want, t.logical); err != nil {
		return nil, nil, err
	}
	return want, goType, nil
}

// profileAnnotations renames a pod's PodPreset annotations (written as the
// canonical podpreset.admission.kubernetes.io/...) to the profile's, as
// "should be" does; other annotations, and values that are not strings,
// stay as written.
func (s *Scenario) profileAnnotations(ann map[string]any) map[string]any {
	out := make(map[string]any, len(ann))
	for k, v := range ann {
		str, ok := v.(string)
		if !ok {
			out[k] = v
			continue
		}
		for renamed := range s.World().Profile.Annotations(map[string]string{k: str}) {
			out[renamed] = str
		}
	}
	return out
}

// ShouldNotExist waits, up to the run's wait bound, until the object does
// not exist: at once when it never did, or once its deletion finishes.
func (s *Scenario) ShouldNotExist(ctx context.Context, kind, name string) error {
	t, err := s.target(ctx, kind, name)
	if err != nil {
		return err
	}
	var last runtime.Object
	err = s.WaitUntil(ctx, t.ns, s.World().Timeouts.Wait, func(ctx context.Context) (bool, error) {
		got, err := s.Objects().Get(ctx, t.gvr, t.ns, t.name)
		switch {
		case apierrors.IsNotFound(err):
			return true, nil
		case err != nil:
			return false, s.Failed(err, "unable to read %s %q", t.gvk.Kind, t.name)
		}
		last = got
		return false, nil
	}, t.gvr)
	if err != nil && wait.Interrupted(err) {
		how := "it exists"
		if u, ok := last.(*unstructured.Unstructured); ok && u.GetDeletionTimestamp() != nil {
			how = fmt.Sprintf("it is being deleted since %s, held by finalizers %v", u.GetDeletionTimestamp().UTC().Format("15:04:05"), u.GetFinalizers())
		}
		return errors.New(s.logical(fmt.Sprintf("%s %q still exists after %s: %s", t.gvk.Kind, t.name, s.World().Timeouts.Wait, how)))
	}
	return err
}

// Delete deletes the object (its dependents go as the API server's garbage
// collector decides); "should not exist" then waits until it is gone.
func (s *Scenario) Delete(ctx context.Context, kind, name string) error {
	t, err := s.target(ctx, kind, name)
	if err != nil {
		return err
	}
	if err := s.Objects().Delete(ctx, t.gvr, t.ns, t.name); err != nil {
		return s.Failed(err, "unable to delete %s %q", t.gvk.Kind, t.name)
	}
	if t.gvk.Kind == "PodPreset" || t.gvk == s.World().Profile.PresetGVK() {
		s.forgetPreset(t.ns, t.name)
	}
	return nil
}

// maskSecretData hides a Secret's values (data, stringData) in
// differences, as every message hides values from Secrets (--show-secrets
// shows them): which key differs is said, not what it holds.
func maskSecretData(diffs []valuediff.Difference) []valuediff.Difference {
	out := slices.Clone(diffs)
	for i, d := range out {
		if !strings.HasPrefix(d.Path, "data") && !strings.HasPrefix(d.Path, "stringData") {
			continue
		}
		for _, v := range []*string{&out[i].Want, &out[i].Got} {
			if *v != valuediff.Absent {
				*v = Mask
			}
		}
	}
	return out
}
