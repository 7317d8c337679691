// Package valuediff compares JSON-like values (maps, lists, scalars, as
// runtime.DefaultUnstructuredConverter or encoding/json produce them) and
// names every difference by path, list items by their key where the list
// has one: Values for "should be" (the whole value, keyed lists in order)
// and Subset for "should match" (a partial object: maps as subsets, lists by
// the Go type's merge keys). Package compare builds the pod comparison on it.
package valuediff
