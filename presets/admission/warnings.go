package admission

import "sync"

// Warnings collects the admission warnings a plug-in adds, for callers that
// run it outside an API server (a webhook, an offline preview): put it in the
// context with k8s.io/apiserver/pkg/warning.WithWarningRecorder, then read
// List. It is safe for concurrent use.
type Warnings struct {
	mu   sync.Mutex
	text []string
}

// AddWarning implements warning.Recorder.
func (w *Warnings) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

// List returns the warnings added so far, in order.
func (w *Warnings) List() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.text...)
}
