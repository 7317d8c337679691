package scenario

import (
	"testing"

	"presetsim.dev/presetsim/internal/compare/valuediff"
)

// TestMaskSecretData: a Secret's values are masked in differences, which
// key differs is not, and neither are other fields.
func TestMaskSecretData(t *testing.T) {
	in := []valuediff.Difference{
		{Path: "data.password", Want: `"aHVudGVyMg=="`, Got: `"c2VjcmV0"`},
		{Path: "stringData.token", Want: `"t0ken"`, Got: valuediff.Absent},
		{Path: "type", Want: `"Opaque"`, Got: `"kubernetes.io/tls"`},
	}
	got := maskSecretData(in)
	want := []valuediff.Difference{
		{Path: "data.password", Want: Mask, Got: Mask},
		{Path: "stringData.token", Want: Mask, Got: valuediff.Absent},
		{Path: "type", Want: `"Opaque"`, Got: `"kubernetes.io/tls"`},
	}
	for i := range want {
		if got[i].Path != want[i].Path || got[i].Want != want[i].Want || got[i].Got != want[i].Got {
			t.Errorf("difference %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if in[0].Want != `"aHVudGVyMg=="` {
		t.Error("maskSecretData changed its input")
	}
}
