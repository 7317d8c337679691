package app

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// libraryLog receives what the Kubernetes libraries log through klog
// (client-go's "Unexpected error when reading response body" for a request
// a run cancelled on purpose, a policy plug-in's progress): never the
// console, the run's report folder (libraries.log) while a run with
// --report-dir keeps one, nowhere otherwise. Main installs it as klog's
// logger; a library never does.
var libraryLog = &lineSink{}

// lineSink writes log lines to the file it is kept in, if any.
type lineSink struct {
	mu   sync.Mutex
	file *os.File
}

// logger is a logr.Logger whose lines go to the sink.
func (s *lineSink) logger() logr.Logger {
	return funcr.New(s.write, funcr.Options{})
}

func (s *lineSink) write(prefix, args string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return
	}
	if prefix != "" {
		prefix += " "
	}
	fmt.Fprintf(s.file, "%s %s%s\n", time.Now().UTC().Format(time.RFC3339Nano), prefix, args)
}

// keepIn sends the lines to path from now on, until the returned function
// is called: it closes the file, and removes it when no line came.
func (s *lineSink) keepIn(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("the libraries' log: %w", err)
	}
	s.mu.Lock()
	s.file = f
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.file == f {
			s.file = nil
		}
		info, err := f.Stat()
		_ = f.Close()
		if err == nil && info.Size() == 0 {
			_ = os.Remove(path)
		}
	}, nil
}
