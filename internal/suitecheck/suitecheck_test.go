package suitecheck

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestCheck: each kind of mistake is refused, with what is wrong, before
// anything starts; a good selection passes.
func TestCheck(t *testing.T) {
	good := Options{Paths: []string{"testdata/two.feature"}, Format: "pretty", Concurrency: 4}
	for _, c := range []struct {
		name    string
		change  func(*Options)
		wantErr string // "" for none
	}{
		{"a good run", func(*Options) {}, ""},
		{"formats with a file", func(o *Options) { o.Format = "progress,cucumber:/tmp/c.json" }, ""},
		{"an unknown format", func(o *Options) { o.Format = "nonsense" }, `unknown format "nonsense"`},
		{"zero concurrency", func(o *Options) { o.Concurrency = 0 }, "--concurrency must be at least 1, not 0"},
		{"negative concurrency", func(o *Options) { o.Concurrency = -1 }, "not -1"},
		{"cucumber-expression words", func(o *Options) { o.Tags = "@R4.2 and (" }, `"@R4.2 and (" is not a tag`},
		{"an empty tag", func(o *Options) { o.Tags = "@R4.2 &&" }, `"" is not a tag`},
		{"tags that select", func(o *Options) { o.Tags = "@R4.2 && ~@R2.1" }, ""},
		{"tags that select nothing", func(o *Options) { o.Tags = "@R9.9" }, `no scenario of testdata/two.feature matches --tags "@R9.9"`},
		{"a missing path", func(o *Options) { o.Paths = []string{"testdata/nope.feature"} }, "feature path testdata/nope.feature"},
		{"a folder with no scenario", func(o *Options) { o.Paths = []string{"testdata/dir"} }, "no scenario in testdata/dir"},
		{"no path: features, which is not here", func(o *Options) { o.Paths = nil }, "feature path features"},
		{"a line with a scenario", func(o *Options) { o.Paths = []string{"testdata/two.feature:4"} }, ""},
		{"a line with an example row", func(o *Options) { o.Paths = []string{"testdata/two.feature:14"} }, ""},
		{"a line with none", func(o *Options) { o.Paths = []string{"testdata/two.feature:5"} }, "no scenario or example row at line 5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := good
			c.change(&o)
			err := Check(o)
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("Check: %v, want none", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("Check: %v, want an error with %q", err, c.wantErr)
			}
		})
	}
}

// TestCount: an outline counts one scenario per example row, and tags
// select as godog selects.
func TestCount(t *testing.T) {
	for _, c := range []struct {
		tags string
		want int
	}{{"", 7}, {"@R4.2", 2}, {"@R2.1,@R4.2", 3}, {"~@slow", 5}, {"@R2.1 && @slow", 0}} {
		n, err := Count([]string{"testdata"}, c.tags)
		if err != nil || n != c.want {
			t.Errorf("Count(testdata, %q) = %d, %v; want %d", c.tags, n, err, c.want)
		}
	}
}

// TestUndefinedSteps: a step that matches no defined one is refused with
// its file and line and the nearest defined step, once even when a
// Background repeats it.
func TestUndefinedSteps(t *testing.T) {
	defined := []*regexp.Regexp{
		regexp.MustCompile(`^the (PodPreset|ConfigMap):$`),
		regexp.MustCompile(`^I create the pod:$`),
		regexp.MustCompile(`^nothing$`), regexp.MustCompile(`^(\d+)$`),
	}
	err := Check(Options{Paths: []string{"testdata/undefined.feature"}, Format: "pretty", Concurrency: 1, Steps: defined})
	want := `testdata/undefined.feature:11: undefined step "I craete the pod:"; the nearest defined step is "I create the pod:"`
	if err == nil || err.Error() != want {
		t.Errorf("Check: %v, want %s", err, want)
	}
	if err := Check(Options{Paths: []string{"testdata/two.feature"}, Format: "pretty", Concurrency: 1, Steps: defined}); err != nil {
		t.Errorf("every step defined: %v", err)
	}
}

// TestManifestMistakes: the DocStrings of the steps that create objects
// are decoded before a run; each mistake is a feature-file error (no
// verdict) with its file, line and field, a did-you-mean for a misspelt
// field, and an undefined step is one too.
func TestManifestMistakes(t *testing.T) {
	defined := []*regexp.Regexp{
		regexp.MustCompile(`^the PodPreset:$`), regexp.MustCompile(`^I create the pod:$`),
		regexp.MustCompile(`^I try to create:$`), regexp.MustCompile(`^the pod "([^"]*)" should be as submitted$`),
	}
	err := Check(Options{Paths: []string{"testdata/mistakes/manifests.feature"}, Format: "progress", Concurrency: 1, Steps: defined, Manifests: defined[:3]})
	var mistakes *FeatureErrors
	if !errors.As(err, &mistakes) {
		t.Fatalf("Check: %v, want feature-file errors", err)
	}
	want := []string{
		`testdata/mistakes/manifests.feature:22: spec.containres: unknown field; did you mean "containers"?`,
		`testdata/mistakes/manifests.feature:30: invalid YAML: did not find expected ',' or ']'`,
		`testdata/mistakes/manifests.feature:32: undefined step "the pod \"web\" should be as submited"; the nearest defined step is "the pod \"…\" should be as submitted"`,
	}
	var got []string
	for _, e := range mistakes.Errs {
		got = append(got, e.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("Check found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := Check(Options{Paths: []string{"testdata/two.feature"}, Format: "progress", Concurrency: 1, Manifests: defined[:3]}); err != nil {
		t.Errorf("DocStrings that decode: %v", err)
	}
}

// TestReferenceMistakes: a ${…} the steps do not expand, a ${rv:…} of a
// preset the scenario has not created by then and a pod it never created
// are feature-file errors with their line and a did-you-mean; a
// StatefulSet's ordinal pods are the scenario's own.
func TestReferenceMistakes(t *testing.T) {
	defined := []*regexp.Regexp{
		regexp.MustCompile(`^the PodPreset:$`), regexp.MustCompile(`^I create the pod:$`), regexp.MustCompile(`^the objects:$`),
		regexp.MustCompile(`^the pod "([^"]*)" should have the annotations:$`),
	}
	err := Check(Options{Paths: []string{"testdata/mistakes/references.feature"}, Format: "progress", Concurrency: 1, Steps: defined, Manifests: defined[:3]})
	var mistakes *FeatureErrors
	if !errors.As(err, &mistakes) {
		t.Fatalf("Check: %v, want feature-file errors", err)
	}
	want := []string{
		`testdata/mistakes/references.feature:15: ${namespace} is no substitution the steps know: ${rv:PRESET} (the resourceVersion of a PodPreset the scenario created) is the only one`,
		`testdata/mistakes/references.feature:25: ${rv:allow-databse} names a PodPreset this scenario has not created by then: did you mean "allow-database"?`,
		`testdata/mistakes/references.feature:25: the pod "websit" is not one this scenario has created (or tried to) by then: did you mean "website"?`,
		`testdata/mistakes/references.feature:47: ${rv:late} names a PodPreset this scenario has not created by then: it creates none`,
	}
	var got []string
	for _, e := range mistakes.Errs {
		got = append(got, e.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("Check found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestShard: the shards of a selection are disjoint, together the whole
// selection in its order, the same on every call, an outline dealt whole;
// a shard out of range is refused.
func TestShard(t *testing.T) {
	all, err := Shard(nil, []string{"testdata"}, "", 1, 1)
	if err != nil || len(all) != 6 {
		t.Fatalf("Shard 1/1 = %v, %v; want the 6 scenarios (an outline of two rows is one)", all, err)
	}
	var joined []string
	for i := 1; i <= 3; i++ {
		sh, err := Shard(nil, []string{"testdata"}, "", i, 3)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Shard(nil, []string{"testdata"}, "", i, 3)
		if !slices.Equal(sh, again) {
			t.Errorf("shard %d/3 is %v, then %v", i, sh, again)
		}
		for k, s := range sh {
			if all[(i-1)+3*k] != s {
				t.Errorf("shard %d/3 has %s at %d, want %s", i, s, k, all[(i-1)+3*k])
			}
		}
		joined = append(joined, sh...)
	}
	slices.Sort(joined)
	sorted := slices.Sorted(slices.Values(all))
	if !slices.Equal(joined, sorted) {
		t.Errorf("the shards together are %v, want %v", joined, sorted)
	}
	if n, err := Count(all, ""); err != nil || n != 7 {
		t.Errorf("the shards' paths count %d scenarios (%v), want the 7 of the selection", n, err)
	}
	for _, bad := range [][2]int{{0, 3}, {4, 3}, {1, 0}} {
		if _, err := Shard(nil, []string{"testdata"}, "", bad[0], bad[1]); err == nil {
			t.Errorf("shard %d/%d accepted", bad[0], bad[1])
		}
	}
}

// TestInvalidInputPresets: a preset that a scenario creates as its input
// and the specification refuses is a feature-file error, with the field,
// its line and the rule, whatever the backend; one a "try" step creates is
// the scenario's to judge.
func TestInvalidInputPresets(t *testing.T) {
	fsys := fstest.MapFS{"invalid-presets.feature": {Data: []byte(invalidPresetsFeature)}}
	defined := []*regexp.Regexp{
		regexp.MustCompile(`^the PodPreset:$`), regexp.MustCompile(`^I create the pod:$`), regexp.MustCompile(`^I try to create:$`),
		regexp.MustCompile(`^the pod "([^"]*)" should be as submitted$`), regexp.MustCompile(`^the request should be rejected with a message containing "(.*)"$`),
	}
	for _, tc := range []struct {
		name   string
		inputs []*regexp.Regexp
		want   []string
	}{
		{"checked", defined[:2], []string{
			`invalid-presets.feature:9: metadata.name: Too long: may not be more than 53 bytes (R1.6)`,
			`invalid-presets.feature:14: spec.selector.matchExpressions[0].operator: Invalid value: "Inn": not a valid selector operator (R1.3)`,
		}},
		{"no input steps", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(Options{Paths: []string{"invalid-presets.feature"}, FS: fsys, Format: "progress", Concurrency: 1, Steps: defined, Manifests: defined[:3], Inputs: tc.inputs})
			var mistakes *FeatureErrors
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Check: %v, want no mistake", err)
				}
				return
			}
			if !errors.As(err, &mistakes) || len(mistakes.Errs) != len(tc.want) {
				t.Fatalf("Check: %v, want %d feature-file errors", err, len(tc.want))
			}
			for i, e := range mistakes.Errs {
				if !strings.HasPrefix(e.Error(), tc.want[i]) {
					t.Errorf("mistake %d: %s\nwant it to start with: %s", i, e, tc.want[i])
				}
			}
		})
	}
}

// invalidPresetsFeature creates an invalid preset as its input, and tries
// to create another.
const invalidPresetsFeature = `Feature: bad presets

  Scenario: a preset with a long name and a bad operator
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: a-preset-whose-name-is-much-too-long-for-its-annotation-key-x
      spec:
        selector:
          matchExpressions:
            - key: role
              operator: Inn
              values: [frontend]
        env:
          - name: A
            value: "1"
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: w
      spec:
        containers:
          - name: w
            image: w
      """
    Then the pod "w" should be as submitted

  Scenario: trying is fine
    When I try to create:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: p
      spec:
        selector: {}
      """
    Then the request should be rejected with a message containing "spec"
`
