package merge

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	utilptr "k8s.io/utils/ptr"
)

// linearMax is how many keys a keyIndex scans linearly before it builds a
// map. Most lists hold a few items, where comparing hashes in a slice is
// cheaper than a map look-up and needs no map allocation.
const linearMax = 32

// keyIndex finds the items of a list by key (R3.5). An item may have several
// keys (a volume mount has two), and several items may share a key (a pod may
// carry duplicates of its own), so it is a multimap: every key of every item
// is an entry. Entries hold the key's hash, not the key, so that they hold no
// pointers (nothing for the garbage collector to scan); the caller compares
// the whole key of each candidate. Once there are more than linearMax
// entries, entries with the same hash are chained, and a map from each hash
// to its latest entry starts each chain.
type keyIndex struct {
	entries []indexEntry
	// latestByHash maps a hash to its latest entry; nil while there are at
	// most linearMax entries, which are then scanned instead.
	latestByHash map[uint64]int32
}

// indexEntry is one key of one item.
type indexEntry struct {
	hash uint64
	item int32 // the item's position in its list
	// prev is the previous entry with the same hash, or -1. Kept only once
	// latestByHash exists.
	prev int32
	// which of the item's keys (itemKeys.ids) this is.
	which uint8
}

// add records that key which of the item at position item has hash h.
func (x *keyIndex) add(h uint64, item int, which int) {
	e := indexEntry{hash: h, item: int32(item), prev: -1, which: uint8(which)}
	if x.latestByHash != nil {
		x.link(&e, int32(len(x.entries)))
	}
	x.entries = append(x.entries, e)
	if x.latestByHash == nil && len(x.entries) > linearMax {
		x.buildMap()
	}
}

// link makes e, to be stored at position at, the latest of its chain.
func (x *keyIndex) link(e *indexEntry, at int32) {
	if latest, ok := x.latestByHash[e.hash]; ok {
		e.prev = latest
	} else {
		e.prev = -1
	}
	x.latestByHash[e.hash] = at
}

// buildMap chains the entries, with a map sized for every entry the slice
// has room for.
func (x *keyIndex) buildMap() {
	x.latestByHash = make(map[uint64]int32, cap(x.entries))
	for i := range x.entries {
		x.link(&x.entries[i], int32(i))
	}
}

// latest returns the latest entry with hash h, or -1 when there is none.
func (x *keyIndex) latest(h uint64) int32 {
	if x.latestByHash == nil {
		return x.scanBack(h, len(x.entries)-1)
	}
	if e, ok := x.latestByHash[h]; ok {
		return e
	}
	return -1
}

// previous returns the entry before e with the same hash, or -1.
func (x *keyIndex) previous(e int32) int32 {
	if x.latestByHash == nil {
		return x.scanBack(x.entries[e].hash, int(e)-1)
	}
	return x.entries[e].prev
}

// scanBack returns the last entry with hash h at or before from, or -1.
func (x *keyIndex) scanBack(h uint64, from int) int32 {
	for i := from; i >= 0; i-- {
		if x.entries[i].hash == h {
			return int32(i)
		}
	}
	return -1
}

// Equality of items (R3.4) is equality.Semantic.DeepEqual. It is decided only
// between items that share a key, which is rare except when a pod is admitted
// again (R3.8); then every item is compared, so the common shapes are
// compared field by field instead of by reflection. Semantic.DeepEqual
// differs from == only for resource quantities, times, label and field
// selectors (compared by value) and nil versus empty slices and maps (equal,
// as for slices.Equal); the fields compared directly here hold none of the
// others. TestEqualItemsKnowEveryField fails when a field is added to one of
// these types.

func equalEnv(a, b *corev1.EnvVar) bool {
	if a.ValueFrom == nil && b.ValueFrom == nil {
		return a.Name == b.Name && a.Value == b.Value
	}
	return equality.Semantic.DeepEqual(a, b)
}

func equalEnvFrom(a, b *corev1.EnvFromSource) bool {
	if a.Prefix != b.Prefix || (a.ConfigMapRef == nil) != (b.ConfigMapRef == nil) || (a.SecretRef == nil) != (b.SecretRef == nil) {
		return false
	}
	if a.ConfigMapRef != nil && (a.ConfigMapRef.Name != b.ConfigMapRef.Name || !utilptr.Equal(a.ConfigMapRef.Optional, b.ConfigMapRef.Optional)) {
		return false
	}
	if a.SecretRef != nil && (a.SecretRef.Name != b.SecretRef.Name || !utilptr.Equal(a.SecretRef.Optional, b.SecretRef.Optional)) {
		return false
	}
	return true
}

func equalVolumeMounts(a, b *corev1.VolumeMount) bool {
	return a.Name == b.Name && a.ReadOnly == b.ReadOnly && utilptr.Equal(a.RecursiveReadOnly, b.RecursiveReadOnly) &&
		a.MountPath == b.MountPath && a.SubPath == b.SubPath && utilptr.Equal(a.MountPropagation, b.MountPropagation) &&
		a.SubPathExpr == b.SubPathExpr && slices.Equal(a.BindMountOptions, b.BindMountOptions)
}

func equalVolumes(a, b *corev1.Volume) bool {
	return equality.Semantic.DeepEqual(a, b)
}
