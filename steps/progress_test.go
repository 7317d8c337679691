package steps

import (
	"strings"
	"testing"
)

func TestRows(t *testing.T) {
	row := func(mark string) string { return strings.Repeat(mark, stepsPerRow) }
	cases := []struct {
		name    string
		inPlace bool
		marks   string
		want    string
	}{
		{"a short run ends its row", false, "..-", "..-" + strings.Repeat(" ", stepsPerRow-3) + " 3\n"},
		{"rows, one under another", false, row(".") + "F",
			row(".") + " 70\nF" + strings.Repeat(" ", stepsPerRow-1) + " 71\n"},
		{"a full last row ends once", false, row("."), row(".") + " 70\n"},
		{"on a terminal, a passed row is written over", true, row(".") + row("-") + ".",
			row(".") + " 70" + eraseRow + row("-") + " 140" + eraseRow + "." + strings.Repeat(" ", stepsPerRow-1) + " 141\n"},
		{"on a terminal, a row with a failure stays", true, row(".")[1:] + "F" + ".",
			row(".")[1:] + "F 70\n." + strings.Repeat(" ", stepsPerRow-1) + " 71\n"},
		{"on a terminal, a full last row ends with a newline", true, row("."), row(".") + " 70\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			r := &rows{out: &b, inPlace: c.inPlace}
			for _, m := range c.marks { // a mark at a time, as formatters write
				if _, err := r.Write([]byte(string(m))); err != nil {
					t.Fatal(err)
				}
			}
			r.end()
			if got := b.String(); got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}
