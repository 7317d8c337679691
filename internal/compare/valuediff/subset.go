package valuediff

import (
	"maps"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// Subset compares a partial object want with got, as "should match" does,
// and returns every difference (nil when got matches), with paths under the
// given prefix named as Values names them:
//
//   - a map matches when every key of want is in got with a matching value;
//     keys want does not mention are ignored;
//   - a list whose type has a merge key (the patchMergeKey of the API's Go
//     types, as kubectl's strategic merge patch uses: containers by name,
//     volumeMounts by mountPath, ports by containerPort, …) matches when
//     every item of want has an item of got with the same key that matches
//     it; got may hold other items, in any order;
//   - any other list (no merge key, an item without its key, a kind with no
//     Go type such as a custom resource) matches by position: the same
//     length, and each item of want matches got's item at its index;
//   - scalars match when equal, numbers by value.
//
// schema is the Go type of the object (e.g. &appsv1.Deployment{}), whose
// struct tags give the merge keys, or nil when there is none.
func Subset(path string, want, got any, schema any) []Difference {
	w := &subsetWalker{}
	var meta strategicpatch.LookupPatchMeta
	if schema != nil {
		if m, err := strategicpatch.NewPatchMetaFromStruct(schema); err == nil {
			meta = m
		}
	}
	w.walk(path, canonical(want), canonical(got), meta)
	return w.diffs
}

type subsetWalker struct{ walker }

// walk compares want with got at path; meta is the schema of the value at
// path, nil when unknown.
func (w *subsetWalker) walk(path string, want, got any, meta strategicpatch.LookupPatchMeta) {
	switch wt := want.(type) {
	case map[string]any:
		gt, ok := got.(map[string]any)
		if !ok {
			w.add(path, want, got)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(wt)) {
			p := joinField(path, k)
			gv, in := gt[k]
			if !in {
				w.addAbsent(p, wt[k], nil, true, false)
				continue
			}
			w.field(p, k, wt[k], gv, meta)
		}
	case []any:
		gt, ok := got.([]any)
		if !ok {
			w.add(path, want, got)
			return
		}
		w.positional(path, wt, gt, nil)
	default:
		if !scalarEqual(want, got) {
			w.add(path, want, got)
		}
	}
}

// field compares the value of the map key k, looking up its schema and, for
// a list, its merge key.
func (w *subsetWalker) field(path, k string, want, got any, meta strategicpatch.LookupPatchMeta) {
	if meta == nil {
		w.walk(path, want, got, nil)
		return
	}
	wl, isList := want.([]any)
	gl, gotList := got.([]any)
	if !isList || !gotList {
		sub, _, err := meta.LookupPatchMetadataForStruct(k)
		if err != nil {
			sub = nil
		}
		w.walk(path, want, got, sub)
		return
	}
	item, pm, err := meta.LookupPatchMetadataForSlice(k)
	if err != nil {
		w.positional(path, wl, gl, nil)
		return
	}
	key := pm.GetPatchMergeKey()
	if key == "" {
		w.positional(path, wl, gl, item)
		return
	}
	keyOf := func(v map[string]any) (string, bool) {
		s, ok := v[key]
		if !ok || s == nil {
			return "", false
		}
		if str, ok := s.(string); ok {
			return str, true
		}
		return render(s), true
	}
	wantKeys, wantOK := itemKeys(wl, keyOf)
	gotKeys, gotOK := itemKeys(gl, keyOf)
	if !wantOK || !gotOK {
		w.positional(path, wl, gl, item)
		return
	}
	gotIndex := indexOf(gotKeys)
	for i, k := range wantKeys {
		p := path + "[" + k + "]"
		j, ok := gotIndex[k]
		if !ok {
			w.addAbsent(p, wl[i], nil, true, false)
			continue
		}
		w.walk(p, wl[i], gl[j], item)
	}
}

// positional compares two lists item by item: the same length, each item
// of want matching got's at its index.
func (w *subsetWalker) positional(path string, want, got []any, item strategicpatch.LookupPatchMeta) {
	for i := 0; i < max(len(want), len(got)); i++ {
		p := path + "[" + strconv.Itoa(i) + "]"
		if i >= len(want) || i >= len(got) {
			w.addAbsent(p, at(want, i), at(got, i), i < len(want), i < len(got))
			continue
		}
		w.walk(p, want[i], got[i], item)
	}
}
