package hint

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"presetsim.dev/presetsim/internal/manifest/fieldpath"
)

// OrList formats up to four quoted names joined with "or".
func OrList(names []string) string {
	q := make([]string, 0, len(names))
	for i, n := range names {
		if i == 4 {
			q = append(q, "...")
			break
		}
		q = append(q, Quote(n))
	}
	return strings.Join(q, " or ")
}

// DescribeNode describes a YAML node for a message.
func DescribeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "the scalar " + Quote(shorten(n.Value))
	}
	return "nothing"
}

// DescribeValue describes a decoded JSON value, written as node in the YAML.
func DescribeValue(v any, node *yaml.Node) string {
	text := fmt.Sprint(v)
	if n := fieldpath.ResolveAlias(node); n != nil && n.Kind == yaml.ScalarNode {
		text = n.Value
	}
	switch x := v.(type) {
	case json.Number, float64:
		return "number " + shorten(text)
	case bool:
		return "boolean " + shorten(text)
	case string:
		return "string " + Quote(shorten(x))
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case nil:
		return "null"
	}
	return shorten(text)
}

// shorten cuts a value to 40 characters for a message.
func shorten(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return s
}

// UnknownField suggests where the unknown field at p (of a value of Go type
// rootType, decoded as tree) may belong: a field that differs only in case,
// or a field of the same name one level down (e.g. "name" next to an empty
// "configMapRef:" that it should be indented under). It returns "" when it
// has no suggestion.
func UnknownField(rootType reflect.Type, p fieldpath.Path, tree any) string {
	if len(p) == 0 || p[len(p)-1].IsIndex {
		return ""
	}
	name, parent := p[len(p)-1].Key, p[:len(p)-1]
	fields := fieldpath.Fields(fieldpath.TypeAt(rootType, parent))
	for _, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return fmt.Sprintf("; did you mean %s?", Quote(f.Name))
		}
	}
	if typo := nearestField(fields, name); typo != "" {
		return fmt.Sprintf("; did you mean %s?", Quote(typo))
	}
	var under []string
	for _, f := range fields {
		for _, g := range fieldpath.Fields(f.Type) {
			if g.Name == name {
				under = append(under, f.Name)
				break
			}
		}
	}
	siblings, _ := fieldpath.ValueAt(tree, parent)
	if sm, ok := siblings.(map[string]any); ok {
		for _, u := range under {
			if _, ok := sm[u]; ok {
				return fmt.Sprintf("; did you mean to indent it under %s?", Quote(u))
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
	return "; did you mean " + OrList(names) + "?"
}

// WrongType describes a value of the wrong type: what it must be, what it
// is, and how to fix it. t is the Go type at its path, if known, and goType
// the type the decoder named; node is where the value is written.
func WrongType(t reflect.Type, goType string, v any, node *yaml.Node) string {
	class := classOf(t, goType)
	var want string
	switch class {
	case "":
		want = "a value of type " + goType
	case "integer", "intOrString":
		want = map[string]string{"integer": "an integer", "intOrString": "an integer or a string"}[class]
	default:
		want = "a " + class
	}
	msg := "must be " + want + ", got " + DescribeValue(v, node)
	text := fmt.Sprint(v)
	if n := fieldpath.ResolveAlias(node); n != nil && n.Kind == yaml.ScalarNode {
		text = n.Value
	}
	switch x := v.(type) {
	case json.Number, bool:
		if class == "string" {
			msg += fmt.Sprintf(" (quote it: %s)", Quote(text))
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

// classOf names the kind of value Go type t (or, if t is nil, the type
// named goType) takes: "string", "integer", "number", "boolean", "list",
// "mapping", "intOrString", or "" if unknown.
func classOf(t reflect.Type, goType string) string {
	if t = fieldpath.Deref(t); t != nil {
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

// Clean is an error's first line without the decoders' prefixes.
func Clean(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	for _, p := range []string{"strict decoding error: ", "json: ", "yaml: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

// Quote quotes s for a message.
func Quote(s string) string { return strconv.Quote(s) }

// nearestField is the field a misspelt name most likely meant: the one
// nearest by edit distance (a swap of two neighbouring letters counts one
// edit, as in "containres"), at most one edit away for a name of four
// letters or fewer and two for a longer one; "" when none is, or when two
// are equally near.
func nearestField(fields []fieldpath.Field, name string) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return Nearest(name, names)
}

// Nearest is the one candidate a misspelt name is closest to, ignoring
// case: within two edits (one for a name of four characters or fewer), and
// nearer than any other; "" when there is none.
func Nearest(name string, candidates []string) string {
	limit := 2
	if len(name) <= 4 {
		limit = 1
	}
	best, bestD, tie := "", limit+1, false
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		switch {
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie || bestD > limit {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of adjacent characters.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
