package containerenv

import (
	"strings"
	"testing"
)

func TestComparePrinted(t *testing.T) {
	env := Environment{
		Vars: []Var{
			{Name: "A", Value: "1"},
			{Name: "IP", Value: ""},
			{Name: "PASSWORD", Value: "s3cret", Secret: true},
			{Name: "Z", Value: "26"},
		},
		Unknown: []string{"IP"},
	}
	tests := []struct {
		name    string
		printed map[string]string
		want    string // "name:simulated/printed" per difference
	}{
		{"same, plus the runtime's", map[string]string{"A": "1", "IP": "10.244.0.5", "PASSWORD": "s3cret", "Z": "26", "PATH": "/usr/local/bin", "HOSTNAME": "web"}, ""},
		{"value differs", map[string]string{"A": "2", "PASSWORD": "s3cret", "Z": "26"}, "A:1/2"},
		{"not printed", map[string]string{"A": "1", "PASSWORD": "s3cret"}, "Z:26/-"},
		{"not simulated", map[string]string{"A": "1", "PASSWORD": "s3cret", "Z": "26", "EXTRA": "x"}, "EXTRA:-/x"},
		{"unknown value not printed", map[string]string{"A": "1", "PASSWORD": "s3cret", "Z": "26"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range ComparePrinted(env, tt.printed) {
				sim, pr := "-", "-"
				if d.Simulated != nil {
					sim = d.Simulated.Value
				}
				if d.Printed != nil {
					pr = *d.Printed
				}
				got = append(got, d.Name+":"+sim+"/"+pr)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}
