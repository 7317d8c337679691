package manifest

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// seg is one step of a field path: a mapping key or a list index.
type seg struct {
	key     string
	index   int
	isIndex bool
}

// fieldPath is a path into a document, e.g. spec.volumes[1].secretName.
type fieldPath []seg

// String formats the path as spec.volumes[1].secretName; keys that hold
// dots or brackets (annotation keys, say) are written in brackets, as in
// metadata.annotations[podpreset.admission.kubernetes.io/exclude].
func (p fieldPath) String() string {
	var b strings.Builder
	for _, s := range p {
		switch {
		case s.isIndex:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case s.key == "" || strings.ContainsAny(s.key, ".[] \t"):
			b.WriteString("[" + s.key + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		}
	}
	return b.String()
}

func (p fieldPath) key(k string) fieldPath {
	return append(p[:len(p):len(p)], seg{key: k})
}

func (p fieldPath) idx(i int) fieldPath {
	return append(p[:len(p):len(p)], seg{index: i, isIndex: true})
}

// splitRawPath splits a path as the JSON decoder writes it
// (spec.volumes[1].secretName) into keys and indices. A key that holds dots
// comes out as several keys; resolvePath joins them again.
func splitRawPath(s string) []seg {
	var out []seg
	for s != "" {
		switch {
		case s[0] == '.':
			s = s[1:]
		case s[0] == '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return append(out, seg{key: s})
			}
			if i, err := strconv.Atoi(s[1:end]); err == nil && i >= 0 {
				out = append(out, seg{index: i, isIndex: true})
			} else {
				out = append(out, seg{key: s[1:end]})
			}
			s = s[end+1:]
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			out = append(out, seg{key: s[:end]})
			s = s[end:]
		}
	}
	return out
}

// resolvePath maps raw path segments onto tree (the document as decoded
// from JSON), joining consecutive keys with dots where the tree has such a
// key (metadata.annotations.a.b/c is the key "a.b/c" of annotations). Parts
// that are not in the tree are kept as they are.
func resolvePath(tree any, raw []seg) fieldPath {
	var out fieldPath
	cur := tree
	for i := 0; i < len(raw); {
		s := raw[i]
		if s.isIndex {
			if arr, ok := cur.([]any); ok && s.index < len(arr) {
				cur = arr[s.index]
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
			for j := i; j < len(raw) && !raw[j].isIndex; j++ {
				if j > i {
					key += "."
				}
				key += raw[j].key
				if v, ok := m[key]; ok {
					out = append(out, seg{key: key})
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

// valueAt returns the value at p in tree.
func valueAt(tree any, p fieldPath) (any, bool) {
	cur := tree
	for _, s := range p {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[s.key]
			if s.isIndex || !ok {
				return nil, false
			}
			cur = v
		case []any:
			if !s.isIndex || s.index >= len(x) {
				return nil, false
			}
			cur = x[s.index]
		default:
			return nil, false
		}
	}
	return cur, true
}

// withValue returns a copy of tree with the value at p replaced by v. Only
// the maps and lists along p are copied. A p that is not in tree leaves it
// unchanged.
func withValue(tree any, p fieldPath, v any) any {
	if len(p) == 0 {
		return v
	}
	s := p[0]
	switch x := tree.(type) {
	case map[string]any:
		child, ok := x[s.key]
		if s.isIndex || !ok {
			return tree
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		m[s.key] = withValue(child, p[1:], v)
		return m
	case []any:
		if !s.isIndex || s.index >= len(x) {
			return tree
		}
		a := append([]any(nil), x...)
		a[s.index] = withValue(x[s.index], p[1:], v)
		return a
	}
	return tree
}

// jsonKind names the JSON type of v as the JSON decoder does in its errors.
func jsonKind(v any) string {
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

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// maxAliasDepth bounds alias and merge-key chains.
const maxAliasDepth = 32

// resolveAlias follows alias nodes (*anchor) to the anchored node.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < maxAliasDepth; i++ {
		n = n.Alias
	}
	return n
}

// lookupNode walks root along p and returns the key node (nil for a list
// item) and the value node of the last segment. When p leaves the tree it
// returns the nodes of the deepest segment that exists (both nil if none).
func lookupNode(root *yaml.Node, p fieldPath) (key, val *yaml.Node) {
	cur := resolveAlias(root)
	for _, s := range p {
		if cur == nil {
			break
		}
		var k, v *yaml.Node
		switch {
		case s.isIndex && cur.Kind == yaml.SequenceNode && s.index < len(cur.Content):
			v = cur.Content[s.index]
		case !s.isIndex && cur.Kind == yaml.MappingNode:
			k, v = mappingGet(cur, s.key, 0)
		}
		if v == nil {
			break
		}
		key, val = k, v
		cur = resolveAlias(v)
	}
	return key, val
}

// mappingGet finds key k in mapping m, as the YAML-to-JSON conversion does:
// the last of duplicate keys wins, and keys merged in with "<<" count when
// not written directly.
func mappingGet(m *yaml.Node, k string, depth int) (key, val *yaml.Node) {
	if depth > maxAliasDepth {
		return nil, nil
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn := resolveAlias(m.Content[i])
		if kn == nil || kn.Kind != yaml.ScalarNode {
			continue
		}
		if kn.Value == "<<" && (kn.Tag == "!!merge" || kn.Style == 0) {
			merges = append(merges, resolveAlias(m.Content[i+1]))
			continue
		}
		if keyMatches(kn, k) {
			key, val = m.Content[i], m.Content[i+1]
		}
	}
	if val != nil {
		return key, val
	}
	for _, mv := range merges {
		if mv == nil {
			continue
		}
		sources := []*yaml.Node{mv}
		if mv.Kind == yaml.SequenceNode {
			sources = mv.Content
		}
		for _, src := range sources {
			if src = resolveAlias(src); src != nil && src.Kind == yaml.MappingNode {
				if key, val = mappingGet(src, k, depth+1); val != nil {
					return key, val
				}
			}
		}
	}
	return nil, nil
}

// keyMatches reports whether the scalar key node kn names the JSON key k.
// The YAML-to-JSON conversion follows YAML 1.1, where an unquoted on, yes,
// off, no... is a boolean and becomes the key "true" or "false".
func keyMatches(kn *yaml.Node, k string) bool {
	if kn.Value == k {
		return true
	}
	if kn.Style == 0 {
		if b, ok := yaml11Bool(kn.Value); ok {
			return strconv.FormatBool(b) == k
		}
	}
	return false
}

// yaml11Bool parses the YAML 1.1 booleans that sigs.k8s.io/yaml accepts.
func yaml11Bool(s string) (value, ok bool) {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true, true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false, true
	}
	return false, false
}
