package yamldoc

import (
	"encoding/json"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// plainTree is the document as the JSON decoder (with UseNumber) reads
// the JSON kubectl makes of it — maps, slices, strings, json.Number,
// booleans and nil — made from its parsed nodes, resolving plain scalars
// as sigs.k8s.io/yaml does (YAML 1.1, go.yaml.in/yaml/v2), for the
// documents manifests are made of. ok is false when the document has
// anything whose resolution is not plain to tell here — an anchor, an
// alias, an explicit tag, a merge key, a key twice, a plain scalar that
// may be a float, an octal, hex or binary integer, a timestamp, or one of
// YAML 1.1's words (yes, off, ~ …) other than true, false and null — and
// Tree then converts its text as kubectl does.
func plainTree(n *yaml.Node) (any, bool) {
	if n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 {
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Anchor != "" || k.Style&yaml.TaggedStyle != 0 {
				return nil, false
			}
			if _, twice := m[k.Value]; twice {
				return nil, false
			}
			if !quoted(k) {
				if kind, _ := resolvePlain(k.Value); kind != plainString || k.Value == "<<" {
					return nil, false
				}
			}
			v, ok := plainTree(n.Content[i+1])
			if !ok {
				return nil, false
			}
			m[k.Value] = v
		}
		return m, true
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, item := range n.Content {
			v, ok := plainTree(item)
			if !ok {
				return nil, false
			}
			list[i] = v
		}
		return list, true
	case yaml.ScalarNode:
		if quoted(n) {
			return n.Value, true
		}
		switch kind, literal := resolvePlain(n.Value); {
		case kind == plainString:
			return n.Value, true
		case kind == plainLiteral && literal == "null":
			return nil, true
		case kind == plainLiteral && literal == "true":
			return true, true
		case kind == plainLiteral && literal == "false":
			return false, true
		case kind == plainLiteral:
			return json.Number(literal), true
		}
	}
	return nil, false
}

// quoted reports whether a scalar is written quoted or as a block: a
// string, whatever it reads.
func quoted(n *yaml.Node) bool {
	return n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
}

// What a plain scalar resolves to in YAML 1.1.
const (
	plainUnsure  = iota // left to go.yaml.in/yaml/v2
	plainString         // a string
	plainLiteral        // a JSON literal: a decimal integer, true, false, null
)

// yaml11Words are the plain scalars YAML 1.1 resolves to something else
// than a string (booleans, null, infinities, not-a-number, the merge key).
var yaml11Words = map[string]bool{}

func init() {
	for _, w := range strings.Fields("y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF ~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF <<") {
		yaml11Words[w] = true
	}
}

// resolvePlain is what the plain scalar s resolves to, as
// go.yaml.in/yaml/v2 resolves it, when that is plain to tell: its first
// character says whether it may be anything but a string (a sign, a
// digit, a dot, or the first letter of a YAML 1.1 word); if so, a decimal
// integer, true, false and null are told here, and a scalar holding a
// character that no number or timestamp holds is a string.
func resolvePlain(s string) (kind int, literal string) {
	switch {
	case s == "" || s == "null" || s == "~":
		return plainLiteral, "null"
	case s == "true" || s == "false":
		return plainLiteral, s
	case yaml11Words[s]:
		return plainUnsure, ""
	}
	switch c := s[0]; {
	case c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9':
		if decimal(s) {
			return plainLiteral, s
		}
		if strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune(numberRunes, r) }) >= 0 {
			return plainString, ""
		}
		return plainUnsure, ""
	}
	return plainString, "" // YAML 1.1 reads nothing else into it
}

// numberRunes are the characters of YAML 1.1's integers (decimal, octal,
// hex, binary, with underscores), floats and timestamps.
const numberRunes = "0123456789abcdefABCDEFxXoObB_+-.:tTzZ "

// decimal reports whether s is a decimal integer that fits an int64 as
// JSON writes it: no sign but a minus, no leading zero, no "-0".
func decimal(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 18 || (digits[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}
