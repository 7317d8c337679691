package oracle

import "testing"

// TestNamesPath: a refusal names an offending field by its path or by the
// list item a duplicate key belongs to.
func TestNamesPath(t *testing.T) {
	for _, tc := range []struct {
		name, msg, path string
		want            bool
	}{
		{"the path", `spec.env[0].name: Invalid value: "A=1"`, "spec.env[0].name", true},
		{"the list item of a duplicate key", `spec.volumes[1]: Duplicate value: map[string]interface {}{"name":"data"}`, "spec.volumes[1].name", true},
		{"another item", `spec.volumes[0]: Duplicate value`, "spec.volumes[1].name", false},
		{"no path", `admission webhook denied the request: invalid preset`, "spec.selector.matchExpressions[0].operator", false},
		{"a field outside a list is not widened", `spec: Invalid value`, "spec.selector", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := namesPath(tc.msg, tc.path); got != tc.want {
				t.Errorf("namesPath(%q, %q) = %v, want %v", tc.msg, tc.path, got, tc.want)
			}
		})
	}
}
