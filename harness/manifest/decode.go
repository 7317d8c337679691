package manifest

import (
	"bytes"
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
	sigsyaml "sigs.k8s.io/yaml"
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
func (d *decoder) decodeDocument(doc *document, tgt *target) (Object, []*Error) {
	root := resolveAlias(doc.root)
	if root.Kind != yaml.MappingNode {
		return Object{}, []*Error{doc.errAt(root.Line, nil,
			"expected an object (a mapping with apiVersion, kind, metadata...), got "+describeNode(root))}
	}
	var errs []*Error
	doc.duplicateKeys(root, nil, 0, &errs)

	// The YAML-to-JSON conversion kubectl uses: YAML 1.1 scalars.
	data, err := sigsyaml.YAMLToJSON([]byte(doc.text))
	if err != nil {
		return Object{}, append(errs, doc.syntaxError(err, parseV2))
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return Object{}, append(errs, doc.errAt(doc.firstLine(), nil, "invalid YAML: "+err.Error()))
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return Object{}, append(errs, doc.errAt(doc.firstLine(), nil, "expected an object, got "+describeValue(tree, root)))
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

	obj := Object{GVK: gvk, Line: doc.absLine(doc.firstLine())}
	u := &unstructured.Unstructured{}
	raw, err := json.Marshal(m)
	if err == nil {
		err = u.UnmarshalJSON(raw)
	}
	if err != nil {
		return Object{}, append(errs, doc.errAt(doc.firstLine(), nil, "cannot decode "+gvk.Kind+": "+cleanMessage(err)))
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
			return Object{}, []*Error{doc.errAt(doc.firstLine(), nil, fmt.Sprintf("cannot decode %s into %T", gvk.Kind, tgt.obj))}
		}
		dst.Elem().Set(src.Elem())
		o = tgt.obj
	}
	obj.Object = o
	return obj, nil
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
func (d *decoder) resolveKind(doc *document, m map[string]any, tgt *target) (gvk schema.GroupVersionKind, typed, ok bool, errs []*Error) {
	apiVersion, e1 := doc.stringField(m, "apiVersion")
	kind, e2 := doc.stringField(m, "kind")
	for _, e := range []*Error{e1, e2} {
		if e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return gvk, false, false, errs
	}
	avPath, kindPath := fieldPath{{key: "apiVersion"}}, fieldPath{{key: "kind"}}

	// DecodeInto a registered type: the document must be of that kind.
	if tgt != nil && tgt.unstructured == nil {
		want := tgt.gvk
		if kind != "" && kind != want.Kind {
			return gvk, false, false, []*Error{doc.errAt(doc.keyLine(kindPath), kindPath,
				fmt.Sprintf("must be %s here, got %s", quote(want.Kind), quote(kind)))}
		}
		if wantAV := want.GroupVersion().String(); apiVersion != "" && apiVersion != wantAV {
			msg := fmt.Sprintf("%s has no kind %s; did you mean %s?", quote(apiVersion), quote(want.Kind), quote(wantAV))
			if gv, err := schema.ParseGroupVersion(apiVersion); err == nil && d.scheme.Recognizes(gv.WithKind(want.Kind)) {
				msg = fmt.Sprintf("must be %s here, got %s", quote(wantAV), quote(apiVersion))
			}
			errs = append(errs, doc.errAt(doc.keyLine(avPath), avPath, msg))
		}
		return want, true, true, errs
	}

	rootLine := doc.firstLine()
	if apiVersion == "" {
		errs = append(errs, doc.errAt(rootLine, avPath, "required field is missing"))
	}
	if kind == "" {
		errs = append(errs, doc.errAt(rootLine, kindPath, "required field is missing"))
	}
	if len(errs) > 0 {
		return gvk, false, false, errs
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return gvk, false, false, []*Error{doc.errAt(doc.keyLine(avPath), avPath,
			fmt.Sprintf("invalid apiVersion %s: want group/version, e.g. \"apps/v1\", or version, e.g. \"v1\"", quote(apiVersion)))}
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
		errs = append(errs, doc.errAt(doc.keyLine(avPath), avPath,
			fmt.Sprintf("%s has no kind %s; did you mean %s?", quote(apiVersion), quote(kind), orList(names))))
		if len(cands) == 1 {
			return cands[0].WithKind(kind), true, true, errs
		}
		return gvk, false, false, errs
	}
	// The apiVersion is known and has the kind, spelt differently.
	if folded := d.kindsFolded(gv, kind); len(folded) > 0 {
		errs = append(errs, doc.errAt(doc.keyLine(kindPath), kindPath,
			fmt.Sprintf("%s has no kind %s; did you mean %s?", quote(apiVersion), quote(kind), orList(folded))))
		if len(folded) == 1 {
			return gv.WithKind(folded[0]), true, true, errs
		}
		return gvk, false, false, errs
	}
	// Groups without a dot are Kubernetes' own: no custom resource can be
	// there, so an unknown kind is a mistake.
	if d.scheme.IsVersionRegistered(gv) && !strings.Contains(gv.Group, ".") {
		return gvk, false, false, []*Error{doc.errAt(doc.keyLine(kindPath), kindPath,
			fmt.Sprintf("%s has no kind %s", quote(apiVersion), quote(kind)))}
	}
	// Not a kind of the scheme: someone else's custom resource.
	return gvk, false, true, nil
}

// stringField returns the string at key of the document's top level ("" when
// absent or null), or an error if it is not a string.
func (doc *document) stringField(m map[string]any, key string) (string, *Error) {
	v := m[key]
	if v == nil {
		return "", nil
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	p := fieldPath{{key: key}}
	_, node := lookupNode(doc.root, p)
	return "", doc.errAt(doc.valueLine(p), p, "must be a string, got "+describeValue(v, node))
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

// orList formats up to four quoted names joined with "or".
func orList(names []string) string {
	q := make([]string, 0, len(names))
	for i, n := range names {
		if i == 4 {
			q = append(q, "...")
			break
		}
		q = append(q, quote(n))
	}
	return strings.Join(q, " or ")
}

// duplicateKeys reports keys written twice in one mapping: the JSON
// conversion would silently keep the last.
func (doc *document) duplicateKeys(n *yaml.Node, p fieldPath, depth int, errs *[]*Error) {
	if n == nil || depth > 1000 {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn := n.Content[i]
			if kn.Kind != yaml.ScalarNode {
				continue
			}
			if first, dup := seen[kn.Value]; dup {
				*errs = append(*errs, doc.errAt(kn.Line, p.key(kn.Value),
					fmt.Sprintf("duplicate field (first set at line %d)", doc.absLine(first))))
			} else {
				seen[kn.Value] = kn.Line
			}
			doc.duplicateKeys(n.Content[i+1], p.key(kn.Value), depth+1, errs)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			doc.duplicateKeys(c, p.idx(i), depth+1, errs)
		}
	}
}

// describeNode describes a YAML node for a message.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "the scalar " + quote(shorten(n.Value))
	}
	return "nothing"
}

// describeValue describes a decoded JSON value, written as node in the YAML.
func describeValue(v any, node *yaml.Node) string {
	text := fmt.Sprint(v)
	if n := resolveAlias(node); n != nil && n.Kind == yaml.ScalarNode {
		text = n.Value
	}
	switch x := v.(type) {
	case json.Number, float64:
		return "number " + shorten(text)
	case bool:
		return "boolean " + shorten(text)
	case string:
		return "string " + quote(shorten(x))
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case nil:
		return "null"
	}
	return shorten(text)
}

func shorten(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return s
}
