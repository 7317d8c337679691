package implementation

import "strconv"

// NotOlder reports whether resource version got is at least want. Resource
// versions are opaque in general; on etcd they are revisions, and when either
// does not parse as one only equality counts.
func NotOlder(got, want string) bool {
	if got == want {
		return true
	}
	g, err1 := strconv.ParseUint(got, 10, 64)
	w, err2 := strconv.ParseUint(want, 10, 64)
	return err1 == nil && err2 == nil && g >= w
}
