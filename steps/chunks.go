package steps

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	messages "github.com/cucumber/messages/go/v21"

	"presetsim.dev/presetsim/internal/featureloc"
	"presetsim.dev/presetsim/internal/suitecheck"
)

// ChunkScenarios is how many scenarios one godog run holds at most. godog
// keeps every parsed feature file and every step's result until its run
// ends, for its formatters (about 10 KiB a scenario, measured 2026-11-25):
// a selection of more scenarios runs as one godog run after another, each
// of this many, so what godog keeps stays bounded however many there are.
// Between two chunks the run waits for the first chunk's last scenario,
// a settle window at most.
const ChunkScenarios = 1000

// chunk is one godog run of a chunked selection: its feature files, in
// which only its own scenarios are left.
type chunk struct {
	paths []string
	fs    fs.FS
}

// chunked splits what paths and tags select into chunks of at most size
// scenarios, in order; nil when it is one chunk, or when a path names a
// line (a FILE:LINE selection is a few scenarios).
func chunked(fsys fs.FS, paths []string, tags string, size int) ([]chunk, error) {
	for _, p := range paths {
		if featureloc.File(p) != p {
			return nil, nil
		}
	}
	selected, err := suitecheck.Scenarios(fsys, paths, tags)
	if err != nil || len(selected) <= size {
		return nil, err
	}
	var out []chunk
	for start := 0; start < len(selected); start += size {
		keep := map[string]map[int]bool{}
		var files []string
		for _, s := range selected[start:min(start+size, len(selected))] {
			i := strings.LastIndexByte(s, ':')
			file := s[:i]
			line, err := strconv.Atoi(s[i+1:])
			if err != nil {
				return nil, fmt.Errorf("scenario %s: %w", s, err)
			}
			if keep[file] == nil {
				keep[file] = map[int]bool{}
				files = append(files, file)
			}
			keep[file][line] = true
		}
		out = append(out, chunk{paths: files, fs: &keepFS{base: fsys, keep: keep}})
	}
	return out, nil
}

// keepFS is a feature-file system in which the feature files of keep hold
// only the scenarios at the lines keep lists: every other scenario's lines
// (its tags, steps, DocStrings, examples) are blank, so each line that is
// left keeps its number. Other files are base's (the operating system's
// when nil).
type keepFS struct {
	base fs.FS
	keep map[string]map[int]bool
}

func (k *keepFS) Open(name string) (fs.File, error) {
	lines, ok := k.keep[name]
	if !ok {
		if k.base == nil {
			return os.Open(name)
		}
		return k.base.Open(name)
	}
	data, err := featureloc.ReadFile(k.base, name)
	if err != nil {
		return nil, err
	}
	doc, _, err := featureloc.ParseData(data, name)
	if err != nil {
		return nil, err
	}
	return &keptFile{name: name, Reader: bytes.NewReader(blankOthers(data, scenarioBlocks(doc), lines))}, nil
}

// block is the lines of one scenario, first to last (1-based).
type block struct{ first, last int }

// scenarioBlocks are a feature file's scenarios by their own line: each
// from its first tag to the line before what follows it (the next
// scenario, rule or background), the last one to the end of the file.
func scenarioBlocks(doc *messages.GherkinDocument) map[int]block {
	type start struct{ at, scenario int } // scenario 0: a rule or a background
	var starts []start
	from := func(loc *messages.Location, tags []*messages.Tag) int {
		at := int(loc.Line)
		for _, t := range tags {
			at = min(at, int(t.Location.Line))
		}
		return at
	}
	add := func(bg *messages.Background, sc *messages.Scenario) {
		switch {
		case sc != nil:
			starts = append(starts, start{from(sc.Location, sc.Tags), int(sc.Location.Line)})
		case bg != nil:
			starts = append(starts, start{int(bg.Location.Line), 0})
		}
	}
	if doc.Feature != nil {
		for _, c := range doc.Feature.Children {
			add(c.Background, c.Scenario)
			if c.Rule != nil {
				starts = append(starts, start{from(c.Rule.Location, c.Rule.Tags), 0})
				for _, rc := range c.Rule.Children {
					add(rc.Background, rc.Scenario)
				}
			}
		}
	}
	out := map[int]block{}
	for i, s := range starts {
		if s.scenario == 0 {
			continue
		}
		last := -1 // to the end
		if i+1 < len(starts) {
			last = starts[i+1].at - 1
		}
		out[s.scenario] = block{s.at, last}
	}
	return out
}

// blankOthers empties the lines of every block whose scenario keep does
// not list.
func blankOthers(data []byte, blocks map[int]block, keep map[int]bool) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	for scenario, b := range blocks {
		if keep[scenario] {
			continue
		}
		last := b.last
		if last < 0 || last > len(lines) {
			last = len(lines)
		}
		for i := b.first - 1; i < last; i++ {
			if bytes.HasSuffix(lines[i], []byte("\n")) {
				lines[i] = []byte("\n")
			} else {
				lines[i] = nil
			}
		}
	}
	return bytes.Join(lines, nil)
}

// keptFile is a feature file of keepFS, in memory.
type keptFile struct {
	name string
	*bytes.Reader
}

func (f *keptFile) Stat() (fs.FileInfo, error) { return keptInfo{f}, nil }
func (f *keptFile) Close() error               { return nil }

type keptInfo struct{ f *keptFile }

func (i keptInfo) Name() string       { return filepath.Base(i.f.name) }
func (i keptInfo) Size() int64        { return i.f.Size() }
func (i keptInfo) Mode() fs.FileMode  { return 0o444 }
func (i keptInfo) ModTime() time.Time { return time.Time{} }
func (i keptInfo) IsDir() bool        { return false }
func (i keptInfo) Sys() any           { return nil }
