package outcome

import "testing"

// TestReadReportRefusesAnotherVersion: a summary of another version is not
// read as this one.
func TestReadReportRefusesAnotherVersion(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"no version", `{"implementation": "x"}`},
		{"another version", `{"apiVersion": "presetsim.dev/v9", "kind": "ConformanceReport"}`},
		{"another kind", `{"apiVersion": "presetsim.dev/v1alpha1", "kind": "Pod"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ReadReport([]byte(tc.data)); err == nil {
				t.Errorf("read %s without error", tc.data)
			}
		})
	}
}
