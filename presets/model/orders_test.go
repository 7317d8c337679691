package model

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// TestOrders: the specification's order is the name order alone; an
// unspecified order is every permutation, name order first, up to
// maxOrders presets, and beyond name and creation order, each both ways.
func TestOrders(t *testing.T) {
	presets := func(n int) []*v1alpha1.PodPreset {
		var out []*v1alpha1.PodPreset
		for i := range n {
			out = append(out, &v1alpha1.PodPreset{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), ResourceVersion: fmt.Sprint(10 + i)}})
		}
		return out
	}
	names := func(list []*v1alpha1.PodPreset) string {
		var out []string
		for _, p := range list {
			out = append(out, p.Name)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		name        string
		n           int
		order       Order
		count       int
		first, last string
	}{
		{"by name: one order", 3, ByName, 1, "p0,p1,p2", "p0,p1,p2"},
		{"unspecified, one preset", 1, Unspecified, 1, "p0", "p0"},
		{"unspecified, two presets", 2, Unspecified, 2, "p0,p1", "p1,p0"},
		{"unspecified, three presets", 3, Unspecified, 6, "p0,p1,p2", "p2,p1,p0"},
		{"unspecified, maxOrders presets: every permutation", maxOrders, Unspecified, 720, "p0,p1,p2,p3,p4,p5", "p5,p4,p3,p2,p1,p0"},
		{"unspecified, beyond maxOrders, created in name order: name order and its reverse", maxOrders + 1, Unspecified, 2, "p0,p1,p2,p3,p4,p5,p6", "p6,p5,p4,p3,p2,p1,p0"},
		{"unspecified, beyond maxOrders, one created again: by name and by creation, each both ways", maxOrders + 1, Unspecified, 4, "p0,p1,p2,p3,p4,p5,p6", "p2,p6,p5,p4,p3,p1,p0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := presets(tc.n)
			if strings.Contains(tc.name, "created again") {
				list[2].ResourceVersion = "100" // p2, created after the others
			}
			got := orders(list, tc.order)
			if len(got) != tc.count {
				t.Fatalf("%d orders, want %d", len(got), tc.count)
			}
			if names(got[0]) != tc.first || names(got[len(got)-1]) != tc.last {
				t.Errorf("first %s, last %s; want %s and %s", names(got[0]), names(got[len(got)-1]), tc.first, tc.last)
			}
		})
	}
}
