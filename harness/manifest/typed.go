package manifest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
func (d *decoder) decodeTyped(doc *document, tree map[string]any, gvk schema.GroupVersionKind) (runtime.Object, []*Error) {
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
			v, _ := valueAt(cur, pr.path)
			_, node := lookupNode(doc.root, pr.path)
			errs = append(errs, doc.errAt(doc.valueLine(pr.path), pr.path, pr.message(typeAt(rootType, pr.path), v, node)))
			cur = withValue(cur, pr.path, nil)
		}
		if !progress {
			return nil, append(errs, doc.errAt(doc.firstLine(), nil, cleanMessage(err)))
		}
	}
	return nil, append(errs, doc.errAt(doc.firstLine(), nil, "too many errors; fix the ones above first"))
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
func strictError(doc *document, tree any, rootType reflect.Type, e error) *Error {
	m := strictErrRE.FindStringSubmatch(e.Error())
	if m == nil {
		return doc.errAt(doc.firstLine(), nil, cleanMessage(e))
	}
	raw, err := strconv.Unquote(m[2])
	if err != nil {
		raw = m[2]
	}
	p := resolvePath(tree, splitRawPath(raw))
	if m[1] == "duplicate" {
		return doc.errAt(doc.keyLine(p), p, "duplicate field")
	}
	return doc.errAt(doc.keyLine(p), p, "unknown field"+unknownFieldHint(rootType, p, tree))
}

// unknownFieldHint suggests where an unknown field may belong: a field that
// differs only in case, or a field of the same name one level down (e.g.
// "name" next to an empty "configMapRef:" that it should be indented under).
func unknownFieldHint(rootType reflect.Type, p fieldPath, tree any) string {
	if len(p) == 0 || p[len(p)-1].isIndex {
		return ""
	}
	name, parent := p[len(p)-1].key, p[:len(p)-1]
	fields := jsonFields(typeAt(rootType, parent))
	for _, f := range fields {
		if strings.EqualFold(f.name, name) {
			return fmt.Sprintf("; did you mean %s?", quote(f.name))
		}
	}
	var under []string
	for _, f := range fields {
		for _, g := range jsonFields(f.typ) {
			if g.name == name {
				under = append(under, f.name)
				break
			}
		}
	}
	siblings, _ := valueAt(tree, parent)
	if sm, ok := siblings.(map[string]any); ok {
		for _, u := range under {
			if _, ok := sm[u]; ok {
				return fmt.Sprintf("; did you mean to indent it under %s?", quote(u))
			}
		}
	}
	if len(under) == 0 {
		return ""
	}
	names := make([]string, len(under))
	for i, u := range under {
		names[i] = u + "." + name
	}
	return "; did you mean " + orList(names) + "?"
}

// typeProblem is a value of the wrong type at path.
type typeProblem struct {
	path   fieldPath
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
	out    []fieldPath
}

func (c *collector) collect(v any, segs []string, p fieldPath) {
	if c.budget <= 0 {
		return
	}
	c.budget--
	t := deref(typeAt(c.root, p))
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
			c.collect(e, segs, p.idx(i))
		}
	case isObj && isKind(reflect.Map):
		for _, k := range sortedKeys(obj) {
			c.collect(obj[k], segs, p.key(k))
		}
	case len(segs) == 0:
		if jsonKind(v) == c.want {
			c.out = append(c.out, p)
		}
	case isArr:
		for i, e := range arr {
			c.collect(e, segs, p.idx(i))
		}
	case isObj:
		if child, ok := obj[segs[0]]; ok {
			c.collect(child, segs[1:], p.key(segs[0]))
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
func (d *decoder) isolate(tree any, gvk schema.GroupVersionKind) fieldPath {
	fails := func(t any) bool {
		_, err := d.tryDecode(t, gvk)
		_, strict := runtime.AsStrictDecodingError(err)
		return err != nil && !strict
	}
	var p fieldPath
	work := tree
	for depth := 0; depth < 100; depth++ {
		v, _ := valueAt(work, p)
		narrowed := false
		switch x := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(x) {
				if len(p) == 0 && (k == "apiVersion" || k == "kind") {
					continue
				}
				only := map[string]any{k: x[k]}
				if len(p) == 0 {
					only["apiVersion"], only["kind"] = x["apiVersion"], x["kind"]
				}
				if cand := withValue(work, p, only); fails(cand) {
					work, p, narrowed = cand, p.key(k), true
					break
				}
			}
		case []any:
			for i := range x {
				only := make([]any, len(x))
				only[i] = x[i]
				if cand := withValue(work, p, only); fails(cand) {
					work, p, narrowed = cand, p.idx(i), true
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

// message describes the problem: what the value must be, what it is, and how
// to fix it. t is the Go type at the path, if known.
func (pr typeProblem) message(t reflect.Type, v any, node *yaml.Node) string {
	goType := pr.goType
	if pr.err != nil {
		m := valueErrRE.FindStringSubmatch(pr.err.Error())
		if m == nil {
			return cleanMessage(pr.err)
		}
		goType = m[2]
	}
	class := typeClass(t, goType)
	var want string
	switch class {
	case "":
		want = "a value of type " + goType
	case "integer", "intOrString":
		want = map[string]string{"integer": "an integer", "intOrString": "an integer or a string"}[class]
	default:
		want = "a " + class
	}
	msg := "must be " + want + ", got " + describeValue(v, node)
	text := fmt.Sprint(v)
	if n := resolveAlias(node); n != nil && n.Kind == yaml.ScalarNode {
		text = n.Value
	}
	switch x := v.(type) {
	case json.Number, bool:
		if class == "string" {
			msg += fmt.Sprintf(" (quote it: %s)", quote(text))
		}
	case string:
		_, errInt := strconv.ParseInt(x, 10, 64)
		_, errFloat := strconv.ParseFloat(x, 64)
		_, errBool := strconv.ParseBool(x)
		if (class == "integer" && errInt == nil) || (class == "number" && errFloat == nil) || (class == "boolean" && errBool == nil && (x == "true" || x == "false")) {
			msg += fmt.Sprintf(" (remove the quotes: %s)", x)
		}
	case map[string]any:
		if class == "list" {
			msg += ` (start each item of the list with "- ")`
		}
	case []any:
		if class == "mapping" {
			msg += ` (remove the "- ": this is not a list)`
		}
	}
	return msg
}

// typeClass names the kind of value Go type t (or, if t is nil, the type
// named goType) takes: "string", "integer", "number", "boolean", "list",
// "mapping", "intOrString", or "" if unknown.
func typeClass(t reflect.Type, goType string) string {
	if t = deref(t); t != nil {
		switch {
		case t.PkgPath() == "k8s.io/apimachinery/pkg/util/intstr" && t.Name() == "IntOrString":
			return "intOrString"
		case t.PkgPath() == "k8s.io/apimachinery/pkg/api/resource" && t.Name() == "Quantity":
			return "" // has its own messages
		}
		switch t.Kind() {
		case reflect.String:
			return "string"
		case reflect.Bool:
			return "boolean"
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			return "integer"
		case reflect.Float32, reflect.Float64:
			return "number"
		case reflect.Slice, reflect.Array:
			if t.Elem().Kind() == reflect.Uint8 {
				return "string" // []byte: base64
			}
			return "list"
		case reflect.Map, reflect.Struct:
			return "mapping"
		}
	}
	switch {
	case goType == "string":
		return "string"
	case goType == "bool":
		return "boolean"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "integer"
	case strings.HasPrefix(goType, "float"):
		return "number"
	case strings.HasPrefix(goType, "[]"):
		return "list"
	case strings.HasPrefix(goType, "map["):
		return "mapping"
	}
	return ""
}

// jsonField is a field of a Go struct as JSON sees it.
type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields lists the JSON fields of struct type t (after pointers), with
// the fields of embedded and inline structs in place.
func jsonFields(t reflect.Type) []jsonField {
	return appendJSONFields(nil, deref(t), 0)
}

func appendJSONFields(out []jsonField, t reflect.Type, depth int) []jsonField {
	if t == nil || t.Kind() != reflect.Struct || depth > 8 {
		return out
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
			if ft := deref(f.Type); ft.Kind() == reflect.Struct {
				out = appendJSONFields(out, ft, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type})
	}
	return out
}

// typeAt returns the Go type at path p of a value of type t, or nil.
func typeAt(t reflect.Type, p fieldPath) reflect.Type {
	for _, s := range p {
		t = deref(t)
		if t == nil {
			return nil
		}
		switch {
		case s.isIndex && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
			t = t.Elem()
		case !s.isIndex && t.Kind() == reflect.Map:
			t = t.Elem()
		case !s.isIndex && t.Kind() == reflect.Struct:
			var ft reflect.Type
			for _, f := range jsonFields(t) {
				if f.name == s.key {
					ft = f.typ
					break
				}
			}
			t = ft
		default:
			return nil
		}
	}
	return t
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// cleanMessage is an error's first line without the decoders' prefixes.
func cleanMessage(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	for _, p := range []string{"strict decoding error: ", "json: ", "yaml: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}
