package webhook

import (
	"strconv"
	"testing"
)

// TestDeliveries: a pod noted is sent, another is not; a pod without a
// name is counted, not noted; past MaxDeliveries a namespace's unnoted pods
// are not known, and the other namespaces are unaffected.
func TestDeliveries(t *testing.T) {
	var d Deliveries
	d.Note("a", "web")
	d.Note("a", "")
	for i := 0; i < MaxDeliveries+5; i++ {
		d.Note("full", strconv.Itoa(i))
	}
	for _, tc := range []struct {
		name, ns, pod       string
		wantSent, wantKnown bool
	}{
		{"noted", "a", "web", true, true},
		{"not noted", "a", "db", false, true},
		{"no name", "a", "", false, false},
		{"another namespace", "b", "web", false, true},
		{"noted before the record filled", "full", "7", true, true},
		{"past the bound", "full", strconv.Itoa(MaxDeliveries + 2), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sent, known := d.Sent(tc.ns, tc.pod)
			if sent != tc.wantSent || known != tc.wantKnown {
				t.Errorf("Sent(%s, %s) = %v, %v; want %v, %v", tc.ns, tc.pod, sent, known, tc.wantSent, tc.wantKnown)
			}
		})
	}
}
