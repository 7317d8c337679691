package valuediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Values compares two JSON-like values, as produced by
// runtime.DefaultUnstructuredConverter.ToUnstructured or by json.Unmarshal
// into an any, and returns every difference, with paths under the given
// prefix (e.g. Values("spec", wantSpec, gotSpec)). Nil means equal.
//
// Maps are walked in sorted key order; a key is appended as ".key", or as
// "[key]" when it is not a plain identifier. Lists are matched by key where
// the field holding them has one (see listKeys) and every item on both sides
// has a distinct key, and by index otherwise; keyed items are named
// "[key]", others "[0]". An item or key present on one side only is one
// difference with "<absent>" on the other side. Keyed lists with the same
// items in a different order give one "order" difference at the list's
// path, and their items are still compared by key.
//
// Numbers compare by value whatever their Go type (int64 6379 equals
// float64 6379 and json.Number "6379"). Values of other types (typed maps,
// slices, structs) are read through their JSON encoding.
func Values(path string, want, got any) []Difference {
	w := &walker{}
	w.walk(path, lastField(path), canonical(want), canonical(got))
	return w.diffs
}

type walker struct {
	diffs []Difference
}

func (w *walker) add(path string, want, got any) {
	w.diffs = append(w.diffs, Difference{Path: path, Want: render(want), Got: render(got)})
}

func (w *walker) addAbsent(path string, want, got any, wantOK, gotOK bool) {
	d := Difference{Path: path, Want: Absent, Got: Absent}
	if wantOK {
		d.Want = render(want)
	}
	if gotOK {
		d.Got = render(got)
	}
	w.diffs = append(w.diffs, d)
}

// walk compares want and got at path; field is the name of the map key
// holding them ("" for list items), which selects how lists are keyed.
func (w *walker) walk(path, field string, want, got any) {
	switch wt := want.(type) {
	case map[string]any:
		gt, ok := got.(map[string]any)
		if !ok {
			w.add(path, want, got)
			return
		}
		w.maps(path, wt, gt)
	case []any:
		gt, ok := got.([]any)
		if !ok {
			w.add(path, want, got)
			return
		}
		w.lists(path, field, wt, gt)
	default:
		if !scalarEqual(want, got) {
			w.add(path, want, got)
		}
	}
}

func (w *walker) maps(path string, want, got map[string]any) {
	for _, k := range unionKeys(want, got) {
		wv, inWant := want[k]
		gv, inGot := got[k]
		p := joinField(path, k)
		if !inWant || !inGot {
			w.addAbsent(p, wv, gv, inWant, inGot)
			continue
		}
		w.walk(p, k, wv, gv)
	}
}

func (w *walker) lists(path, field string, want, got []any) {
	if keyOf := listKeys[field]; keyOf != nil {
		wantKeys, wantOK := itemKeys(want, keyOf)
		gotKeys, gotOK := itemKeys(got, keyOf)
		if wantOK && gotOK {
			w.keyedLists(path, want, got, wantKeys, gotKeys)
			return
		}
	}
	for i := 0; i < max(len(want), len(got)); i++ {
		p := path + "[" + strconv.Itoa(i) + "]"
		if i >= len(want) || i >= len(got) {
			w.addAbsent(p, at(want, i), at(got, i), i < len(want), i < len(got))
			continue
		}
		w.walk(p, "", want[i], got[i])
	}
}

func (w *walker) keyedLists(path string, want, got []any, wantKeys, gotKeys []string) {
	wantIndex := indexOf(wantKeys)
	gotIndex := indexOf(gotKeys)

	// The items both sides have must come in the same order.
	inGot := func(k string) bool { _, ok := gotIndex[k]; return ok }
	inWant := func(k string) bool { _, ok := wantIndex[k]; return ok }
	if !slices.Equal(slices.DeleteFunc(slices.Clone(wantKeys), func(k string) bool { return !inGot(k) }),
		slices.DeleteFunc(slices.Clone(gotKeys), func(k string) bool { return !inWant(k) })) {
		w.diffs = append(w.diffs, Difference{
			Path:  path,
			Want:  fmt.Sprint(wantKeys),
			Got:   fmt.Sprint(gotKeys),
			order: true,
		})
	}

	for i, k := range wantKeys {
		p := path + "[" + k + "]"
		j, ok := gotIndex[k]
		if !ok {
			w.addAbsent(p, want[i], nil, true, false)
			continue
		}
		w.walk(p, "", want[i], got[j])
	}
	for j, k := range gotKeys {
		if !inWant(k) {
			w.addAbsent(path+"["+k+"]", nil, got[j], false, true)
		}
	}
}

// listKeys gives, by the name of the field holding a list, the key that
// identifies its items. A key function returns false when an item has no
// key; the list is then compared by index.
var listKeys = map[string]func(item map[string]any) (string, bool){
	"containers":          stringField("name"),
	"initContainers":      stringField("name"),
	"ephemeralContainers": stringField("name"),
	"env":                 stringField("name"),
	"volumes":             stringField("name"),
	"volumeMounts":        stringField("mountPath"),
	"envFrom":             envFromKey,
	"ports":               portKey,
}

func stringField(name string) func(map[string]any) (string, bool) {
	return func(item map[string]any) (string, bool) {
		s, ok := item[name].(string)
		return s, ok && s != ""
	}
}

// envFromKey names an envFrom item "configMapRef:NAME" or "secretRef:NAME",
// preceded by "prefix=P," when it has a prefix.
func envFromKey(item map[string]any) (string, bool) {
	var key string
	for _, ref := range []string{"configMapRef", "secretRef"} {
		m, ok := item[ref].(map[string]any)
		if !ok {
			continue
		}
		name, ok := m["name"].(string)
		if !ok || key != "" {
			return "", false
		}
		key = ref + ":" + name
	}
	if key == "" {
		return "", false
	}
	if prefix, ok := item["prefix"].(string); ok && prefix != "" {
		key = "prefix=" + prefix + "," + key
	}
	return key, true
}

// portKey names a container port "containerPort/protocol"; a missing
// protocol is TCP, as the API server defaults it.
func portKey(item map[string]any) (string, bool) {
	n, ok := item["containerPort"].(int64)
	if !ok {
		return "", false
	}
	protocol, ok := item["protocol"].(string)
	if !ok || protocol == "" {
		protocol = "TCP"
	}
	return strconv.FormatInt(n, 10) + "/" + protocol, true
}

// itemKeys returns the key of every item, or false when an item is not a
// map, has no key, or shares its key with another item.
func itemKeys(items []any, keyOf func(map[string]any) (string, bool)) ([]string, bool) {
	keys := make([]string, len(items))
	seen := make(map[string]bool, len(items))
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, false
		}
		k, ok := keyOf(m)
		if !ok || seen[k] {
			return nil, false
		}
		seen[k] = true
		keys[i] = k
	}
	return keys, true
}

func indexOf(keys []string) map[string]int {
	idx := make(map[string]int, len(keys))
	for i, k := range keys {
		idx[k] = i
	}
	return idx
}

func at(items []any, i int) any {
	if i < len(items) {
		return items[i]
	}
	return nil
}

// unionKeys returns the keys of both maps, sorted.
func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// joinField appends a map key to a path: ".key" for a plain identifier,
// "[key]" otherwise (e.g. a node selector's "kubernetes.io/os").
func joinField(path, key string) string {
	if !isIdentifier(key) {
		return path + "[" + key + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
		default:
			return false
		}
	}
	return true
}

// lastField returns the field a path ends with ("env" for
// "spec.containers[web].env"), or "" when it ends with a list item.
func lastField(path string) string {
	if strings.HasSuffix(path, "]") {
		return ""
	}
	if i := strings.LastIndexAny(path, ".]"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// canonical returns v as a JSON-like value: maps as map[string]any, lists
// as []any, integral numbers as int64, other numbers as float64. Values of
// other types are read through their JSON encoding.
func canonical(v any) any {
	switch t := v.(type) {
	case nil, string, bool, int64:
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = canonical(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = canonical(e)
		}
		return out
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil {
			return canonicalFloat(f)
		}
		return t.String()
	case float64:
		return canonicalFloat(t)
	case float32:
		return canonicalFloat(float64(t))
	case int:
		return int64(t)
	case int8:
		return int64(t)
	case int16:
		return int64(t)
	case int32:
		return int64(t)
	case uint:
		return canonicalUint(uint64(t))
	case uint8:
		return int64(t)
	case uint16:
		return int64(t)
	case uint32:
		return int64(t)
	case uint64:
		return canonicalUint(t)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return v
	}
	return canonical(out)
}

func canonicalFloat(f float64) any {
	if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return int64(f)
	}
	return f
}

func canonicalUint(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return float64(u)
}

// scalarEqual compares two canonical non-container values.
func scalarEqual(a, b any) bool {
	switch a.(type) {
	case map[string]any, []any:
		return false
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	if !reflect.TypeOf(a).Comparable() {
		return reflect.DeepEqual(a, b)
	}
	return a == b
}

// render writes a canonical value compactly: strings quoted as by %q,
// numbers and booleans plain, maps and lists as compact JSON with sorted
// keys.
func render(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	case int64:
		return strconv.FormatInt(t, 10)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// Render renders a value as differences show it: strings quoted, numbers
// and booleans plain, maps and lists as compact JSON.
func Render(v any) string { return render(canonical(v)) }
