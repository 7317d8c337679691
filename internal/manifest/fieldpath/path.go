package fieldpath

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Seg is one step of a field path: a mapping key or a list index.
type Seg struct {
	Key     string // the mapping key, when not IsIndex
	Index   int    // the list index, when IsIndex
	IsIndex bool
}

// Path is a path into a document, e.g. spec.volumes[1].secretName.
type Path []Seg

// String formats the path as spec.volumes[1].secretName; keys that hold
// dots or brackets (annotation keys, say) are written in brackets, as in
// metadata.annotations[podpreset.admission.kubernetes.io/exclude].
func (p Path) String() string {
	var b strings.Builder
	for _, s := range p {
		switch {
		case s.IsIndex:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case s.Key == "" || strings.ContainsAny(s.Key, ".[] \t"):
			b.WriteString("[" + s.Key + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		}
	}
	return b.String()
}

// Key returns p followed by the mapping key k (p itself is not changed).
func (p Path) Key(k string) Path {
	return append(p[:len(p):len(p)], Seg{Key: k})
}

// Index returns p followed by the list index i (p itself is not changed).
func (p Path) Index(i int) Path {
	return append(p[:len(p):len(p)], Seg{Index: i, IsIndex: true})
}

// SplitRaw splits a path as the JSON decoder writes it
// (spec.volumes[1].secretName) into keys and indices. A key that holds dots
// comes out as several keys; Resolve joins them again.
func SplitRaw(s string) []Seg {
	var out []Seg
	for s != "" {
		switch {
		case s[0] == '.':
			s = s[1:]
		case s[0] == '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return append(out, Seg{Key: s})
			}
			if i, err := strconv.Atoi(s[1:end]); err == nil && i >= 0 {
				out = append(out, Seg{Index: i, IsIndex: true})
			} else {
				out = append(out, Seg{Key: s[1:end]})
			}
			s = s[end+1:]
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			out = append(out, Seg{Key: s[:end]})
			s = s[end:]
		}
	}
	return out
}

// Resolve maps raw path segments onto tree (the document as decoded
// from JSON), joining consecutive keys with dots where the tree has such a
// key (metadata.annotations.a.b/c is the key "a.b/c" of annotations). Parts
// that are not in the tree are kept as they are.
func Resolve(tree any, raw []Seg) Path {
	var out Path
	cur := tree
	for i := 0; i < len(raw); {
		s := raw[i]
		if s.IsIndex {
			if arr, ok := cur.([]any); ok && s.Index < len(arr) {
				cur = arr[s.Index]
			} else {
				cur = nil
			}
			out = append(out, s)
			i++
			continue
		}
		matched := false
		if m, ok := cur.(map[string]any); ok {
			key := ""
			for j := i; j < len(raw) && !raw[j].IsIndex; j++ {
				if j > i {
					key += "."
				}
				key += raw[j].Key
				if v, ok := m[key]; ok {
					out = append(out, Seg{Key: key})
					cur, i, matched = v, j+1, true
					break
				}
			}
		}
		if !matched {
			out = append(out, s)
			cur = nil
			i++
		}
	}
	return out
}

// ValueAt returns the value at p in tree.
func ValueAt(tree any, p Path) (any, bool) {
	cur := tree
	for _, s := range p {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[s.Key]
			if s.IsIndex || !ok {
				return nil, false
			}
			cur = v
		case []any:
			if !s.IsIndex || s.Index >= len(x) {
				return nil, false
			}
			cur = x[s.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}

// WithValue returns a copy of tree with the value at p replaced by v. Only
// the maps and lists along p are copied. A p that is not in tree leaves it
// unchanged.
func WithValue(tree any, p Path, v any) any {
	if len(p) == 0 {
		return v
	}
	s := p[0]
	switch x := tree.(type) {
	case map[string]any:
		child, ok := x[s.Key]
		if s.IsIndex || !ok {
			return tree
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		m[s.Key] = WithValue(child, p[1:], v)
		return m
	case []any:
		if !s.IsIndex || s.Index >= len(x) {
			return tree
		}
		a := append([]any(nil), x...)
		a[s.Index] = WithValue(x[s.Index], p[1:], v)
		return a
	}
	return tree
}

// JSONKind names the JSON type of v as the JSON decoder does in its errors.
func JSONKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "unknown"
}
