package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLibraryLog: the libraries' lines go to the file the sink is kept
// in, errors too, and nowhere once it is closed; a file no line came to
// is removed.
func TestLibraryLog(t *testing.T) {
	tests := []struct {
		name  string
		log   func(s *lineSink)
		lines []string // what the file holds; none: no file is left
	}{
		{name: "no line", log: func(*lineSink) {}},
		{
			name: "info and error",
			log: func(s *lineSink) {
				s.logger().Info("refreshing policies")
				s.logger().Error(errors.New("unexpected EOF"), "Unexpected error when reading response body")
			},
			lines: []string{`"msg"="refreshing policies"`, `"msg"="Unexpected error when reading response body" "error"="unexpected EOF"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &lineSink{}
			s.logger().Info("before the file is kept")
			path := filepath.Join(t.TempDir(), "libraries.log")
			closeLog, err := s.keepIn(path)
			if err != nil {
				t.Fatal(err)
			}
			tt.log(s)
			closeLog()
			s.logger().Info("after the file is closed")
			data, err := os.ReadFile(path)
			if len(tt.lines) == 0 {
				if !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("a log no line came to is left: %v, %q", err, data)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(got) != len(tt.lines) {
				t.Fatalf("the log holds %d lines, want %d:\n%s", len(got), len(tt.lines), data)
			}
			for i, want := range tt.lines {
				if !strings.Contains(got[i], want) {
					t.Errorf("line %d: %q, want it to hold %q", i+1, got[i], want)
				}
			}
		})
	}
}
