package tailbuf

import (
	"strings"
	"testing"
)

// TestBuffer: the last lines, each cut at MaxLineBytes with a note,
// the unfinished one included, however the writes split them.
func TestBuffer(t *testing.T) {
	long := strings.Repeat("x", MaxLineBytes+10)
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"two lines", []string{"a\nb\n"}, "a\nb"},
		{"a line split across writes", []string{"he", "llo\nwor", "ld\n"}, "hello\nworld"},
		{"an unfinished last line", []string{"a\nb"}, "a\nb"},
		{"a long line is cut", []string{long + "\n"}, strings.Repeat("x", MaxLineBytes) + " … [10 more bytes of this line not kept]"},
		{"the last 20 of 25 lines", []string{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n"},
			"6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b Buffer
			for _, w := range tc.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := b.Tail(); got != tc.want {
				t.Errorf("Tail() = %q, want %q", got, tc.want)
			}
		})
	}
}
