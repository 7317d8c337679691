package rule

import (
	"slices"
	"strings"
)

// ID is a rule's id, as the specification writes it: "R4.3".
type ID string

// Rule is a rule of the specification.
type Rule struct {
	ID    ID     `json:"id"`
	Title string `json:"title"`
}

// Lookup returns the catalogue's rule of an id.
func Lookup(id ID) (Rule, bool) {
	i := slices.IndexFunc(All, func(r Rule) bool { return r.ID == id })
	if i < 0 {
		return Rule{}, false
	}
	return All[i], true
}

// Known reports whether the specification defines the rule.
func Known(id ID) bool {
	_, ok := Lookup(id)
	return ok
}

// Parse reads a rule id ("R4.3"): "R", digits, ".", digits. The rule need
// not be in the catalogue (Known says whether it is).
func Parse(s string) (ID, bool) {
	major, minor, ok := strings.Cut(strings.TrimPrefix(s, "R"), ".")
	if !strings.HasPrefix(s, "R") || !ok || !digits(major) || !digits(minor) {
		return "", false
	}
	return ID(s), true
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// Tags returns the rule ids among a scenario's tags ("@R2.4" → R2_4),
// each once, in order.
func Tags(tags []string) []ID {
	var out []ID
	for _, t := range tags {
		if s, ok := strings.CutPrefix(t, "@"); ok {
			if id, ok := Parse(s); ok && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// Section is the section an id belongs to: "R4" for R4.3 (Sections has
// its title).
func (id ID) Section() string {
	s, _, _ := strings.Cut(string(id), ".")
	return s
}

// Strings are the ids as text, for messages.
func Strings(ids []ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

// Join joins ids with a separator, for messages: "R3.4, R4.1".
func Join(ids []ID, sep string) string { return strings.Join(Strings(ids), sep) }

// Rule groups, as the steps' checks and the oracle use them.
var (
	// Selection decide whether a pod is mutated at all.
	Selection = []ID{R2_1, R2_2, R2_3, R2_4, R2_5, R2_6, R4_2}
	// Injection decide what a mutated pod looks like.
	Injection = []ID{R3_1, R3_2, R3_3, R3_4, R3_5, R3_6, R3_7, R3_8, R4_1}
	// Validation decide which presets the API accepts.
	Validation = []ID{R1_1, R1_2, R1_3, R1_4, R1_5, R1_6, R1_7, R1_8}
	// PodContent are what a pod comparison can show broken.
	PodContent = slices.Concat(Selection, Injection, []ID{R4_4})
)
