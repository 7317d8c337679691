package external

import (
	"slices"
	"testing"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		env, args []string
		wantErr   bool
	}{
		{"plain words", "webhook --port 9443", nil, []string{"webhook", "--port", "9443"}, false},
		{"extra blanks", "  webhook\t--port   9443 ", nil, []string{"webhook", "--port", "9443"}, false},
		{"environment prefixes", "LOG=debug GOTRACEBACK=all ./webhook -v", []string{"LOG=debug", "GOTRACEBACK=all"}, []string{"./webhook", "-v"}, false},
		{"an assignment after the program is an argument", "webhook A=1", nil, []string{"webhook", "A=1"}, false},
		{"single quotes keep everything", `sh -c 'exec webhook --kubeconfig {kubeconfig} "$X"'`, nil, []string{"sh", "-c", `exec webhook --kubeconfig {kubeconfig} "$X"`}, false},
		{"double quotes keep blanks and unescape", `webhook --name "my \"hook\" \$HOME \n"`, nil, []string{"webhook", "--name", `my "hook" $HOME \n`}, false},
		{"backslash outside quotes", `webhook my\ dir`, nil, []string{"webhook", "my dir"}, false},
		{"empty quoted word", `webhook ""`, nil, []string{"webhook", ""}, false},
		{"quoted value of an assignment", `MSG='a b' webhook`, []string{"MSG=a b"}, []string{"webhook"}, false},
		{"unterminated quote", `webhook "oops`, nil, nil, true},
		{"lone backslash", `webhook \`, nil, nil, true},
		{"only assignments", `A=1 B=2`, nil, nil, true},
		{"nothing", "   ", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, args, err := ParseCommand(tt.line)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseCommand(%q) error %v, want error %v", tt.line, err, tt.wantErr)
			}
			if !slices.Equal(env, tt.env) || !slices.Equal(args, tt.args) {
				t.Errorf("ParseCommand(%q) = %q, %q; want %q, %q", tt.line, env, args, tt.env, tt.args)
			}
		})
	}
}
