package model

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// orders are the orders to try the matching presets (already in name
// order) in: that one alone by the specification; every permutation when
// the order is unspecified, up to maxOrders presets, and beyond that name
// order and its reverse.
func orders(matching []*v1alpha1.PodPreset, o Order) [][]*v1alpha1.PodPreset {
	if o != Unspecified || len(matching) < 2 {
		return [][]*v1alpha1.PodPreset{matching}
	}
	if len(matching) > maxOrders {
		return [][]*v1alpha1.PodPreset{matching, reversed(matching)}
	}
	return Permutations(matching)
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
