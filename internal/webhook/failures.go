package webhook

import (
	"fmt"
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
type Failures struct {
	mu sync.Mutex
	by map[string][]string
}

// Note records a failed request, past MaxFailures in its namespace not.
func (f *Failures) Note(namespace, sentence string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.by == nil {
		f.by = map[string][]string{}
	}
	if len(f.by[namespace]) < MaxFailures {
		f.by[namespace] = append(f.by[namespace], sentence)
	}
}

// In are the failed requests of a namespace, in the order noted.
func (f *Failures) In(namespace string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.by[namespace]...)
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
