package model

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// orders are the orders to try the matching presets (already in name
// order) in: that one alone by the specification; every permutation when
// the order is unspecified, up to maxOrders presets, and beyond that the
// orders an implementation is likeliest to use: by name and by creation
// (resourceVersion, as an informer's cache lists them after a preset was
// created again), each forwards and backwards, without repeats.
func orders(matching []*v1alpha1.PodPreset, o Order) [][]*v1alpha1.PodPreset {
	if o != Unspecified || len(matching) < 2 {
		return [][]*v1alpha1.PodPreset{matching}
	}
	if len(matching) <= maxOrders {
		return Permutations(matching)
	}
	created := slices.SortedStableFunc(slices.Values(matching), func(a, b *v1alpha1.PodPreset) int {
		return compareVersions(a.ResourceVersion, b.ResourceVersion)
	})
	out := [][]*v1alpha1.PodPreset{matching}
	for _, order := range [][]*v1alpha1.PodPreset{reversed(matching), created, reversed(created)} {
		if !slices.ContainsFunc(out, func(x []*v1alpha1.PodPreset) bool { return slices.Equal(x, order) }) {
			out = append(out, order)
		}
	}
	return out
}

// compareVersions orders resourceVersions as the numbers an API server's
// are (etcd's revisions), and as strings when either is not one.
func compareVersions(a, b string) int {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	return cmp.Compare(x, y)
}

// Permutations returns every order of list, list's own first: the orders
// Unspecified accepts, and the orders of presets an implementation may list
// in any order (those of one name in several namespaces, say).
func Permutations(list []*v1alpha1.PodPreset) [][]*v1alpha1.PodPreset {
	if len(list) <= 1 {
		return [][]*v1alpha1.PodPreset{slices.Clone(list)}
	}
	var out [][]*v1alpha1.PodPreset
	for i := range list {
		rest := slices.Concat(list[:i], list[i+1:])
		for _, tail := range Permutations(rest) {
			out = append(out, slices.Concat([]*v1alpha1.PodPreset{list[i]}, tail))
		}
	}
	return out
}

func reversed(list []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
	out := slices.Clone(list)
	slices.Reverse(out)
	return out
}

// containsOutcome reports whether an equal outcome is in list.
func containsOutcome(list []Outcome, o Outcome) bool {
	return slices.ContainsFunc(list, func(x Outcome) bool { return equality.Semantic.DeepEqual(x, o) })
}
