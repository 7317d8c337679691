package manifest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	serializerjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/version"

	"presetsim.dev/presetsim/internal/manifest/fieldpath"
	"presetsim.dev/presetsim/internal/manifest/hint"
	"presetsim.dev/presetsim/internal/manifest/yamldoc"
)

// decoder decodes documents with one scheme.
type decoder struct {
	scheme *runtime.Scheme
	strict *serializerjson.Serializer
}

func newDecoder(scheme *runtime.Scheme) *decoder {
	return &decoder{
		scheme: scheme,
		strict: serializerjson.NewSerializerWithOptions(serializerjson.DefaultMetaFactory, scheme, scheme,
			serializerjson.SerializerOptions{Strict: true}),
	}
}

// decodeDocument decodes one document, into tgt when it is not nil, and
// returns every problem found in it.
func (d *decoder) decodeDocument(doc *yamldoc.Document, tgt *target) (Object, []*Error) {
	root := fieldpath.ResolveAlias(doc.Root)
	if root.Kind != yaml.MappingNode {
		return Object{}, []*Error{errAt(doc, root.Line, nil,
			"expected an object (a mapping with apiVersion, kind, metadata...), got "+hint.DescribeNode(root))}
	}
	var errs []*Error
	errs = append(errs, problems(doc.File, doc.DuplicateKeys())...)

	// The YAML-to-JSON conversion kubectl uses: YAML 1.1 scalars.
	tree, p := doc.Tree()
	if p != nil {
		return Object{}, append(errs, problems(doc.File, []yamldoc.Problem{*p})...)
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return Object{}, append(errs, errAt(doc, doc.FirstLine(), nil, "expected an object, got "+hint.DescribeValue(tree, root)))
	}

	gvk, typed, ok, kindErrs := d.resolveKind(doc, m, tgt)
	errs = append(errs, kindErrs...)
	if !ok {
		return Object{}, errs
	}
	// Decode with the apiVersion and kind decided on, even when the document
	// names them wrongly, so that its other problems are found too.
	m = copyMap(m)
	m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind

	obj := Object{GVK: gvk, Line: doc.AbsLine(doc.FirstLine()), doc: doc}
	object, err := unstructuredValues(m)
	u := &unstructured.Unstructured{Object: object.(map[string]any)}
	if err != nil {
		return Object{}, append(errs, errAt(doc, doc.FirstLine(), nil, "cannot decode "+gvk.Kind+": "+hint.Clean(err)))
	}
	obj.Raw = u
	if !typed {
		if len(errs) > 0 {
			return Object{}, errs
		}
		if tgt != nil && tgt.unstructured != nil {
			setUnstructured(tgt.unstructured, u.DeepCopy())
		}
		obj.Object = u.DeepCopy()
		return obj, nil
	}

	o, typeErrs := d.decodeTyped(doc, m, gvk)
	errs = append(errs, typeErrs...)
	if len(errs) > 0 || o == nil {
		return Object{}, errs
	}
	o.GetObjectKind().SetGroupVersionKind(gvk)
	if tgt != nil && tgt.obj != nil {
		dst, src := reflect.ValueOf(tgt.obj), reflect.ValueOf(o)
		if dst.Kind() != reflect.Pointer || src.Kind() != reflect.Pointer || dst.Type() != src.Type() {
			return Object{}, []*Error{errAt(doc, doc.FirstLine(), nil, fmt.Sprintf("cannot decode %s into %T", gvk.Kind, tgt.obj))}
		}
		dst.Elem().Set(src.Elem())
		o = tgt.obj
	}
	obj.Object = o
	return obj, nil
}

// unstructuredValues is a decoded JSON tree (numbers as json.Number) as
// an unstructured object holds it, as its JSON decoder makes it: each
// number an int64 when it is an integer that fits one, a float64
// otherwise.
func unstructuredValues(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			converted, err := unstructuredValues(item)
			if err != nil {
				return out, err
			}
			out[k] = converted
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			converted, err := unstructuredValues(item)
			if err != nil {
				return out, err
			}
			out[i] = converted
		}
		return out, nil
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i, nil
		}
		return v.Float64()
	}
	return v, nil
}

func copyMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// resolveKind decides which kind to decode the document as. typed is false
// for kinds not in the scheme (decoded unstructured); ok is false when the
// document cannot be decoded at all.
func (d *decoder) resolveKind(doc *yamldoc.Document, m map[string]any, tgt *target) (gvk schema.GroupVersionKind, typed, ok bool, errs []*Error) {
	apiVersion, e1 := stringField(doc, m, "apiVersion")
	kind, e2 := stringField(doc, m, "kind")
	for _, e := range []*Error{e1, e2} {
		if e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return gvk, false, false, errs
	}
	avPath, kindPath := fieldpath.Path{{Key: "apiVersion"}}, fieldpath.Path{{Key: "kind"}}

	// DecodeInto a registered type: the document must be of that kind.
	if tgt != nil && tgt.unstructured == nil {
		want := tgt.gvk
		if kind != "" && kind != want.Kind {
			return gvk, false, false, []*Error{errAt(doc, doc.KeyLine(kindPath), kindPath,
				fmt.Sprintf("must be %s here, got %s", hint.Quote(want.Kind), hint.Quote(kind)))}
		}
		if wantAV := want.GroupVersion().String(); apiVersion != "" && apiVersion != wantAV {
			msg := fmt.Sprintf("%s has no kind %s; did you mean %s?", hint.Quote(apiVersion), hint.Quote(want.Kind), hint.Quote(wantAV))
			if gv, err := schema.ParseGroupVersion(apiVersion); err == nil && d.scheme.Recognizes(gv.WithKind(want.Kind)) {
				msg = fmt.Sprintf("must be %s here, got %s", hint.Quote(wantAV), hint.Quote(apiVersion))
			}
			errs = append(errs, errAt(doc, doc.KeyLine(avPath), avPath, msg))
		}
		return want, true, true, errs
	}

	rootLine := doc.FirstLine()
	if apiVersion == "" {
		errs = append(errs, errAt(doc, rootLine, avPath, "required field is missing"))
	}
	if kind == "" {
		errs = append(errs, errAt(doc, rootLine, kindPath, "required field is missing"))
	}
	if len(errs) > 0 {
		return gvk, false, false, errs
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return gvk, false, false, []*Error{errAt(doc, doc.KeyLine(avPath), avPath,
			fmt.Sprintf("invalid apiVersion %s: want group/version, e.g. \"apps/v1\", or version, e.g. \"v1\"", hint.Quote(apiVersion)))}
	}
	gvk = gv.WithKind(kind)
	if tgt != nil { // into an unstructured object: any kind
		return gvk, false, true, nil
	}
	if d.scheme.Recognizes(gvk) {
		return gvk, true, true, nil
	}

	// The kind exists, under another apiVersion.
	if cands := d.groupVersionsOf(kind); len(cands) > 0 {
		names := make([]string, len(cands))
		for i, c := range cands {
			names[i] = c.String()
		}
		errs = append(errs, errAt(doc, doc.KeyLine(avPath), avPath,
			fmt.Sprintf("%s has no kind %s; did you mean %s?", hint.Quote(apiVersion), hint.Quote(kind), hint.OrList(names))))
		if len(cands) == 1 {
			return cands[0].WithKind(kind), true, true, errs
		}
		return gvk, false, false, errs
	}
	// The apiVersion is known and has the kind, spelt differently.
	if folded := d.kindsFolded(gv, kind); len(folded) > 0 {
		errs = append(errs, errAt(doc, doc.KeyLine(kindPath), kindPath,
			fmt.Sprintf("%s has no kind %s; did you mean %s?", hint.Quote(apiVersion), hint.Quote(kind), hint.OrList(folded))))
		if len(folded) == 1 {
			return gv.WithKind(folded[0]), true, true, errs
		}
		return gvk, false, false, errs
	}
	// Groups without a dot are Kubernetes' own: no custom resource can be
	// there, so an unknown kind is a mistake.
	if d.scheme.IsVersionRegistered(gv) && !strings.Contains(gv.Group, ".") {
		return gvk, false, false, []*Error{errAt(doc, doc.KeyLine(kindPath), kindPath,
			fmt.Sprintf("%s has no kind %s", hint.Quote(apiVersion), hint.Quote(kind)))}
	}
	// Not a kind of the scheme: someone else's custom resource.
	return gvk, false, true, nil
}

// stringField returns the string at key of the document's top level ("" when
// absent or null), or an error if it is not a string.
func stringField(doc *yamldoc.Document, m map[string]any, key string) (string, *Error) {
	v := m[key]
	if v == nil {
		return "", nil
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	p := fieldpath.Path{{Key: key}}
	_, node := fieldpath.LookupNode(doc.Root, p)
	return "", errAt(doc, doc.ValueLine(p), p, "must be a string, got "+hint.DescribeValue(v, node))
}

// groupVersionsOf lists the group/versions to suggest for kind: of the ones
// that serve it, the newest stable version of each group, or, when no group
// has a stable version, all of them. The core group comes first.
func (d *decoder) groupVersionsOf(kind string) []schema.GroupVersion {
	var all, stable []schema.GroupVersion
	best := map[string]string{} // group -> newest stable version
	for gvk := range d.scheme.AllKnownTypes() {
		if gvk.Kind != kind || gvk.Version == runtime.APIVersionInternal {
			continue
		}
		all = append(all, gvk.GroupVersion())
		if isStable(gvk.Version) {
			if v, ok := best[gvk.Group]; !ok || version.CompareKubeAwareVersionStrings(gvk.Version, v) > 0 {
				best[gvk.Group] = gvk.Version
			}
		}
	}
	for g, v := range best {
		stable = append(stable, schema.GroupVersion{Group: g, Version: v})
	}
	gvs := all
	if len(stable) > 0 {
		gvs = stable
	}
	sort.Slice(gvs, func(i, j int) bool {
		a, b := gvs[i], gvs[j]
		if a.Group != b.Group {
			if a.Group == "" || b.Group == "" {
				return a.Group == ""
			}
			return a.Group < b.Group
		}
		return version.CompareKubeAwareVersionStrings(a.Version, b.Version) > 0
	})
	return gvs
}

// isStable reports whether v is a GA version such as v1 (not v1beta1).
func isStable(v string) bool {
	return len(v) > 1 && v[0] == 'v' && strings.Trim(v[1:], "0123456789") == ""
}

// kindsFolded lists the kinds of gv that equal kind but for case.
func (d *decoder) kindsFolded(gv schema.GroupVersion, kind string) []string {
	var kinds []string
	for k := range d.scheme.KnownTypes(gv) {
		if strings.EqualFold(k, kind) {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	return kinds
}
