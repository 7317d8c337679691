package hint

import (
	"testing"

	"presetsim.dev/presetsim/internal/manifest/fieldpath"
)

func TestNearestField(t *testing.T) {
	fields := []fieldpath.Field{{Name: "containers"}, {Name: "initContainers"}, {Name: "volumes"}, {Name: "nodeName"}, {Name: "hostPID"}, {Name: "hostIPC"}}
	for _, tc := range []struct{ name, typo, want string }{
		{"two letters swapped", "containres", "containers"},
		{"a letter missing", "volums", "volumes"},
		{"a letter doubled", "nodeNname", "nodeName"},
		{"two edits in a long name", "initContaners2", "initContainers"},
		{"too far", "images", ""},
		{"equally near two fields", "hostPxC", ""},
		{"a short name, one edit only", "vols", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nearestField(fields, tc.typo); got != tc.want {
				t.Errorf("nearestField(%q) = %q, want %q", tc.typo, got, tc.want)
			}
		})
	}
}
