package steps

import (
	"io/fs"
	"slices"
	"strings"

	"presetsim.dev/presetsim/internal/featureloc"
)

// slowSteps are the phrases of steps that wait about a second or more
// with little for the machine to do (a settle window, a rollout, a Job),
// and their weights. Steps that wait for controllers to create and start
// pods are not among them: they keep the machine busy, and starting them
// first measured slower (docs/performance.md).
var slowSteps = []struct {
	phrase string
	weight int
}{
	{"should be restarted for", 3},
	{"I trigger a rollout of", 3},
	{"should stay as submitted", 3},
	{"should have no events", 3},
	{"should complete", 2},
	{"should have been created in order", 2},
	{"I scale the", 2},
}

// slowFirst returns paths with each folder replaced by its feature files,
// those with the most slow steps first (then by name), so that the longest
// scenarios start first and the others fill the time they wait: scenarios
// start in the order of their files, and a run lasts at least as long as
// its last long scenario started plus its duration. Files with a @serial
// tag come last: a @serial scenario waits until every scenario started
// before it has ended, the long ones included (a second of nothing else
// running, measured), and at the end of the run only short ones are left
// to wait for. A file path (with or without :line) stays where it is. fsys
// holds the files; the operating system's when nil.
func slowFirst(fsys fs.FS, paths []string) []string {
	var out []string
	for _, p := range paths {
		files, ok := featureFiles(fsys, p)
		if !ok {
			out = append(out, p)
			continue
		}
		score := map[string]int{}
		for _, f := range files {
			score[f] = slowness(fsys, f)
		}
		slices.SortStableFunc(files, func(a, b string) int {
			if serial, other := score[a] == serialScore, score[b] == serialScore; serial != other {
				if serial {
					return 1
				}
				return -1
			}
			if score[a] != score[b] {
				return score[b] - score[a]
			}
			return strings.Compare(a, b)
		})
		out = append(out, files...)
	}
	return out
}

// featureFiles lists the .feature files under dir, and whether dir is a
// folder.
func featureFiles(fsys fs.FS, dir string) ([]string, bool) {
	if st, err := featureloc.Stat(fsys, dir); err != nil || !st.IsDir() {
		return nil, false
	}
	var files []string
	err := featureloc.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".feature") {
			files = append(files, p)
		}
		return err
	})
	return files, err == nil && len(files) > 0
}

// serialScore is the slowness of a file with a @serial tag.
const serialScore = -1

// slowness is the weight of a feature file's slow steps: serialScore when
// a tag line holds SerialTag, 0 when it cannot be read (godog then says
// why).
func slowness(fsys fs.FS, file string) int {
	data, err := featureloc.ReadFile(fsys, file)
	if err != nil {
		return 0
	}
	text, n := string(data), 0
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "@") && slices.Contains(strings.Fields(line), SerialTag) {
			return serialScore
		}
	}
	for _, s := range slowSteps {
		n += s.weight * strings.Count(text, s.phrase)
	}
	return n
}
