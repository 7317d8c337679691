package external

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTailBuffer: the last lines, each cut at maxLineBytes with a note,
// the unfinished one included, however the writes split them.
func TestTailBuffer(t *testing.T) {
	long := strings.Repeat("x", maxLineBytes+10)
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"two lines", []string{"a\nb\n"}, "a\nb"},
		{"a line split across writes", []string{"he", "llo\nwor", "ld\n"}, "hello\nworld"},
		{"an unfinished last line", []string{"a\nb"}, "a\nb"},
		{"a long line is cut", []string{long + "\n"}, strings.Repeat("x", maxLineBytes) + " … [10 more bytes of this line not kept]"},
		{"the last 20 of 25 lines", []string{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n"},
			"6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b tailBuffer
			for _, w := range tc.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := b.tail(); got != tc.want {
				t.Errorf("tail() = %q, want %q", got, tc.want)
			}
		})
	}
}

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
	tail, log := &tailBuffer{}, &cappedLog{w: f, limit: limit}
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
	lines := strings.Split(tail.tail(), "\n")
	if len(lines) != tailLines || lines[len(lines)-1] != "short line" {
		t.Errorf("tail: %d lines, the last %q; want %d, \"short line\"", len(lines), lines[len(lines)-1], tailLines)
	}
}
