package merge

import (
	"hash/maphash"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// keyID identifies an item by one of its keys (R3.5) without building a
// string: kind tells the keys of one list apart (a volume mount's name from
// its path), a, b and c hold the key's parts.
type keyID struct {
	kind    uint8
	a, b, c string
}

// keySeed seeds the hashes of keys; like map hashes, they differ from one
// process to the next.
var keySeed = maphash.MakeSeed()

// hash is a hash of the whole key. Equal keys have equal hashes; keyIndex
// compares hashes first and whole keys only when the hashes are equal.
func (id keyID) hash() uint64 {
	h := maphash.String(keySeed, id.a) + uint64(id.kind)
	if id.b != "" {
		h = h*31 + maphash.String(keySeed, id.b)
	}
	if id.c != "" {
		h = h*37 + maphash.String(keySeed, id.c)
	}
	return h
}

// itemKeys holds an item's keys: one, or two for a volume mount.
type itemKeys struct {
	ids [2]keyID
	n   int
}

func oneKey(id keyID) itemKeys { return itemKeys{ids: [2]keyID{id}, n: 1} }

func envKeys(e *corev1.EnvVar) itemKeys { return oneKey(keyID{a: e.Name}) }

func volumeKeys(v *corev1.Volume) itemKeys { return oneKey(keyID{a: v.Name}) }

const (
	mountByName uint8 = iota + 1
	mountByPath
)

func volumeMountKeys(m *corev1.VolumeMount) itemKeys {
	return itemKeys{ids: [2]keyID{{kind: mountByName, a: m.Name}, {kind: mountByPath, a: m.MountPath}}, n: 2}
}

func envFromKeys(e *corev1.EnvFromSource) itemKeys {
	id := keyID{a: e.Prefix}
	if e.ConfigMapRef != nil {
		id.b = e.ConfigMapRef.Name
	}
	if e.SecretRef != nil {
		id.c = e.SecretRef.Name
	}
	return oneKey(id)
}

// keyLabel is how a key is shown in Conflict.Key; built only for conflicts.
func keyLabel(field string, id keyID) string {
	switch field {
	case fieldVolumeMounts:
		if id.kind == mountByName {
			return mountNameKey + id.a
		}
		return mountPathKey + id.a
	case fieldEnvFrom:
		var label []string
		if id.a != "" {
			label = append(label, "prefix "+id.a)
		}
		if id.b != "" {
			label = append(label, "configMapRef "+id.b)
		}
		if id.c != "" {
			label = append(label, "secretRef "+id.c)
		}
		if len(label) == 0 {
			return "without source"
		}
		return strings.Join(label, " ")
	}
	return id.a
}
