package scenario

import (
	"strings"
	"testing"

	"presetsim.dev/presetsim/harness"
)

func TestExpand(t *testing.T) {
	s := New(&harness.World{})
	s.versions[objectKey{"PodPreset", "default", "allow-database"}] = "231"
	s.versions[objectKey{"PodPreset", "myns", "proxy"}] = "77"
	tests := []struct {
		name, text, ns string
		want           string
		wantErr        string
	}{
		{name: "no placeholder", text: "value: x", ns: "", want: "value: x"},
		{name: "default namespace", text: `a: "${rv:allow-database}"`, ns: "", want: `a: "231"`},
		{name: "named namespace", text: "${rv:proxy}/${rv:proxy}", ns: "myns", want: "77/77"},
		{name: "preset of another namespace", text: "${rv:proxy}", ns: "default", wantErr: "did not create in namespace default: proxy"},
		{name: "unknown preset", text: "${rv:nope} ${rv:allow-database}", ns: "", wantErr: "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.expand(tt.text, tt.ns)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Expand = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestLogicalNames(t *testing.T) {
	s := New(&harness.World{})
	s.physical["default"] = "default-abcde"
	s.physical["myns"] = "myns-abcde"
	got := s.logical(`pods "website" is forbidden: namespace myns-abcde, not default-abcde`)
	want := `pods "website" is forbidden: namespace myns, not default`
	if got != want {
		t.Errorf("Logical = %q, want %q", got, want)
	}
	if l := s.logicalOf("myns-abcde"); l != "myns" {
		t.Errorf("logicalOf = %q, want myns", l)
	}
}

func TestNamespaceOf(t *testing.T) {
	s := New(&harness.World{})
	s.submitted[objectKey{"Pod", "myns", "website"}] = nil
	s.submitted[objectKey{"ReplicaSet", "default", "website"}] = nil
	tests := []struct{ kind, name, want string }{
		{"Pod", "website", "myns"},
		{"ReplicaSet", "website", "default"},
		{"Pod", "unknown", "default"},
	}
	for _, tt := range tests {
		if got := s.namespaceOf(tt.kind, tt.name); got != tt.want {
			t.Errorf("namespaceOf(%s, %s) = %q, want %q", tt.kind, tt.name, got, tt.want)
		}
	}
}
