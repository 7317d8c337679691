package fieldpath

import (
	"reflect"
	"strings"
)

// Field is a field of a Go struct as JSON sees it.
type Field struct {
	Name string
	Type reflect.Type
}

// Fields lists the JSON fields of struct type t (after pointers), with
// the fields of embedded and inline structs in place.
func Fields(t reflect.Type) []Field {
	return appendFields(nil, Deref(t), 0)
}

func appendFields(out []Field, t reflect.Type, depth int) []Field {
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
			if ft := Deref(f.Type); ft.Kind() == reflect.Struct {
				out = appendFields(out, ft, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, Field{Name: name, Type: f.Type})
	}
	return out
}

// TypeAt returns the Go type at path p of a value of type t, or nil.
func TypeAt(t reflect.Type, p Path) reflect.Type {
	for _, s := range p {
		t = Deref(t)
		if t == nil {
			return nil
		}
		switch {
		case s.IsIndex && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
			t = t.Elem()
		case !s.IsIndex && t.Kind() == reflect.Map:
			t = t.Elem()
		case !s.IsIndex && t.Kind() == reflect.Struct:
			var ft reflect.Type
			for _, f := range Fields(t) {
				if f.Name == s.Key {
					ft = f.Type
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

// Deref follows pointer types to the type they point to.
func Deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
