package profile

import (
	"fmt"
	"reflect"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"presetsim.dev/presetsim/internal/manifest/hint"
)

// unknownKeys finds every key of a profile's YAML that no field of t (by
// its yaml tag) reads, at any depth: each a problem at its path, with the
// key it most likely meant and the keys known there. Values of maps
// (spec.preset.fields) and scalars are not looked into.
func unknownKeys(n *yaml.Node, t reflect.Type, path string) []problem {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.DocumentNode {
		var out []problem
		for _, c := range n.Content {
			out = append(out, unknownKeys(c, t, path)...)
		}
		return out
	}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode {
			var out []problem
			for i, c := range n.Content {
				out = append(out, unknownKeys(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
			}
			return out
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || n.Kind != yaml.MappingNode {
		return nil
	}
	fields := map[string]reflect.Type{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = f.Type
		names = append(names, name)
	}
	var out []problem
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i].Value, n.Content[i+1]
		at := key
		if path != "" {
			at = path + "." + key
		}
		ft, ok := fields[key]
		if !ok {
			msg := "unknown key"
			if near := hint.Nearest(key, names); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
			out = append(out, problem{at, fmt.Sprintf("%s (known here: %s)", msg, strings.Join(names, ", "))})
			continue
		}
		out = append(out, unknownKeys(value, ft, at)...)
	}
	return out
}
