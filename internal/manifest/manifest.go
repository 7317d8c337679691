package manifest

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"presetsim.dev/presetsim/internal/manifest/fieldpath"
	"presetsim.dev/presetsim/internal/manifest/yamldoc"
	"presetsim.dev/presetsim/internal/ordered"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// Scheme returns a new scheme with client-go's built-in types and PodPreset
// (settings.k8s.io/v1alpha1).
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(v1alpha1.AddToScheme(s))
	return s
}

// Source says where a DocString (or file) starts: the file, and the 1-based
// line of the DocString's first content line (the line after the opening
// delimiter). Lines in errors are absolute lines of File.
type Source struct {
	File string
	Line int
}

// Object is one decoded document.
type Object struct {
	// Object is typed (e.g. *corev1.Pod, *v1alpha1.PodPreset,
	// *appsv1.ReplicaSet) when the kind is registered in the scheme, and
	// *unstructured.Unstructured otherwise (e.g. another implementation's
	// custom resources). Its apiVersion and kind are always set.
	Object runtime.Object
	// Raw is the document as written (with apiVersion and kind as decided),
	// for sending to an API server: a round trip through the Go types would
	// add fields the author left out (e.g. an empty selector, a path ""), and
	// the server's schema checks would never see them missing.
	Raw *unstructured.Unstructured
	// GVK is the object's group, version and kind.
	GVK schema.GroupVersionKind
	// Line is the absolute line of the document's first line of content
	// (comments and blank lines before it are skipped).
	Line int

	doc *yamldoc.Document // where the fields are, for LineOf
}

// ErrorAt is an error about the field at path of the object (as LineOf
// reads path), with its file and line.
func (o Object) ErrorAt(path, msg string) *Error {
	e := &Error{Line: o.LineOf(path), Path: path, Msg: msg}
	if o.doc != nil {
		e.File = o.doc.File
	}
	return e
}

// LineOf is the absolute line of the field at path (its key's line; an
// item's own line), written as apimachinery's field.Path writes it
// (spec.selector.matchExpressions[0].operator), or of the deepest part of
// path the document has: for an error found after decoding (a preset's
// validation) to name its line.
func (o Object) LineOf(path string) int {
	if o.doc == nil || o.Raw == nil {
		return o.Line
	}
	p := fieldpath.Resolve(o.Raw.Object, fieldpath.SplitRaw(path))
	return o.doc.AbsLine(o.doc.KeyLine(p))
}

// Error is a decoding error that names the file, the absolute line and, when
// known, the field path (e.g. "spec.volumes[1].secretName").
type Error struct {
	File string
	Line int
	Path string
	Msg  string
}

// Error formats the error as "file:line: path: message"; the path part is
// omitted when empty.
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		b.WriteString(e.File + ": ")
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Decode reads every YAML document in content ("---" separated; empty and
// comment-only documents are skipped), in order. A document that is a List
// (kind List or <Kind>List with items, as kubectl get -o yaml prints) stands
// for its items, each with its own line.
//
// When any document has a problem, Decode returns no objects and an error
// that is an *Error, or an errors.Join of several (every problem found, in
// every document).
func Decode(src Source, content string, scheme *runtime.Scheme) (objs []Object, err error) {
	err = DecodeEach(src, content, scheme, 1, func(o Object) []*Error {
		objs = append(objs, o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return objs, nil
}

// DecodeEach decodes content as Decode does, and hands each object to
// visit in order as soon as it and those before it are decoded, keeping
// none itself: what a file of any size costs is what visit keeps. Up to
// workers documents (one when workers < 2) are decoded at once, at most
// ordered.Window of them ahead of visit, which runs on the caller's
// goroutine and returns the object's own problems, if it finds any (a
// preset the specification refuses). It returns every problem, the
// visitor's among them, in line order as Decode does; the objects of the
// documents without one are visited all the same.
func DecodeEach(src Source, content string, scheme *runtime.Scheme, workers int, visit func(Object) []*Error) (err error) {
	defer recoverInto(src, &err)
	if scheme == nil {
		return &Error{File: src.File, Line: src.line(), Msg: "no scheme to decode with"}
	}
	chunks, ps := yamldoc.Split(src.File, src.line(), content)
	errs := problems(src.File, ps)
	decoders := sync.Pool{New: func() any { return newDecoder(scheme) }}
	decode := func(c yamldoc.Chunk) decoded {
		d := decoders.Get().(*decoder)
		defer decoders.Put(d)
		return d.decodeChunk(c)
	}
	for r := range ordered.Map(chunks, workers, decode) {
		errs = append(errs, r.errs...)
		for _, o := range r.objs {
			errs = append(errs, visit(o)...)
		}
	}
	if len(errs) > 0 {
		return joinErrors(errs)
	}
	return nil
}

// decoded is what one chunk of a file decoded to.
type decoded struct {
	objs []Object
	errs []*Error
}

// decodeChunk parses and decodes one chunk: no object when it is empty, or
// the objects of a List (kubectl get -o yaml), which stands for its items.
// A panic is a problem of the chunk's document, so that no input can crash
// the harness.
func (d *decoder) decodeChunk(c yamldoc.Chunk) (r decoded) {
	defer func() {
		if p := recover(); p != nil {
			r = decoded{errs: []*Error{{File: c.File, Line: c.Start, Msg: fmt.Sprintf("internal error while decoding (please report it): %v", p)}}}
		}
	}()
	doc, p := c.Parse()
	switch {
	case p != nil:
		return decoded{errs: problems(c.File, []yamldoc.Problem{*p})}
	case doc == nil:
		return decoded{}
	}
	d.decodeInto(doc, &r)
	return r
}

// decodeInto decodes a parsed document, or each item of a List, into r.
func (d *decoder) decodeInto(doc *yamldoc.Document, r *decoded) {
	if items, ok := doc.Items(); ok {
		for _, item := range items {
			d.decodeInto(item, r)
		}
		return
	}
	obj, errs := d.decodeDocument(doc, nil)
	r.errs = append(r.errs, errs...)
	if len(errs) == 0 {
		r.objs = append(r.objs, obj)
	}
}

// DecodeInto decodes a single-document DocString into obj (e.g. a *corev1.Pod
// for "When I create the pod:"), with the same checks as Decode. It is an
// error if content does not hold exactly one document, or if apiVersion or
// kind are written and do not match obj's registered kind; when they are not
// written they are filled in from the scheme. An *unstructured.Unstructured
// obj accepts any kind (apiVersion and kind must then be written).
//
// Errors are as for Decode. On error obj may be partly filled.
func DecodeInto(src Source, content string, scheme *runtime.Scheme, obj runtime.Object) (err error) {
	defer recoverInto(src, &err)
	if scheme == nil {
		return &Error{File: src.File, Line: src.line(), Msg: "no scheme to decode with"}
	}
	if obj == nil || (reflect.ValueOf(obj).Kind() == reflect.Pointer && reflect.ValueOf(obj).IsNil()) {
		return &Error{File: src.File, Line: src.line(), Msg: "no object to decode into"}
	}
	tgt := &target{}
	if u, ok := obj.(runtime.Unstructured); ok {
		tgt.unstructured = u
	} else {
		gvks, _, err := scheme.ObjectKinds(obj)
		if err != nil || len(gvks) == 0 {
			return &Error{File: src.File, Line: src.line(), Msg: fmt.Sprintf("cannot decode into %T: the type is not registered in the scheme", obj)}
		}
		tgt.gvk = gvks[0]
		tgt.obj = obj
	}

	docs, errs := parseDocuments(src, content)
	if len(errs) > 0 {
		return joinErrors(errs)
	}
	switch {
	case len(docs) == 0:
		return &Error{File: src.File, Line: src.line(), Msg: "expected one object, found no document"}
	case len(docs) > 1:
		return &Error{File: src.File, Line: docs[1].AbsLine(docs[1].FirstLine()), Msg: fmt.Sprintf("expected one object, found %d documents", len(docs))}
	}
	_, docErrs := newDecoder(scheme).decodeDocument(docs[0], tgt)
	if len(docErrs) > 0 {
		return joinErrors(docErrs)
	}
	return nil
}

// target is what DecodeInto decodes into: a registered kind, or any kind
// into an unstructured object.
type target struct {
	gvk          schema.GroupVersionKind
	obj          runtime.Object
	unstructured runtime.Unstructured
}

// line is the DocString's first line, at least 1.
func (s Source) line() int {
	if s.Line < 1 {
		return 1
	}
	return s.Line
}

// parseDocuments splits a DocString into its YAML documents (yamldoc.Parse).
func parseDocuments(src Source, content string) ([]*yamldoc.Document, []*Error) {
	docs, ps := yamldoc.Parse(src.File, src.line(), content)
	return docs, problems(src.File, ps)
}

// problems turns a document's problems into errors of the file.
func problems(file string, ps []yamldoc.Problem) []*Error {
	errs := make([]*Error, len(ps))
	for i, p := range ps {
		errs[i] = &Error{File: file, Line: p.Line, Path: p.Path.String(), Msg: p.Msg}
	}
	return errs
}

// errAt builds an error at line (in doc.Text) and path.
func errAt(doc *yamldoc.Document, line int, path fieldpath.Path, msg string) *Error {
	return problems(doc.File, []yamldoc.Problem{doc.At(line, path, msg)})[0]
}

// recoverInto turns a panic into an *Error, so that no input can crash the
// harness. A panic here is a bug in this package or in a library it calls.
func recoverInto(src Source, err *error) {
	if r := recover(); r != nil {
		*err = &Error{File: src.File, Line: src.line(), Msg: fmt.Sprintf("internal error while decoding (please report it): %v", r)}
	}
}

// joinErrors sorts errors by line (stable, so one line's errors keep their
// order) and returns the single error, or all of them joined.
func joinErrors(errs []*Error) error {
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
	if len(errs) == 1 {
		return errs[0]
	}
	all := make([]error, len(errs))
	for i, e := range errs {
		all[i] = e
	}
	return errors.Join(all...)
}

// setUnstructured copies a decoded unstructured object into the caller's.
func setUnstructured(dst runtime.Unstructured, src *unstructured.Unstructured) {
	dst.SetUnstructuredContent(src.UnstructuredContent())
}
