package merge

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// matchLabelsOnly decides a selector that has only matchLabels, all of them
// valid, directly on the pod's labels: exactly what
// metav1.LabelSelectorAsSelector and Matches would decide, without building a
// labels.Selector and without the regular expressions it validates keys and
// values with, which cost more than the rest of Select. ok is false for any
// other selector (matchExpressions, or a key or value that is not plainly
// valid); the caller then parses it, which also gives the error for an
// invalid one.
func matchLabelsOnly(s *metav1.LabelSelector, podLabels map[string]string) (matches, ok bool) {
	if len(s.MatchExpressions) > 0 {
		return false, false
	}
	matches = true
	for k, v := range s.MatchLabels {
		if !isLabelKey(k) || !isLabelValue(v) {
			return false, false
		}
		if got, has := podLabels[k]; !has || got != v {
			matches = false // keep validating: an invalid key must still be reported
		}
	}
	return matches, true
}

// Lengths and forms of labels, as k8s.io/apimachinery/pkg/api/validate/content
// checks them (IsLabelKey, IsLabelValue, IsDNS1123Subdomain) in Kubernetes
// 1.37; TestLabelValidationAgrees and FuzzLabelValidation compare these
// functions with those.
const (
	labelNameMaxLength      = 63
	dnsSubdomainMaxLength   = 253
	labelKeyPrefixSeparator = "/"
)

// isLabelKey reports whether k is a valid label key: an optional DNS
// subdomain prefix and "/", then a name.
func isLabelKey(k string) bool {
	prefix, name, prefixed := strings.Cut(k, labelKeyPrefixSeparator)
	if !prefixed {
		return isLabelName(k)
	}
	return isDNSSubdomain(prefix) && isLabelName(name)
}

// isLabelValue reports whether v is a valid label value: empty, or a name.
func isLabelValue(v string) bool {
	return v == "" || isLabelName(v)
}

// isLabelName reports whether s matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
// and has at most 63 characters.
func isLabelName(s string) bool {
	if len(s) == 0 || len(s) > labelNameMaxLength || !isAlphanumeric(s[0]) || !isAlphanumeric(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isDNSSubdomain reports whether s is a lower-case RFC 1123 subdomain of at
// most 253 characters: labels [a-z0-9]([-a-z0-9]*[a-z0-9])? joined by dots.
func isDNSSubdomain(s string) bool {
	if len(s) == 0 || len(s) > dnsSubdomainMaxLength {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if len(label) == 0 || !isLowerAlphanumeric(label[0]) || !isLowerAlphanumeric(label[len(label)-1]) {
			return false
		}
		for i := 1; i < len(label)-1; i++ {
			if c := label[i]; !isLowerAlphanumeric(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func isAlphanumeric(c byte) bool {
	return isLowerAlphanumeric(c) || 'A' <= c && c <= 'Z'
}

func isLowerAlphanumeric(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}
