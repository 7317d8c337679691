package merge

import (
	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// podMerger holds every list of a pod while presets are merged into it.
type podMerger struct {
	pod        *corev1.Pod
	volumes    merger[corev1.Volume, *corev1.Volume]
	containers []containerMerger
	arena      arena
}

// containerMerger holds the lists of one container (or init container) while
// presets are merged into it.
type containerMerger struct {
	container    *corev1.Container
	env          merger[corev1.EnvVar, *corev1.EnvVar]
	envFrom      merger[corev1.EnvFromSource, *corev1.EnvFromSource]
	volumeMounts merger[corev1.VolumeMount, *corev1.VolumeMount]
}

// newPodMerger prepares to merge presets, which hold n items, into pod, which
// it takes ownership of (it is Apply's copy).
func newPodMerger(pod *corev1.Pod, presets []prepared, n itemCounts) *podMerger {
	pm := &podMerger{pod: pod}
	pm.containers = make([]containerMerger, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	// The first list of each kind that starts empty.
	var leaders struct {
		env          *merger[corev1.EnvVar, *corev1.EnvVar]
		envFrom      *merger[corev1.EnvFromSource, *corev1.EnvFromSource]
		volumeMounts *merger[corev1.VolumeMount, *corev1.VolumeMount]
	}
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			c := &list[i]
			pm.containers = append(pm.containers, containerMerger{container: c})
			m := &pm.containers[len(pm.containers)-1]
			follow(&m.env, c.Env, n.env, &leaders.env)
			follow(&m.envFrom, c.EnvFrom, n.envFrom, &leaders.envFrom)
			follow(&m.volumeMounts, c.VolumeMounts, n.volumeMounts, &leaders.volumeMounts)
		}
	}

	a := &pm.arena
	a.reserve(pm, presets, n)
	pm.volumes.init(&volumeList, pod.Spec.Volumes, n.volumes, a)
	for ci := range pm.containers {
		m := &pm.containers[ci]
		m.env.init(&envList, m.container.Env, n.env, a)
		m.envFrom.init(&envFromList, m.container.EnvFrom, n.envFrom, a)
		m.volumeMounts.init(&volumeMountList, m.container.VolumeMounts, n.volumeMounts, a)
	}
	return pm
}

// follow makes m, a list that will start with items, a follower of the
// first list of its kind that started empty, when it starts empty too and
// there is one; else, when it starts empty, it becomes that first list.
//
// Two lists that start empty receive the same items in the same order, so
// they stay alike: each item is added to both, or skipped as identical in
// both, or conflicts with the same keys in both. A follower therefore repeats
// what its leader did with each item (which it recorded) instead of
// indexing and looking up keys; a pod's containers mostly start without env,
// envFrom or volume mounts of their own.
func follow[T any, P item[T]](m *merger[T, P], items []T, spare int, leader **merger[T, P]) {
	if len(items) > 0 || spare == 0 {
		return
	}
	if *leader == nil {
		*leader = m
		return
	}
	(*leader).recording = true
	m.leader = *leader
}

// add merges one preset, reporting its conflicts to cs.
func (pm *podMerger) add(p *v1alpha1.PodPreset, cs *conflictSet) {
	a := &pm.arena
	for i := range p.Spec.Volumes {
		cs.report(p.Name, "", fieldVolumes, pm.volumes.add(a, &p.Spec.Volumes[i]))
	}
	for ci := range pm.containers {
		c := &pm.containers[ci]
		for i := range p.Spec.Env {
			cs.report(p.Name, c.container.Name, fieldEnv, c.env.add(a, &p.Spec.Env[i]))
		}
		for i := range p.Spec.EnvFrom {
			cs.report(p.Name, c.container.Name, fieldEnvFrom, c.envFrom.add(a, &p.Spec.EnvFrom[i]))
		}
		for i := range p.Spec.VolumeMounts {
			cs.report(p.Name, c.container.Name, fieldVolumeMounts, c.volumeMounts.add(a, &p.Spec.VolumeMounts[i]))
		}
	}
}

// store puts the merged lists into the pod.
func (pm *podMerger) store() {
	pm.pod.Spec.Volumes = pm.volumes.items
	for ci := range pm.containers {
		c := &pm.containers[ci]
		c.container.Env = c.env.items
		c.container.EnvFrom = c.envFrom.items
		c.container.VolumeMounts = c.volumeMounts.items
	}
}

// item is satisfied by pointers to the generated Kubernetes API types.
type item[T any] interface {
	*T
	DeepCopyInto(*T)
}

// listKind is what the lists of one kind (volumes, env, envFrom or
// volumeMounts) have in common.
type listKind[T any, P item[T]] struct {
	field string
	// keyCount is how many keys each item has (itemKeys.n), to size key
	// indexes. A wrong count would cost an allocation (append grows a full
	// window), not a wrong result.
	keyCount int
	keys     func(P) itemKeys
	equal    func(a, b P) bool
	copy     func(a *arena, dst *T, src P)
	// block is the arena's block the kind's lists are allocated from.
	block func(a *arena) *block[T]
}

var (
	volumeList = listKind[corev1.Volume, *corev1.Volume]{
		field: fieldVolumes, keyCount: 1, keys: volumeKeys, equal: equalVolumes,
		copy: deepCopyInto[corev1.Volume], block: func(a *arena) *block[corev1.Volume] { return &a.volumes },
	}
	envList = listKind[corev1.EnvVar, *corev1.EnvVar]{
		field: fieldEnv, keyCount: 1, keys: envKeys, equal: equalEnv,
		copy: deepCopyInto[corev1.EnvVar], block: func(a *arena) *block[corev1.EnvVar] { return &a.env },
	}
	envFromList = listKind[corev1.EnvFromSource, *corev1.EnvFromSource]{
		field: fieldEnvFrom, keyCount: 1, keys: envFromKeys, equal: equalEnvFrom,
		copy: (*arena).copyEnvFrom, block: func(a *arena) *block[corev1.EnvFromSource] { return &a.envFrom },
	}
	volumeMountList = listKind[corev1.VolumeMount, *corev1.VolumeMount]{
		field: fieldVolumeMounts, keyCount: 2, keys: volumeMountKeys, equal: equalVolumeMounts,
		copy: deepCopyInto[corev1.VolumeMount], block: func(a *arena) *block[corev1.VolumeMount] { return &a.volumeMounts },
	}
)

// merger is one list (the pod's volumes, or a container's env, envFrom or
// volumeMounts) with an index of the keys of everything it holds.
type merger[T any, P item[T]] struct {
	kind  *listKind[T, P]
	items []T
	// spare is how many items may still be appended: the room to make when
	// the first one is, so that items is allocated at most once.
	spare int
	// block is where a longer items slice comes from.
	block *block[T]
	index keyIndex

	// leader, when set, is the list this one follows (see follow): it has
	// no index and repeats the leader's outcomes, repeated of them so far.
	leader   *merger[T, P]
	repeated int
	// recording is set on a leader: it records the outcome of every add.
	recording bool
	outcomes  []outcome
}

// outcome is what merger.add did with one item.
type outcome struct {
	conflicts []string
	added     bool
}

// init starts the list with items, of which it takes ownership (they are the
// pod's copy); up to spare items may be added. A list that can receive
// nothing, or that follows another, is not indexed.
func (m *merger[T, P]) init(kind *listKind[T, P], items []T, spare int, a *arena) {
	m.kind, m.items, m.spare, m.block = kind, items, spare, kind.block(a)
	if m.recording {
		m.outcomes = a.outcomes.window(spare)
	}
	if spare == 0 || m.leader != nil {
		return
	}
	m.index.entries = a.entries.window((len(items) + spare) * kind.keyCount)
	for i := range m.items {
		k := kind.keys(P(&m.items[i]))
		for j, id := range k.ids[:k.n] {
			m.index.add(id.hash(), i, j)
		}
	}
}

// add appends a copy of item unless an identical item is already present. It
// returns the labels of the keys item shares with existing, different items;
// then item is not added.
func (m *merger[T, P]) add(a *arena, item P) []string {
	if m.leader != nil {
		o := m.leader.outcomes[m.repeated]
		m.repeated++
		if o.added {
			m.push(a, item)
		}
		return o.conflicts
	}
	conflicts, added := m.merge(a, item)
	if m.recording {
		m.outcomes = append(m.outcomes, outcome{conflicts: conflicts, added: added})
	}
	return conflicts
}

// merge is add for a list with an index; it also says whether it added item.
func (m *merger[T, P]) merge(a *arena, item P) (conflicts []string, added bool) {
	k := m.kind.keys(item)
	var (
		hashes [2]uint64
		shared [2]bool
	)
	for j, id := range k.ids[:k.n] {
		hashes[j] = id.hash()
		for e := m.index.latest(hashes[j]); e >= 0; e = m.index.previous(e) {
			entry := &m.index.entries[e]
			existing := P(&m.items[entry.item])
			if m.kind.keys(existing).ids[entry.which] != id {
				continue // another key with the same hash
			}
			shared[j] = true
			if m.kind.equal(existing, item) {
				return nil, false
			}
		}
	}
	for j, id := range k.ids[:k.n] {
		if shared[j] {
			conflicts = append(conflicts, keyLabel(m.kind.field, id))
		}
	}
	if len(conflicts) > 0 {
		return conflicts, false
	}
	m.push(a, item)
	for j := range k.n {
		m.index.add(hashes[j], len(m.items)-1, j)
	}
	return nil, true
}

// push appends a deep copy of item, making room for every item that may
// follow when there is none.
func (m *merger[T, P]) push(a *arena, item P) {
	if len(m.items) == cap(m.items) {
		m.items = append(m.block.window(len(m.items)+max(m.spare, 1)), m.items...)
	}
	m.items = m.items[:len(m.items)+1]
	m.kind.copy(a, &m.items[len(m.items)-1], item)
	m.spare--
}

// deepCopyInto copies with the generated DeepCopyInto.
func deepCopyInto[T any, P item[T]](_ *arena, dst *T, src P) {
	src.DeepCopyInto(dst)
}

// block hands out slices of one array, allocated on first use, so that the
// lists of all containers cost one allocation. Each slice is capped at its
// own length (s[:0:n]): appending to one list later reallocates it rather
// than overwriting its neighbour, and no two lists share an element.
type block[T any] struct {
	free []T
	// size is what the first allocation makes room for: every slice that
	// may be asked for.
	size int
}

// window returns an empty slice with room for n items.
func (b *block[T]) window(n int) []T {
	if len(b.free) < n {
		b.free = make([]T, max(b.size, n))
		b.size = 0 // sized wrongly: from now on, one allocation per slice
	}
	w := b.free[:0:n]
	b.free = b.free[n:]
	return w
}

// arena allocates, once per Apply, what the lists of the merged pod are made
// of: one block per kind of list and one for every list's key index, and the
// configMapRef and secretRef parts of envFrom items, which DeepCopyInto would
// allocate one by one for every container. The copies are still deep: no two
// items share a part, and none shares anything with a preset; they only sit
// side by side in memory.
type arena struct {
	entries       block[indexEntry]
	outcomes      block[outcome]
	volumes       block[corev1.Volume]
	env           block[corev1.EnvVar]
	envFrom       block[corev1.EnvFromSource]
	volumeMounts  block[corev1.VolumeMount]
	configMapRefs block[corev1.ConfigMapEnvSource]
	secretRefs    block[corev1.SecretEnvSource]
}

// reserve sizes every block for the most the presets can add to the pod of
// pm, whose leaders and followers are chosen.
func (a *arena) reserve(pm *podMerger, presets []prepared, n itemCounts) {
	reserveList(a, &pm.volumes, len(pm.pod.Spec.Volumes), n.volumes, &volumeList)
	for ci := range pm.containers {
		m := &pm.containers[ci]
		reserveList(a, &m.env, len(m.container.Env), n.env, &envList)
		reserveList(a, &m.envFrom, len(m.container.EnvFrom), n.envFrom, &envFromList)
		reserveList(a, &m.volumeMounts, len(m.container.VolumeMounts), n.volumeMounts, &volumeMountList)
	}
	for _, p := range presets {
		for i := range p.preset.Spec.EnvFrom {
			if p.preset.Spec.EnvFrom[i].ConfigMapRef != nil {
				a.configMapRefs.size += len(pm.containers)
			}
			if p.preset.Spec.EnvFrom[i].SecretRef != nil {
				a.secretRefs.size += len(pm.containers)
			}
		}
	}
}

// reserveList makes room for a list m of the given kind that starts with
// items and may receive spare more: the items, the key index unless m
// follows another list, the outcomes if others follow m.
func reserveList[T any, P item[T]](a *arena, m *merger[T, P], items, spare int, kind *listKind[T, P]) {
	if spare == 0 {
		return
	}
	kind.block(a).grow(items + spare)
	if m.leader == nil {
		a.entries.size += (items + spare) * kind.keyCount
	}
	if m.recording {
		a.outcomes.size += spare
	}
}

// grow makes the first allocation room for n more items.
func (b *block[T]) grow(n int) { b.size += n }

// one returns a zero item of its own.
func (b *block[T]) one() *T { return &b.window(1)[:1][0] }

// copyEnvFrom is EnvFromSource.DeepCopyInto with the references taken from
// the arena.
func (a *arena) copyEnvFrom(dst, src *corev1.EnvFromSource) {
	*dst = *src
	if src.ConfigMapRef != nil {
		dst.ConfigMapRef = a.configMapRefs.one()
		src.ConfigMapRef.DeepCopyInto(dst.ConfigMapRef)
	}
	if src.SecretRef != nil {
		dst.SecretRef = a.secretRefs.one()
		src.SecretRef.DeepCopyInto(dst.SecretRef)
	}
}
