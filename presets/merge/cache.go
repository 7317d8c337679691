package merge

import (
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// DefaultCacheSize is how many presets a Cache from NewCache remembers before
// it starts over.
const DefaultCacheSize = 10000

// Cache remembers what Select and Apply derive from a stored preset, so that
// admission does not redo it for every pod: the parsed selector
// (metav1.LabelSelectorAsSelector validates every key and value, which cost
// more than the whole merge), the defaulted items (Defaulted) and the
// annotation key. With 100 presets in a namespace and one matching, a pod then
// costs 100 map look-ups and selector evaluations, and no copy of any preset.
//
// A preset is remembered by its UID and found again only at the same
// resourceVersion: the API server gives every change of a stored object a new
// resourceVersion, so a changed preset is parsed and defaulted afresh, and the
// entry of its old version is replaced. This relies on the client-go contract
// that objects from an informer's cache are never modified in place; a caller
// that changes a preset in memory without changing its resourceVersion must
// not use a Cache. Presets without a UID or resourceVersion (built in memory,
// as offline previews and tests do) are never remembered; the Cache then does
// exactly what Select and Apply do.
//
// Entries of deleted presets are not removed one by one: once the Cache holds
// its maximum, it forgets everything and fills up again from the presets in
// use, which bounds its memory without needing delete events.
//
// A Cache is safe for concurrent use. The nil *Cache is valid and remembers
// nothing: Select and Apply are its methods on nil.
type Cache struct {
	mu      sync.RWMutex
	entries map[types.UID]*entry
	max     int
}

// NewCache returns an empty Cache that holds up to DefaultCacheSize presets.
func NewCache() *Cache {
	return &Cache{max: DefaultCacheSize}
}

// entry is what a Cache remembers of one preset at one resourceVersion.
type entry struct {
	// selector is nil when the preset's selector is invalid; selectorErr
	// then says why, naming the preset.
	selector    labels.Selector
	selectorErr error
	// defaulted is the preset itself when it already carries its defaults
	// (as the admission informer caches presets), otherwise a defaulted copy;
	// its resourceVersion is the preset's.
	defaulted  *v1alpha1.PodPreset
	annotation string
}

func newEntry(p *v1alpha1.PodPreset) *entry {
	e := &entry{defaulted: defaultedOnce(p), annotation: AnnotationKey(p.Name)}
	e.selector, e.selectorErr = parseSelector(p)
	return e
}

// parseSelector converts the preset's selector, with an error that names the
// preset.
func parseSelector(p *v1alpha1.PodPreset) (labels.Selector, error) {
	s, err := metav1.LabelSelectorAsSelector(&p.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("pod preset %s/%s has an invalid selector: %w", p.Namespace, p.Name, err)
	}
	return s, nil
}

// cacheable reports whether a preset identifies a stored version of an object.
func cacheable(p *v1alpha1.PodPreset) bool {
	return p.UID != "" && p.ResourceVersion != ""
}

// lookup returns the entry of every stored preset (see cacheable), making
// and remembering those it does not hold yet, and nil for other presets: a
// preset that cannot be remembered is parsed or defaulted only when needed.
// The read lock is taken once for all presets, and the write lock only when
// something was missing.
func (c *Cache) lookup(presets []*v1alpha1.PodPreset) []*entry {
	out := make([]*entry, len(presets))
	var missing []int
	c.mu.RLock()
	for i, p := range presets {
		if p == nil || !cacheable(p) {
			continue
		}
		if e := c.entries[p.UID]; e != nil && e.defaulted.ResourceVersion == p.ResourceVersion {
			out[i] = e
			continue
		}
		missing = append(missing, i)
	}
	c.mu.RUnlock()
	if len(missing) == 0 {
		return out
	}
	for _, i := range missing {
		out[i] = newEntry(presets[i])
	}
	c.remember(presets, out, missing)
	return out
}

// remember stores the entries at the positions made, starting over when the
// Cache is full.
func (c *Cache) remember(presets []*v1alpha1.PodPreset, entries []*entry, made []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, i := range made {
		uid := presets[i].UID
		if _, replacing := c.entries[uid]; !replacing && len(c.entries) >= c.max {
			c.entries = nil
		}
		if c.entries == nil {
			c.entries = make(map[types.UID]*entry)
		}
		c.entries[uid] = entries[i]
	}
}

// Len returns how many presets the Cache holds.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Select is Select with the presets' parsed selectors taken from the Cache.
func (c *Cache) Select(pod *corev1.Pod, presets []*v1alpha1.PodPreset) ([]*v1alpha1.PodPreset, error) {
	if c == nil {
		return Select(pod, presets)
	}
	return selectPresets(pod, presets, c.lookup(presets))
}

// Apply is Apply with the presets' defaulted forms and annotation keys taken
// from the Cache. The aliasing contract of Apply holds: the result shares no
// memory with the pod or with the presets (nor with the Cache's copies).
func (c *Cache) Apply(pod *corev1.Pod, presets []*v1alpha1.PodPreset) Result {
	if c == nil {
		return Apply(pod, presets)
	}
	if pod == nil {
		return Result{}
	}
	entries := c.lookup(presets)
	ps := make([]prepared, 0, len(presets))
	for i, p := range presets {
		switch {
		case entries[i] != nil:
			ps = append(ps, prepared{preset: entries[i].defaulted, annotation: entries[i].annotation})
		case p != nil:
			ps = append(ps, prepared{preset: defaultedOnce(p), annotation: AnnotationKey(p.Name)})
		}
	}
	return apply(pod, ps)
}

// prepared is a preset as Apply merges it: in its defaulted form, with the
// annotation key that records it.
type prepared struct {
	preset     *v1alpha1.PodPreset
	annotation string
}

// prepare defaults the non-nil presets (those that need it) and builds their
// annotation keys, all in one allocation.
func prepare(presets []*v1alpha1.PodPreset) []prepared {
	ps := make([]prepared, 0, len(presets))
	size := 0
	for _, p := range presets {
		if p != nil {
			ps = append(ps, prepared{preset: defaultedOnce(p)})
			size += len(annotationKeyPrefix) + len(p.Name)
		}
	}
	var b strings.Builder
	b.Grow(size)
	for i := range ps {
		start := b.Len()
		b.WriteString(annotationKeyPrefix)
		b.WriteString(ps[i].preset.Name)
		ps[i].annotation = b.String()[start:]
	}
	return ps
}
