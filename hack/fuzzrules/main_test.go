package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"testing"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/fuzz"
)

// TestRun: a mutant fuzzed is found, its rule named first for some kind,
// and the table says so, with when it was first found; a name that is no
// mutant's shows nothing.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	missed, err := run(context.Background(), &out, io.Discard, func() backend.Backend { return offline.New() }, fuzz.Options{Cases: 60, Seed: 7, Concurrency: 2}, []string{"no-annotation"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if missed != 0 {
		t.Errorf("%d mutants missed, want none:\n%s", missed, out.String())
	}
	line := regexp.MustCompile(`(?m)^no-annotation +R3\.7 +(\d+) +(\d+) +\d+ +\d+ +([\d.]+) +(\d+)`).FindStringSubmatch(out.String())
	if line == nil || line[2] == "0" {
		t.Fatalf("no line for no-annotation with its rule named first:\n%s", out.String())
	}
	if line[3] == "0.00" || line[4] == "0" {
		t.Errorf("no time or case count for the first finding (%s s after %s cases):\n%s", line[3], line[4], out.String())
	}
	if !regexp.MustCompile(`(?m)^all: 1 of 1 found`).MatchString(out.String()) {
		t.Errorf("no totals line:\n%s", out.String())
	}
}
