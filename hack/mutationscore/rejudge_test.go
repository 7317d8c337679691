package main

import (
	"strings"
	"testing"
)

func TestMutate(t *testing.T) {
	src := "package p\n\nfunc f(a, b int) bool {\n\tswitch {\n\tcase a == b:\n\t\treturn a-b < 0 && -a > b\n\t}\n\treturn false\n}\n"
	for _, tc := range []struct {
		name string
		m    mutation
		want string // the changed line
		err  bool
	}{
		{"negation of a case expression", mutation{Type: "CONDITIONALS_NEGATION", Line: 5, Column: 9}, "\tcase a != b:", false},
		{"arithmetic", mutation{Type: "ARITHMETIC_BASE", Line: 6, Column: 11}, "\t\treturn a+b < 0 && -a > b", false},
		{"boundary", mutation{Type: "CONDITIONALS_BOUNDARY", Line: 6, Column: 14}, "\t\treturn a-b <= 0 && -a > b", false},
		{"logical", mutation{Type: "INVERT_LOGICAL", Line: 6, Column: 18}, "\t\treturn a-b < 0 || -a > b", false},
		{"negative", mutation{Type: "INVERT_NEGATIVES", Line: 6, Column: 21}, "\t\treturn a-b < 0 && +a > b", false},
		{"no operator there", mutation{Type: "ARITHMETIC_BASE", Line: 6, Column: 12}, "", true},
		{"an operator the type does not change", mutation{Type: "ARITHMETIC_BASE", Line: 5, Column: 9}, "", true},
		{"an unknown type", mutation{Type: "REMOVE_EVERYTHING", Line: 5, Column: 9}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mutate([]byte(src), tc.m)
			if tc.err {
				if err == nil {
					t.Fatalf("no error; got\n%s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(got), "\n")
			if lines[tc.m.Line-1] != tc.want {
				t.Errorf("line %d is %q, want %q", tc.m.Line, lines[tc.m.Line-1], tc.want)
			}
		})
	}
}
