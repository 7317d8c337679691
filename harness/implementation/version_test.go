package implementation

import "testing"

func TestNotOlder(t *testing.T) {
	tests := []struct {
		name      string
		got, want string
		ok        bool
	}{
		{name: "equal", got: "42", want: "42", ok: true},
		{name: "newer", got: "43", want: "42", ok: true},
		{name: "older", got: "41", want: "42", ok: false},
		{name: "numeric, not lexical", got: "100", want: "99", ok: true},
		{name: "numeric, not lexical, older", got: "99", want: "100", ok: false},
		{name: "leading zeros compare as numbers", got: "0042", want: "42", ok: true},
		{name: "both empty", got: "", want: "", ok: true},
		{name: "empty got", got: "", want: "1", ok: false},
		{name: "empty want", got: "1", want: "", ok: false},
		{name: "opaque equal", got: "abc", want: "abc", ok: true},
		{name: "opaque differ", got: "abd", want: "abc", ok: false},
		{name: "opaque got", got: "x9", want: "1", ok: false},
		{name: "opaque want", got: "9", want: "x1", ok: false},
		{name: "negative is opaque", got: "5", want: "-1", ok: false},
		{name: "max uint64", got: "18446744073709551615", want: "18446744073709551614", ok: true},
		{name: "overflow is opaque", got: "18446744073709551616", want: "1", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NotOlder(tc.got, tc.want); got != tc.ok {
				t.Errorf("NotOlder(%q, %q) = %v, want %v", tc.got, tc.want, got, tc.ok)
			}
		})
	}
}
