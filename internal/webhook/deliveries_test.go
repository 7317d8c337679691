package webhook

import (
	"strconv"
	"testing"
)

// TestDeliveries: a pod noted is sent as many times as it was noted,
// another is not; a pod without a name is counted, not noted; past MaxDeliveries a namespace's unnoted pods
// are not known, and the other namespaces are unaffected.
func TestDeliveries(t *testing.T) {
	var d Deliveries
	d.Note("a", "web")
	d.Note("a", "twice")
	d.Note("a", "twice")
	d.Note("a", "")
	for i := 0; i < MaxDeliveries+5; i++ {
		d.Note("full", strconv.Itoa(i))
	}
	d.Note("full", "7")
	for _, tc := range []struct {
		name, ns, pod string
		wantTimes     int
		wantKnown     bool
	}{
		{"noted", "a", "web", 1, true},
		{"noted twice", "a", "twice", 2, true},
		{"not noted", "a", "db", 0, true},
		{"no name", "a", "", 0, false},
		{"another namespace", "b", "web", 0, true},
		{"noted before the record filled, and again after", "full", "7", 2, true},
		{"past the bound", "full", strconv.Itoa(MaxDeliveries + 2), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			times, known := d.Sent(tc.ns, tc.pod)
			if times != tc.wantTimes || known != tc.wantKnown {
				t.Errorf("Sent(%s, %s) = %d, %v; want %d, %v", tc.ns, tc.pod, times, known, tc.wantTimes, tc.wantKnown)
			}
		})
	}
}
