package yamldoc

import (
	"bytes"
	"encoding/json"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// plainJSON writes the document as JSON from its parsed nodes, resolving
// plain scalars as sigs.k8s.io/yaml does (YAML 1.1, go.yaml.in/yaml/v2),
// for the documents manifests are made of: ok is false, and nothing is
// to be read from the buffer, when the document has anything whose
// resolution is not plain to tell here — an anchor, an alias, an explicit
// tag, a merge key, a key twice, a plain scalar that may be a float, an
// octal, hex or binary integer, a timestamp, or one of YAML 1.1's words
// (yes, off, ~ …) other than true, false and null — and ToJSON then
// converts its text as kubectl does. The JSON is the same object as
// kubectl's, keys in the document's order.
func plainJSON(n *yaml.Node, b *bytes.Buffer) bool {
	if n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 {
		return false
	}
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Anchor != "" || k.Style&yaml.TaggedStyle != 0 || seen[k.Value] {
				return false
			}
			if quoted(k) {
				writeString(b, k.Value)
			} else if kind, _ := resolvePlain(k.Value); kind != plainString || k.Value == "<<" {
				return false
			} else {
				writeString(b, k.Value)
			}
			seen[k.Value] = true
			b.WriteByte(':')
			if !plainJSON(n.Content[i+1], b) {
				return false
			}
			if i+2 < len(n.Content) {
				b.WriteByte(',')
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if !plainJSON(item, b) {
				return false
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		if quoted(n) {
			writeString(b, n.Value)
			return true
		}
		kind, literal := resolvePlain(n.Value)
		switch kind {
		case plainString:
			writeString(b, n.Value)
		case plainLiteral:
			b.WriteString(literal)
		default:
			return false
		}
	default:
		return false
	}
	return true
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

// writeString writes s as a JSON string, as encoding/json does.
func writeString(b *bytes.Buffer, s string) {
	data, _ := json.Marshal(s) // a string always encodes
	b.Write(data)
}
