package watch

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
)

const feature = `Feature: watched
  Scenario: a pod as submitted
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: p
        labels: {app: x}
      spec:
        containers:
          - name: c
            image: i
      """
    Then the pod "p" should have the annotations:
      | key | value |
`

// TestLoop: the first run reports every scenario; saving a file runs its
// scenarios again and prints only what changed; "r" runs everything and
// says when nothing changed.
func TestLoop(t *testing.T) {
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	dir := t.TempDir()
	file := filepath.Join(dir, "watched.feature")
	write := func(s string) {
		t.Helper()
		// Written beside it and renamed, as editors save: the poller must
		// never read a half-written file (under load it once saw it empty).
		tmp := file + ".tmp"
		if err := os.WriteFile(tmp, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		// Some file systems keep a modification time to the second.
		later := time.Now().Add(time.Duration(len(s)) * time.Millisecond)
		if err := os.Chtimes(tmp, later, later); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
	}
	write(feature)

	var mu sync.Mutex
	var out bytes.Buffer
	reports := make(chan string, 10)
	keysR, keysW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Loop(ctx, w, Options{Paths: []string{dir}, Out: writerFunc(func(b []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return out.Write(b)
		}), Keys: keysR, Poll: 10 * time.Millisecond, Reported: func() {
			mu.Lock()
			defer mu.Unlock()
			reports <- out.String()
			out.Reset()
		}})
	}()
	next := func() string {
		t.Helper()
		select {
		case r := <-reports:
			return r
		case <-time.After(20 * time.Second):
			t.Fatal("no report within 20s")
			return ""
		}
	}
	steps := []struct {
		name string
		do   func()
		want []string
	}{
		{"the first run reports every scenario", func() {}, []string{"all features: 1 scenarios", "passed", "a pod as submitted"}},
		{"a save that breaks it", func() { write(feature + "      | app | y |\n") }, []string{"watched.feature: 1 scenarios", "now failed", "a pod as submitted"}},
		{"a save that mends it", func() { write(feature) }, []string{"now passed"}},
		{"r runs everything, nothing changed", func() { io.WriteString(keysW, "r\n") }, []string{"all features: 1 scenarios", "nothing changed"}},
	}
	for _, s := range steps {
		s.do()
		got := next()
		for _, want := range s.want {
			if !strings.Contains(got, want) {
				t.Errorf("%s: report lacks %q:\n%s", s.name, want, got)
			}
		}
	}
	cancel()
	keysW.Close()
	if err := <-done; err != nil {
		t.Errorf("Loop: %v", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
