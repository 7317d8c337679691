package suitecheck

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"

	"presetsim.dev/presetsim/internal/featureloc"
	"presetsim.dev/presetsim/internal/manifest"
)

// scheme decodes the DocStrings: the kinds a scenario may create.
var scheme = sync.OnceValue(manifest.Scheme)

// Options are what a run is asked to do, as steps.SuiteOptions says it.
type Options struct {
	Paths []string
	// FS holds the feature files Paths name; the operating system's files
	// when nil.
	FS          fs.FS
	Format      string
	Tags        string
	Concurrency int
	// Steps are the expressions of the defined steps (steps.Expressions);
	// when set, every step of the selected scenarios must match one.
	Steps []*regexp.Regexp
	// Manifests are the expressions of the steps whose DocString holds
	// objects to create (steps.ManifestExpressions): the DocStrings of the
	// selected scenarios' such steps must decode (YAML, kinds, fields),
	// else their file, line and field, with a did-you-mean.
	Manifests []*regexp.Regexp
	// Inputs are those of Manifests whose objects the scenario creates as
	// its input (steps.InputExpressions): a PodPreset among them that the
	// specification refuses (R1.3–R1.6) is a mistake of the feature file,
	// named by file, line, field and rule, on every backend alike.
	Inputs []*regexp.Regexp
}

// FeatureErrors are mistakes in the feature files themselves (an
// undefined step, a DocString that does not decode, a file Gherkin cannot
// parse), which are no verdict on any implementation: presetsim exits 4
// for them, 2 for a usage error.
type FeatureErrors struct{ Errs []error }

func (e *FeatureErrors) Error() string { return errors.Join(e.Errs...).Error() }

func (e *FeatureErrors) Unwrap() []error { return e.Errs }

// Check returns every problem with the options, joined; nil when the run
// can start. It reads the feature files.
func Check(o Options) error {
	errs := []error{checkFormat(o.Format), checkTags(o.Tags)}
	if o.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("--concurrency must be at least 1, not %d", o.Concurrency))
	}
	if err := errors.Join(errs...); err != nil {
		return err // the selection cannot be counted with a broken filter
	}
	if len(o.Paths) == 0 {
		o.Paths = []string{"features"} // godog's default, and the run's
	}
	selected, mistakes, err := count(o.FS, o.Paths, o.Tags, o.Steps, o.Manifests, o.Inputs)
	if err != nil {
		return err
	}
	if len(mistakes) > 0 {
		return &FeatureErrors{Errs: mistakes}
	}
	if len(selected) == 0 {
		if o.Tags != "" {
			return fmt.Errorf("no scenario of %s matches --tags %q", strings.Join(o.Paths, ", "), o.Tags)
		}
		return fmt.Errorf("no scenario in %s", strings.Join(o.Paths, ", "))
	}
	return nil
}

// checkFormat checks a godog format list: name[:file], comma-separated.
func checkFormat(format string) error {
	known := godog.AvailableFormatters()
	var errs []error
	for item := range strings.SplitSeq(format, ",") {
		name, _, _ := strings.Cut(item, ":")
		if _, ok := known[name]; !ok {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			slices.Sort(names)
			errs = append(errs, fmt.Errorf("--format: unknown format %q (known: %s)", name, strings.Join(names, ", ")))
		}
	}
	return errors.Join(errs...)
}

// checkTags checks a tag expression in godog's syntax: tags joined by ","
// (or) and "&&" (and), each "@tag" or "~@tag" (not). godog reads anything
// else — "and", parentheses, a space inside a tag — as one tag that
// matches nothing.
func checkTags(expr string) error {
	if expr == "" {
		return nil
	}
	const syntax = `godog's syntax is "@a,@b" (either), "@a && @b" (both), "~@a" (not)`
	for and := range strings.SplitSeq(expr, "&&") {
		for tag := range strings.SplitSeq(and, ",") {
			tag = strings.TrimSpace(tag)
			name := strings.TrimPrefix(strings.TrimPrefix(tag, "~"), "@")
			if name == "" || strings.ContainsAny(name, " \t()!|&@~") {
				return fmt.Errorf("--tags %q: %q is not a tag; %s", expr, tag, syntax)
			}
		}
	}
	return nil
}

// Count returns how many scenarios (one per example row of an outline)
// paths hold that match the tag expression. A path is a feature file, a
// folder of them, or FILE:LINE (the scenario or example row at LINE).
func Count(paths []string, tags string) (int, error) { return CountIn(nil, paths, tags) }

// CountIn is Count of the feature files of fsys (the operating system's
// when nil).
func CountIn(fsys fs.FS, paths []string, tags string) (int, error) {
	selected, _, err := count(fsys, paths, tags, nil, nil, nil)
	return len(selected), err
}

// Shard returns the scenarios of shard i of n (1 ≤ i ≤ n) of what paths
// and tags select, as FILE:LINE paths: the k-th scenario in file order
// (folders walked in lexical order) goes to shard k mod n + 1, so every
// shard is the same on every machine and the shards together are the
// whole selection, each scenario once. An outline is dealt whole, with all
// its example rows: godog selects a pickle by its scenario's line, not by
// its row's. fsys is as Options.FS says.
func Shard(fsys fs.FS, paths []string, tags string, i, n int) ([]string, error) {
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("shard %d/%d: want I/N with 1 ≤ I ≤ N", i, n)
	}
	selected, err := Scenarios(fsys, paths, tags)
	if err != nil {
		return nil, err
	}
	var mine []string
	for k, s := range selected {
		if k%n == i-1 {
			mine = append(mine, s)
		}
	}
	return mine, nil
}

// Scenarios returns the scenarios paths and tags select as FILE:LINE, the
// scenario's line, in file order (folders walked in lexical order): an
// outline once, for all its example rows. fsys is as Options.FS says.
func Scenarios(fsys fs.FS, paths []string, tags string) ([]string, error) {
	selected, _, err := count(fsys, paths, tags, nil, nil, nil)
	return slices.Compact(selected), err
}

// count is the scenarios Count counts, as FILE:LINE, and the feature
// files' mistakes: when steps are given,
// an error for each step of the selected scenarios that matches none of
// them; when manifests are, one for each such step's DocString that does
// not decode.
func count(fsys fs.FS, paths []string, tags string, steps, manifests, inputs []*regexp.Regexp) ([]string, []error, error) {
	if len(paths) == 0 {
		paths = []string{"features"}
	}
	var selected []string
	var errs, undefined []error
	for _, p := range paths {
		file, line := splitLine(p)
		info, err := featureloc.Stat(fsys, file)
		if err != nil {
			errs = append(errs, fmt.Errorf("feature path %s: %w", p, err))
			continue
		}
		var files []string
		if info.IsDir() {
			err = featureloc.WalkDir(fsys, file, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(path, ".feature") {
					files = append(files, path)
				}
				return err
			})
			if err != nil {
				errs = append(errs, fmt.Errorf("feature path %s: %w", p, err))
				continue
			}
		} else {
			files = []string{file}
		}
		for _, f := range files {
			sel, u, err := countFile(fsys, f, line, tags, steps, manifests, inputs)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			undefined = append(undefined, u...)
			if line > 0 && len(sel) == 0 && tags == "" {
				errs = append(errs, fmt.Errorf("%s: no scenario or example row at line %d", f, line))
			}
			selected = append(selected, sel...)
		}
	}
	return selected, undefined, errors.Join(errs...)
}

// splitLine splits FILE:LINE; line is 0 when there is none.
func splitLine(path string) (string, int) {
	i := strings.LastIndexByte(path, ':')
	if i < 0 {
		return path, 0
	}
	line, err := strconv.Atoi(path[i+1:])
	if err != nil || line < 1 {
		return path, 0
	}
	return path[:i], line
}

func countFile(fsys fs.FS, path string, line int, tags string, steps, manifests, inputs []*regexp.Regexp) ([]string, []error, error) {
	doc, pickles, err := featureloc.Parse(fsys, path)
	if err != nil {
		if errors.Is(err, featureloc.ErrSyntax) {
			return nil, []error{fmt.Errorf("feature file %s: %w", path, err)}, nil
		}
		return nil, nil, fmt.Errorf("feature file %s: %w", path, err)
	}
	lines, docLines := featureloc.Lines(doc), featureloc.DocLines(doc)
	var selected []string
	var undefined []error
	seen := map[int]bool{} // a Background step is in every pickle
	reported := map[string]bool{}
	decode := decoder(path)
	for _, p := range pickles {
		if line > 0 && !slices.ContainsFunc(p.AstNodeIds, func(id string) bool { return lines[id] == line }) {
			continue
		}
		if !matches(tags, p.Tags) {
			continue
		}
		// The scenario's line: every example row of an outline has it.
		selected = append(selected, fmt.Sprintf("%s:%d", path, lines[p.AstNodeIds[0]]))
		for _, err := range references(path, p, lines, docLines, manifests, decode) {
			if !reported[err.Error()] { // an outline's steps, once per example row
				reported[err.Error()] = true
				undefined = append(undefined, err)
			}
		}
		for _, st := range p.Steps {
			at, docAt := 0, 0
			if len(st.AstNodeIds) > 0 {
				at, docAt = lines[st.AstNodeIds[0]], docLines[st.AstNodeIds[0]]
			}
			if st.Argument != nil && st.Argument.DocString != nil && slices.ContainsFunc(manifests, func(re *regexp.Regexp) bool { return re.MatchString(st.Text) }) {
				objs, err := decode(docAt, st.Argument.DocString.Content)
				if !seen[-docAt] {
					seen[-docAt] = true // an outline's DocString, once per example row
					if err != nil {
						undefined = append(undefined, err)
					} else if slices.ContainsFunc(inputs, func(re *regexp.Regexp) bool { return re.MatchString(st.Text) }) {
						undefined = append(undefined, invalidPresets(objs)...)
					}
				}
			}
			if len(steps) == 0 || slices.ContainsFunc(steps, func(re *regexp.Regexp) bool { return re.MatchString(st.Text) }) {
				continue
			}
			if seen[at] {
				continue
			}
			seen[at] = true
			undefined = append(undefined, fmt.Errorf("%s:%d: undefined step %q; the nearest defined step is %s", path, at, st.Text, nearest(st.Text, steps)))
		}
	}
	return selected, undefined, nil
}

// matches applies a tag expression as godog v0.15 does.
func matches(expr string, tags []*messages.PickleTag) bool {
	if expr == "" {
		return true
	}
	has := func(name string) bool {
		return slices.ContainsFunc(tags, func(t *messages.PickleTag) bool { return strings.TrimPrefix(t.Name, "@") == name })
	}
	for and := range strings.SplitSeq(expr, "&&") {
		either := false
		for tag := range strings.SplitSeq(and, ",") {
			tag = strings.TrimSpace(tag)
			if name, not := strings.CutPrefix(tag, "~"); not {
				either = either || !has(strings.TrimPrefix(name, "@"))
			} else {
				either = either || has(strings.TrimPrefix(tag, "@"))
			}
		}
		if !either {
			return false
		}
	}
	return true
}

// nearest names the defined step most like text: the expression with the
// fewest edits between its words (regular-expression syntax left out) and
// the text's.
func nearest(text string, steps []*regexp.Regexp) string {
	best, bestDist := "", -1
	for _, re := range steps {
		plain := readable(re.String())
		if d := distance(strings.ToLower(text), strings.ToLower(plain)); bestDist < 0 || d < bestDist {
			best, bestDist = plain, d
		}
	}
	return fmt.Sprintf("%q", best)
}

// readable strips an expression of its anchors and writes its groups as
// "…", so that it reads like a step.
func readable(expr string) string {
	expr = strings.TrimSuffix(strings.TrimPrefix(expr, "^"), "$")
	var b strings.Builder
	depth := 0
	for _, r := range expr {
		switch {
		case r == '(':
			if depth == 0 {
				b.WriteString("…")
			}
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && r != '\\':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}
