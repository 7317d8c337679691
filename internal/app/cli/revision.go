package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"slices"
	"strings"
)

// A revision argument names manifests as git show does, REV:PATH: the file
// or folder PATH (from the repository's root, or ./PATH from the current
// directory) as it stood at the git revision REV, read with the git of the
// host from the repository holding the current directory. It lets a CI job
// compare two revisions without checking either out.

// splitRevision splits a REV:PATH argument; ok is false for an argument that
// cannot be one (no colon, or a drive-letter-like "C:").
func splitRevision(arg string) (rev, p string, ok bool) {
	rev, p, ok = strings.Cut(arg, ":")
	if !ok || rev == "" || len(rev) == 1 && p != "" && (p[0] == '/' || p[0] == '\\') {
		return "", "", false
	}
	return rev, p, true
}

// revisionFiles lists the manifest files that a REV:PATH argument names: the
// file itself, or the folder's .yaml, .yml and .json files (not its
// subfolders), in name order, as -f reads a folder.
func revisionFiles(arg string) ([]string, error) {
	rev, p, _ := splitRevision(arg)
	if _, err := git("rev-parse", "--verify", "--quiet", rev+"^{commit}"); errors.As(err, new(*gitFailed)) {
		return nil, fmt.Errorf("%s: no such file, and %q is no git revision here", arg, rev)
	} else if err != nil {
		return nil, fmt.Errorf("%s: no such file, and git cannot say whether %q is a revision: %w", arg, rev, err)
	}
	kind, err := git("cat-file", "-t", arg)
	if err != nil {
		return nil, fmt.Errorf("%s: no %s in the git revision %s: %w", arg, orRoot(p), rev, err)
	}
	switch strings.TrimSpace(string(kind)) {
	case "blob":
		return []string{arg}, nil
	case "tree":
	default:
		return nil, fmt.Errorf("%s: %s is neither a file nor a folder in the git revision %s", arg, orRoot(p), rev)
	}
	out, err := git("ls-tree", "--full-tree", "-z", arg)
	if err != nil {
		return nil, fmt.Errorf("unable to list %s: %w", arg, err)
	}
	var files []string
	for _, entry := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		// <mode> SP <type> SP <object> TAB <name>
		meta, name, ok := strings.Cut(entry, "\t")
		if !ok || !strings.Contains(meta, " blob ") {
			continue
		}
		if slices.Contains([]string{".yaml", ".yml", ".json"}, path.Ext(name)) {
			files = append(files, rev+":"+joinRevisionPath(p, name))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no .yaml, .yml or .json file in the folder %s", arg)
	}
	return files, nil
}

// readRevisionFile reads one file named REV:PATH.
func readRevisionFile(arg string) ([]byte, error) {
	b, err := git("cat-file", "blob", arg)
	if err != nil {
		return nil, fmt.Errorf("unable to read the manifest %s: %w", arg, err)
	}
	return b, nil
}

func joinRevisionPath(folder, name string) string {
	if folder == "" {
		return name
	}
	return strings.TrimSuffix(folder, "/") + "/" + name
}

func orRoot(p string) string {
	if p == "" {
		return "root folder"
	}
	return p
}

// gitFailed is the error of a git that ran and failed (not of a git that
// could not run): what it said.
type gitFailed struct{ said string }

func (e *gitFailed) Error() string { return e.said }

// git runs git with args in the current directory; its error carries what
// git said, and is a *gitFailed when git ran.
func git(args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("git", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = fmt.Sprintf("exit status %d", exit.ExitCode())
		}
		return nil, &gitFailed{said: fmt.Sprintf("git %s: %s", args[0], msg)}
	}
	return stdout.Bytes(), nil
}
