package external

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"presetsim.dev/presetsim/internal/tailbuf"
)

// TestOutputBounded writes 1 GiB, as a webhook printing as fast as it can
// would (one endless line, then a flood of short lines), through the
// writers a process's output goes to: the memory they hold stays small,
// the log file stops at its limit with a note, and the tail is the last
// lines.
func TestOutputBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 GiB through the output writers; skipped with -short")
	}
	path := filepath.Join(t.TempDir(), "webhook.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 1 << 20
	tail, log := &tailbuf.Buffer{}, &cappedLog{w: f, limit: limit}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	endless := bytes.Repeat([]byte("y"), 64<<10)
	short := bytes.Repeat([]byte("short line\n"), (64<<10)/11)
	written := 0
	for written < 1<<30 {
		chunk := endless
		if written >= 1<<29 {
			chunk = short
		}
		for _, w := range []interface {
			Write([]byte) (int, error)
		}{tail, log} {
			if _, err := w.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		written += len(chunk)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 8<<20 {
		t.Errorf("the heap grew by %d MiB over 1 GiB of output, want a few KiB", grew>>20)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > limit+512 || !strings.Contains(string(data), "webhook.log is cut here") || !strings.Contains(string(data), "bytes the webhook wrote after the cut were not kept") {
		t.Errorf("the log file has %d bytes (limit %d); its notes: %q", len(data), limit, string(data[max(0, len(data)-300):]))
	}
	lines := strings.Split(tail.Tail(), "\n")
	if len(lines) != tailbuf.Lines || lines[len(lines)-1] != "short line" {
		t.Errorf("tail: %d lines, the last %q; want %d, \"short line\"", len(lines), lines[len(lines)-1], tailbuf.Lines)
	}
}
