// Command mutationscore is make mutation's gate: it reads the results
// gremlins wrote for each group (DIR/<group>.json) and scores every mutant,
// covered or not: killed / (killed + lived + not covered + timed out).
// Mutants that do not compile (not viable) are no mutants. It prints a
// table per group and fails below 90 %, listing the survivors.
//
// Before that, make mutation runs it once per group as
//
//	mutationscore rejudge REPORT STAGE ROOT PACKAGES [go test flags...]
//
// which runs the mutants gremlins did not (rejudge.go) on the staged copy
// STAGE, where the report's file names are relative to ROOT (gremlins'
// path), testing PACKAGES (comma-separated; "." is the mutated file's own
// package), and writes their statuses into REPORT.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// result is the part of gremlins' JSON report read here.
type result struct {
	Files []struct {
		Filename  string     `json:"file_name"`
		Mutations []mutation `json:"mutations"`
	} `json:"files"`
}

// threshold is the score below which make mutation fails, in percent.
const threshold = 90.0

func main() {
	if len(os.Args) >= 6 && os.Args[1] == "rejudge" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		j := judge{stage: os.Args[3], root: os.Args[4], packages: strings.Split(os.Args[5], ","), flags: os.Args[6:]}
		if err := rejudge(ctx, os.Args[2], j); err != nil {
			fmt.Fprintf(os.Stderr, "mutationscore rejudge: %v\n", err)
			os.Exit(2)
		}
		return
	}
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: mutationscore DIR GROUP...")
		os.Exit(2)
	}
	ok, err := run(os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "mutationscore: %v\n", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(dir string, groups []string) (bool, error) {
	total := map[string]int{}
	var survivors []string
	fmt.Printf("%-8s %7s %6s %12s %10s %6s\n", "group", "killed", "lived", "not covered", "timed out", "score")
	for _, g := range groups {
		data, err := os.ReadFile(filepath.Join(dir, g+".json"))
		if err != nil {
			return false, fmt.Errorf("group %s: %w", g, err)
		}
		var r result
		if err := json.Unmarshal(data, &r); err != nil {
			return false, fmt.Errorf("group %s: %s: %w", g, filepath.Join(dir, g+".json"), err)
		}
		count := map[string]int{}
		for _, f := range r.Files {
			for _, m := range f.Mutations {
				count[m.Status]++
				if m.Status != "KILLED" && m.Status != "NOT VIABLE" {
					how := g
					if m.Rejudged {
						how += ", rejudged"
					}
					survivors = append(survivors, fmt.Sprintf("%s:%d:%d %s %s (%s)", f.Filename, m.Line, m.Column, m.Type, m.Status, how))
				}
			}
		}
		for k, v := range count {
			total[k] += v
		}
		fmt.Printf("%-8s %7d %6d %12d %10d %5.1f%%\n", g, count["KILLED"], count["LIVED"], count["NOT COVERED"], count["TIMED OUT"], score(count))
	}
	s := score(total)
	fmt.Printf("%-8s %7d %6d %12d %10d %5.1f%%\n", "all", total["KILLED"], total["LIVED"], total["NOT COVERED"], total["TIMED OUT"], s)
	if s >= threshold {
		fmt.Printf("make mutation: %.1f%% of all %d mutants killed (at least %.0f%%)\n", s, judged(total), threshold)
		return true, nil
	}
	sort.Strings(survivors)
	fmt.Printf("make mutation: %.1f%% of all %d mutants killed, below %.0f%%; survivors:\n", s, judged(total), threshold)
	for _, x := range survivors {
		fmt.Println("  " + x)
	}
	return false, nil
}

// judged counts the mutants that compiled.
func judged(c map[string]int) int {
	return c["KILLED"] + c["LIVED"] + c["NOT COVERED"] + c["TIMED OUT"]
}

func score(c map[string]int) float64 {
	if judged(c) == 0 {
		return 0
	}
	return 100 * float64(c["KILLED"]) / float64(judged(c))
}
