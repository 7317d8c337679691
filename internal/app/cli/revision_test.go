package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

const revisionPreset = `apiVersion: settings.k8s.io/v1alpha1
kind: PodPreset
metadata: {name: %s}
spec:
  selector: {}
  env: [{name: A, value: "1"}]
`

// TestReadManifestsAtRevision: REV:PATH reads a file or a folder as it stood
// at a git revision, from the repository's root or (./PATH) from the
// current directory; a file of that name here wins; what git cannot find
// is an error that says which part is missing.
func TestReadManifestsAtRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on this host: REV:PATH is read with git")
	}
	repo := t.TempDir()
	write := func(name, presetName string) {
		t.Helper()
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(revisionPreset, "%s", presetName)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write("presets/a.yaml", "first")
	write("presets/b.yml", "second")
	write("presets/notes.txt", "ignored")
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-qm", "base")
	write("presets/a.yaml", "changed")
	git("commit", "-qam", "change")
	t.Chdir(filepath.Join(repo, "presets"))

	tests := []struct {
		name    string
		arg     string
		want    []string // preset names, in order
		wantErr string
	}{
		{name: "a folder from the root", arg: "main~1:presets", want: []string{"first", "second"}},
		{name: "a folder from here", arg: "main~1:./", want: []string{"first", "second"}},
		{name: "a file at another revision", arg: "main:presets/a.yaml", want: []string{"changed"}},
		{name: "a file from here", arg: "HEAD~1:./a.yaml", want: []string{"first"}},
		{name: "a file here wins", arg: "a.yaml", want: []string{"changed"}},
		{name: "no such revision", arg: "nope:presets", wantErr: `nope:presets: no such file, and "nope" is no git revision here`},
		{name: "no such path", arg: "main:elsewhere", wantErr: "main:elsewhere: no elsewhere in the git revision main"},
		{name: "a folder with no manifest", arg: "main:", wantErr: "no .yaml, .yml or .json file in the folder main:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := ReadManifests([]string{tt.arg}, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.Object.(*v1alpha1.PodPreset).Name)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("presets %v, want %v", got, tt.want)
			}
		})
	}
}
