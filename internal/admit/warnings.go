package admit

import "sync"

// warningList collects the admission warnings a plug-in adds during Invoke,
// as the warning.Recorder in its context. It is safe for concurrent use.
type warningList struct {
	mu   sync.Mutex
	text []string
}

// AddWarning implements warning.Recorder.
func (w *warningList) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

// List returns the warnings added so far, in order.
func (w *warningList) List() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.text...)
}
