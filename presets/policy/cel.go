package policy

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// literal writes v, a Go value, as a CEL literal of the JSON it marshals to:
// objects become maps with string keys (in key order, so that the output is
// stable), arrays lists, integral numbers ints.
func literal(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return "", err
	}
	var b strings.Builder
	if err := writeLiteral(&b, tree); err != nil {
		return "", err
	}
	return b.String(), nil
}

// writeLiteral writes v. CEL's checker wants the values of a map, and the
// items of a list, of one type: where they differ, each is wrapped in
// dyn() (a map of string and object values, a list of maps of different
// shapes); where they agree, they are written as they are.
func writeLiteral(b *strings.Builder, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		b.WriteString(quote(v))
	case float64:
		// Kubernetes' integer fields (defaultMode, expirationSeconds, ...)
		// are ints in CEL; a pod's int64 compares equal only to an int.
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			b.WriteString(strconv.FormatInt(int64(v), 10))
		} else {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	case []any:
		wrap := !sameType(v)
		b.WriteByte('[')
		for i, item := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writeItem(b, item, wrap); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		values := make([]any, len(keys))
		for i, k := range keys {
			values[i] = v[k]
		}
		wrap := !sameType(values)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quote(k))
			b.WriteString(": ")
			if err := writeItem(b, v[k], wrap); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("no CEL literal for %T", v)
	}
	return nil
}

func writeItem(b *strings.Builder, v any, wrap bool) error {
	if !wrap {
		return writeLiteral(b, v)
	}
	b.WriteString("dyn(")
	err := writeLiteral(b, v)
	b.WriteByte(')')
	return err
}

// sameType reports whether the values have one CEL type as writeLiteral
// writes them.
func sameType(values []any) bool {
	for i := 1; i < len(values); i++ {
		if typeOf(values[i]) != typeOf(values[0]) {
			return false
		}
	}
	return true
}

// typeOf is the CEL type of a value as writeLiteral writes it: a map or
// list whose items differ in type holds dyn.
func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return "int"
		}
		return "double"
	case []any:
		if len(v) == 0 || !sameType(v) {
			return "list(dyn)"
		}
		return "list(" + typeOf(v[0]) + ")"
	case map[string]any:
		values := slices.Collect(maps.Values(v))
		if len(values) == 0 || !sameType(values) {
			return "map(string, dyn)"
		}
		return "map(string, " + typeOf(values[0]) + ")"
	}
	return fmt.Sprintf("%T", v)
}

// quote is a CEL string literal. CEL's escapes are Go's, for what
// strconv.Quote writes (\", \\, \n, \t, \xhh, \uhhhh, \Uhhhhhhhh).
func quote(s string) string { return strconv.Quote(s) }

// selector is a CEL expression, over labels (an expression of type
// map(string, string)), that is true when the label selector matches, with
// metav1.LabelSelectorAsSelector's meaning: every matchLabels pair present,
// and every expression true (In: the key is present with one of the values;
// NotIn: absent, or present with none of them; Exists; DoesNotExist). The
// empty selector is "true" (R1.3). An operator it does not know is an
// error, as it is for the reference.
func selector(s metav1.LabelSelector, labels string) (string, error) {
	var terms []string
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		terms = append(terms, fmt.Sprintf("(%s in %s && %s[%s] == %s)", quote(k), labels, labels, quote(k), quote(s.MatchLabels[k])))
	}
	for _, e := range s.MatchExpressions {
		in := fmt.Sprintf("%s in %s", quote(e.Key), labels)
		values := make([]string, len(e.Values))
		for i, v := range e.Values {
			values[i] = quote(v)
		}
		set := "[" + strings.Join(values, ", ") + "]"
		switch e.Operator {
		case metav1.LabelSelectorOpIn:
			terms = append(terms, fmt.Sprintf("(%s && %s[%s] in %s)", in, labels, quote(e.Key), set))
		case metav1.LabelSelectorOpNotIn:
			terms = append(terms, fmt.Sprintf("(!(%s) || !(%s[%s] in %s))", in, labels, quote(e.Key), set))
		case metav1.LabelSelectorOpExists:
			terms = append(terms, in)
		case metav1.LabelSelectorOpDoesNotExist:
			terms = append(terms, "!("+in+")")
		default:
			return "", fmt.Errorf("%q is not a valid label selector operator", e.Operator)
		}
	}
	if len(terms) == 0 {
		return "true", nil
	}
	return strings.Join(terms, " && "), nil
}
