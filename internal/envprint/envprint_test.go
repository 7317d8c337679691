package envprint

import (
	"maps"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	environ := []string{"B=2", "A=one=1", "EMPTY=", "MULTI=line1\nline2", "QUOTE=\"x\"", "UNICODE=é"}
	got, err := Parse("kubelet noise\n" + Format(environ))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "one=1", "B": "2", "EMPTY": "", "MULTI": "line1\nline2", "QUOTE": `"x"`, "UNICODE": "é"}
	if !maps.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if lines := strings.Split(Format(environ), "\n"); lines[1] != `A="one=1"` {
		t.Errorf("variables are not sorted: %q", lines)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, log, want string
	}{
		{"nothing printed yet", "", "no \"presetsim-printenv v1\" line"},
		{"cut off", printedHeader + "\nA=\"1\"\n", "has no \"presetsim-printenv end\" line"},
		{"not a variable", printedHeader + "\ngarbage\n" + printedEnd, "log line 2: \"garbage\" is not NAME=\"value\""},
		{"unquoted value", printedHeader + "\nA=1\n" + printedEnd, "log line 2: value of A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.log)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
