package webhook

import "sync"

// MaxDeliveries bounds the pod creations Deliveries keeps per namespace:
// past it, whether a pod of that namespace was sent is not known, and
// memory stays flat over a long fuzz run that reuses its namespaces.
const MaxDeliveries = 10000

// Deliveries are the pods whose CREATE (dry run or not) an implementation
// was sent, by namespace and name, with how many times (a pod created
// again under its name, a dry run before the create): what R5.4 of the specification asks of
// a registration. The zero value is ready; it is safe for concurrent use.
type Deliveries struct {
	mu    sync.Mutex
	by    map[string]map[string]int
	full  map[string]bool
	count map[string]int
}

// Note records that the CREATE of the pod namespace/name was sent. A
// request without a name (a controller's pod, which has only a
// generateName until it is stored) is counted, not noted by name.
func (d *Deliveries) Note(namespace, name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.by == nil {
		d.by, d.full, d.count = map[string]map[string]int{}, map[string]bool{}, map[string]int{}
	}
	d.count[namespace]++
	if name == "" {
		return
	}
	names := d.by[namespace]
	if names == nil {
		names = map[string]int{}
		d.by[namespace] = names
	}
	if _, noted := names[name]; !noted && len(names) >= MaxDeliveries {
		d.full[namespace] = true
		return
	}
	names[name]++
}

// In is how many pod creations of the namespace were sent, named or not.
func (d *Deliveries) In(namespace string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.count[namespace]
}

// Sent is how many times the CREATE of the pod namespace/name was sent;
// known is false for a pod without a name, and when the namespace's record
// is full and the pod is not in it.
func (d *Deliveries) Sent(namespace, name string) (times int, known bool) {
	if name == "" {
		return 0, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if n := d.by[namespace][name]; n > 0 {
		return n, true
	}
	return 0, !d.full[namespace]
}
