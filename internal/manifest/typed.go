package manifest

import (
	"encoding/json"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"presetsim.dev/presetsim/internal/manifest/fieldpath"
	"presetsim.dev/presetsim/internal/manifest/hint"
	"presetsim.dev/presetsim/internal/manifest/yamldoc"
)

// maxAttempts bounds how often a document is decoded again after setting the
// values of the wrong type to null, to find the next problem.
const maxAttempts = 32

// decodeTyped decodes tree strictly as gvk and reports every problem, each
// with its field path and line.
//
// The JSON decoder reports only the first value of the wrong type, and no
// unknown fields when there is one; so each wrong value is located, reported
// and set to null, and the document decoded again, until it decodes or only
// unknown (or duplicate) fields are left.
func (d *decoder) decodeTyped(doc *yamldoc.Document, tree map[string]any, gvk schema.GroupVersionKind) (runtime.Object, []*Error) {
	rootType := d.scheme.AllKnownTypes()[gvk]
	var (
		errs   []*Error
		cur    any = tree
		nulled     = map[string]bool{}
	)
	for attempt := 0; attempt < maxAttempts; attempt++ {
		obj, err := d.tryDecode(cur, gvk)
		if err == nil {
			return obj, errs
		}
		if se, ok := runtime.AsStrictDecodingError(err); ok {
			for _, e := range se.Errors() {
				errs = append(errs, strictError(doc, cur, rootType, e))
			}
			return nil, errs
		}
		probs := typeProblems(cur, rootType, err)
		if len(probs) == 0 {
			if p := d.isolate(cur, gvk); len(p) > 0 {
				probs = []typeProblem{{path: p, err: err}}
			}
		}
		progress := false
		for _, pr := range probs {
			key := pr.path.String()
			if nulled[key] {
				continue
			}
			nulled[key] = true
			progress = true
			v, _ := fieldpath.ValueAt(cur, pr.path)
			_, node := fieldpath.LookupNode(doc.Root, pr.path)
			errs = append(errs, errAt(doc, doc.ValueLine(pr.path), pr.path, pr.message(fieldpath.TypeAt(rootType, pr.path), v, node)))
			cur = fieldpath.WithValue(cur, pr.path, nil)
		}
		if !progress {
			return nil, append(errs, errAt(doc, doc.FirstLine(), nil, hint.Clean(err)))
		}
	}
	return nil, append(errs, errAt(doc, doc.FirstLine(), nil, "too many errors; fix the ones above first"))
}

// tryDecode strictly decodes tree as a new gvk object.
func (d *decoder) tryDecode(tree any, gvk schema.GroupVersionKind) (runtime.Object, error) {
	data, err := json.Marshal(tree)
	if err != nil {
		return nil, err
	}
	obj, err := d.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	_, _, err = d.strict.Decode(data, &gvk, obj)
	return obj, err
}

var strictErrRE = regexp.MustCompile(`^(unknown|duplicate) field ("(?:[^"\\]|\\.)*")$`)

// strictError turns one of the strict decoder's errors, such as
// `unknown field "spec.volumes[1].secretName"`, into an *Error at the line of
// that field.
func strictError(doc *yamldoc.Document, tree any, rootType reflect.Type, e error) *Error {
	m := strictErrRE.FindStringSubmatch(e.Error())
	if m == nil {
		return errAt(doc, doc.FirstLine(), nil, hint.Clean(e))
	}
	raw, err := strconv.Unquote(m[2])
	if err != nil {
		raw = m[2]
	}
	p := fieldpath.Resolve(tree, fieldpath.SplitRaw(raw))
	if m[1] == "duplicate" {
		return errAt(doc, doc.KeyLine(p), p, "duplicate field")
	}
	return errAt(doc, doc.KeyLine(p), p, "unknown field"+hint.UnknownField(rootType, p, tree))
}

// message describes the problem: what the value must be, what it is, and how
// to fix it. t is the Go type at the path, if known.
func (pr typeProblem) message(t reflect.Type, v any, node *yaml.Node) string {
	goType := pr.goType
	if pr.err != nil {
		m := valueErrRE.FindStringSubmatch(pr.err.Error())
		if m == nil {
			return hint.Clean(pr.err)
		}
		goType = m[2]
	}
	return hint.WrongType(t, goType, v, node)
}

// typeProblem is a value of the wrong type at path.
type typeProblem struct {
	path   fieldpath.Path
	goType string // the Go type named by the decoder, if any
	err    error  // the decoder's error, when the value was found by isolate
}

var (
	// typeErrRE matches the JSON decoder's type errors; the field path has no
	// list indices and may name embedded Go structs (VolumeSource).
	typeErrRE = regexp.MustCompile(`^json: cannot unmarshal (\w+)(?: \S+)? into Go struct field (\S*) of type (.+)$`)
	// valueErrRE matches type errors of custom decoders (IntOrString...).
	valueErrRE = regexp.MustCompile(`^json: cannot unmarshal (\w+)(?: \S+)? into Go value of type (.+)$`)
)

// typeProblems finds the values that a type error of the JSON decoder is
// about: every value at its (index-free) path, in every list item, whose JSON
// type is the one the decoder complained about.
func typeProblems(tree any, rootType reflect.Type, err error) []typeProblem {
	m := typeErrRE.FindStringSubmatch(err.Error())
	if m == nil {
		return nil
	}
	field := m[2]
	if i := strings.IndexByte(field, '.'); i >= 0 {
		field = field[i+1:] // drop the Go struct name
	} else {
		field = ""
	}
	var segs []string
	for _, s := range strings.Split(field, ".") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	c := &collector{root: rootType, want: m[1], budget: 100000}
	c.collect(tree, segs, nil)
	probs := make([]typeProblem, len(c.out))
	for i, p := range c.out {
		probs[i] = typeProblem{path: p, goType: m[3]}
	}
	return probs
}

type collector struct {
	root   reflect.Type
	want   string // JSON type: "number", "string", "bool", "array", "object"
	budget int
	out    []fieldpath.Path
}

func (c *collector) collect(v any, segs []string, p fieldpath.Path) {
	if c.budget <= 0 {
		return
	}
	c.budget--
	t := fieldpath.Deref(fieldpath.TypeAt(c.root, p))
	isKind := func(kinds ...reflect.Kind) bool {
		for _, k := range kinds {
			if t != nil && t.Kind() == k {
				return true
			}
		}
		return false
	}
	arr, isArr := v.([]any)
	obj, isObj := v.(map[string]any)
	switch {
	case isArr && isKind(reflect.Slice, reflect.Array):
		for i, e := range arr {
			c.collect(e, segs, p.Index(i))
		}
	case isObj && isKind(reflect.Map):
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			c.collect(obj[k], segs, p.Key(k))
		}
	case len(segs) == 0:
		if fieldpath.JSONKind(v) == c.want {
			c.out = append(c.out, p)
		}
	case isArr:
		for i, e := range arr {
			c.collect(e, segs, p.Index(i))
		}
	case isObj:
		if child, ok := obj[segs[0]]; ok {
			c.collect(child, segs[1:], p.Key(segs[0]))
		} else if segs[0] != "" && segs[0][0] >= 'A' && segs[0][0] <= 'Z' {
			c.collect(v, segs[1:], p) // an embedded Go struct, e.g. VolumeSource
		}
	}
}

// isolate finds the value that makes tree fail to decode when the decoder's
// error does not say where (errors of custom decoders such as
// resource.Quantity's): it keeps narrowing tree down to one field or list
// item, as long as that alone still fails to decode. It returns nil if it
// cannot narrow the error down.
func (d *decoder) isolate(tree any, gvk schema.GroupVersionKind) fieldpath.Path {
	fails := func(t any) bool {
		_, err := d.tryDecode(t, gvk)
		_, strict := runtime.AsStrictDecodingError(err)
		return err != nil && !strict
	}
	var p fieldpath.Path
	work := tree
	for depth := 0; depth < 100; depth++ {
		v, _ := fieldpath.ValueAt(work, p)
		narrowed := false
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if len(p) == 0 && (k == "apiVersion" || k == "kind") {
					continue
				}
				only := map[string]any{k: x[k]}
				if len(p) == 0 {
					only["apiVersion"], only["kind"] = x["apiVersion"], x["kind"]
				}
				if cand := fieldpath.WithValue(work, p, only); fails(cand) {
					work, p, narrowed = cand, p.Key(k), true
					break
				}
			}
		case []any:
			for i := range x {
				only := make([]any, len(x))
				only[i] = x[i]
				if cand := fieldpath.WithValue(work, p, only); fails(cand) {
					work, p, narrowed = cand, p.Index(i), true
					break
				}
			}
		}
		if !narrowed {
			break
		}
	}
	return p
}
