package oracle

import (
	"unicode/utf8"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
)

// modelWarnings are the model's warnings for a pod of namespace in the
// implementation's words (its profile's), as the cluster returns them: an
// API server within its limits (returnedWarnings; its own warnings about
// the pod's fields, which come after admission's, are not counted).
func modelWarnings(w *harness.World, namespace string, messages []string) []string {
	out := make([]string, len(messages))
	for i, m := range messages {
		out[i] = w.Profile.Warning(namespace, m)
	}
	if backend.APIOf(w.Objects()) != nil {
		out = returnedWarnings(out)
	}
	return out
}

// The API server's limits on a response's warnings (k8s.io/apiserver's
// warning recorder, endpoints/filters): while their text stays within
// warningBudget runes in all, warnings are returned whole; once one would
// pass it, every warning of the response is cut to warningItemRunes, and
// those that come once the cut ones have filled the budget are dropped.
const (
	warningBudget    = 4 * 1024
	warningItemRunes = 256
)

// returnedWarnings are the warnings an API server returns when admission
// adds texts in that order: duplicates once, and the limits above. A
// response with many conflicting presets (ten and more, each a warning of
// its own) passes the budget: the model's warnings are compared with the
// implementation's as the API server returns them.
func returnedWarnings(texts []string) []string {
	var (
		out     []string
		seen    = map[string]bool{}
		written int
		cutting bool
	)
	cut := func(text string) string {
		if utf8.RuneCountInString(text) > warningItemRunes {
			return string([]rune(text)[:warningItemRunes])
		}
		return text
	}
	for _, text := range texts {
		if text == "" || seen[text] || (cutting && written >= warningBudget) {
			continue
		}
		seen[text] = true
		if cutting {
			text = cut(text)
		}
		if n := utf8.RuneCountInString(text); cutting || written+n <= warningBudget {
			out, written = append(out, text), written+n
			continue
		}
		// Past the budget: every warning so far is returned cut, this one
		// with them.
		cutting, written = true, 0
		out = append(out, text)
		for i := range out {
			out[i] = cut(out[i])
			written += utf8.RuneCountInString(out[i])
		}
	}
	return out
}
