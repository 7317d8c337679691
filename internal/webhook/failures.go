package webhook

import (
	"fmt"
	"slices"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
)

// MaxFailures bounds the failed requests Failures keeps per namespace,
// whatever an implementation does: one that fails every request of a long
// run keeps memory flat.
const MaxFailures = 200

// Failures are the admission requests that got no valid answer (R5.3),
// as sentences, by the request's namespace. The zero value is ready; it is
// safe for concurrent use.
type Failures struct{ by byNamespace[string] }

// Note records a failed request, past MaxFailures in its namespace not.
func (f *Failures) Note(namespace, sentence string) { f.by.note(namespace, sentence, MaxFailures) }

// In are the failed requests of a namespace, in the order noted.
func (f *Failures) In(namespace string) []string { return f.by.in(namespace) }

// byNamespace keeps what is noted of admission requests by their
// namespace, at most a bound of it per namespace, whatever an
// implementation does. The zero value is ready; it is safe for concurrent
// use.
type byNamespace[T any] struct {
	mu sync.Mutex
	by map[string][]T
}

func (b *byNamespace[T]) note(namespace string, v T, limit int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.by == nil {
		b.by = map[string][]T{}
	}
	if len(b.by[namespace]) < limit {
		b.by[namespace] = append(b.by[namespace], v)
	}
}

func (b *byNamespace[T]) in(namespace string) []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.by[namespace])
}

// Describe names a request in a failure's sentence: `CREATE of Pod "web"`,
// `CREATE of a Pod (dry run)`.
func Describe(operation, kind, name string, dryRun bool) string {
	what := fmt.Sprintf("%s of %s %q", operation, kind, name)
	if name == "" {
		what = fmt.Sprintf("%s of a %s", operation, kind)
	}
	if dryRun {
		what += " (dry run)"
	}
	return what
}

// describeRequest is Describe for an AdmissionRequest.
func describeRequest(req *admissionv1.AdmissionRequest) string {
	return Describe(string(req.Operation), req.Kind.Kind, req.Name, req.DryRun != nil && *req.DryRun)
}
