package fieldpath

import (
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// maxAliasDepth bounds alias and merge-key chains.
const maxAliasDepth = 32

// ResolveAlias follows alias nodes (*anchor) to the anchored node.
func ResolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < maxAliasDepth; i++ {
		n = n.Alias
	}
	return n
}

// LookupNode walks root along p and returns the key node (nil for a list
// item) and the value node of the last segment. When p leaves the tree it
// returns the nodes of the deepest segment that exists (both nil if none).
func LookupNode(root *yaml.Node, p Path) (key, val *yaml.Node) {
	cur := ResolveAlias(root)
	for _, s := range p {
		if cur == nil {
			break
		}
		var k, v *yaml.Node
		switch {
		case s.IsIndex && cur.Kind == yaml.SequenceNode && s.Index < len(cur.Content):
			v = cur.Content[s.Index]
		case !s.IsIndex && cur.Kind == yaml.MappingNode:
			k, v = mappingGet(cur, s.Key, 0)
		}
		if v == nil {
			break
		}
		key, val = k, v
		cur = ResolveAlias(v)
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
		kn := ResolveAlias(m.Content[i])
		if kn == nil || kn.Kind != yaml.ScalarNode {
			continue
		}
		if kn.Value == "<<" && (kn.Tag == "!!merge" || kn.Style == 0) {
			merges = append(merges, ResolveAlias(m.Content[i+1]))
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
			if src = ResolveAlias(src); src != nil && src.Kind == yaml.MappingNode {
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
