package webhook

import "sync"

// MaxDeliveries bounds the pod creations Deliveries keeps per namespace:
// past it, whether a pod of that namespace was sent is not known, and
// memory stays flat over a long fuzz run that reuses its namespaces.
const MaxDeliveries = 10000

// Deliveries are the pods whose CREATE (dry run or not) an implementation
// was sent, by namespace and name: what R5.4 of the specification asks of
// a registration. The zero value is ready; it is safe for concurrent use.
type Deliveries struct {
	mu   sync.Mutex
	by   map[string]map[string]bool
	full map[string]bool
}

// Note records that the CREATE of the pod namespace/name was sent. A
// request without a name (the pod has only a generateName) is not noted.
func (d *Deliveries) Note(namespace, name string) {
	if name == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.by == nil {
		d.by, d.full = map[string]map[string]bool{}, map[string]bool{}
	}
	names := d.by[namespace]
	if names == nil {
		names = map[string]bool{}
		d.by[namespace] = names
	}
	if len(names) >= MaxDeliveries {
		d.full[namespace] = true
		return
	}
	names[name] = true
}

// Sent reports whether the CREATE of the pod namespace/name was sent;
// known is false when the namespace's record is full and the pod is not in
// it.
func (d *Deliveries) Sent(namespace, name string) (sent, known bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.by[namespace][name] {
		return true, true
	}
	return false, !d.full[namespace]
}
