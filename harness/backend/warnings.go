package backend

import (
	"context"
	"sync"
)

// Warnings collects the warnings the API server returns for the requests made
// with a context from WithWarnings.
type Warnings struct {
	mu   sync.Mutex
	list []string
}

type warningsKey struct{}

// WithWarnings returns a context whose requests' warnings are added to w.
func WithWarnings(ctx context.Context, w *Warnings) context.Context {
	return context.WithValue(ctx, warningsKey{}, w)
}

// List returns the warnings collected so far.
func (w *Warnings) List() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}

// Add appends warnings.
func (w *Warnings) Add(text ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text...)
}

// ContextWarnings is the client's warning handler: it files each warning
// with the Warnings of the request's context, if any.
type ContextWarnings struct{}

func (ContextWarnings) HandleWarningHeaderWithContext(ctx context.Context, code int, _ string, message string) {
	if code != 299 || message == "" {
		return
	}
	if w, ok := ctx.Value(warningsKey{}).(*Warnings); ok {
		w.Add(message)
	}
}
