package watch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/steps"
)

// Options configure a watch.
type Options struct {
	// Paths are feature files or folders ("features" when empty).
	Paths []string
	// Tags and Concurrency are as for steps.SuiteOptions.
	Tags        string
	Concurrency int
	// Out receives the reports.
	Out io.Writer
	// Keys is the terminal's input: a line "r" runs every feature again.
	Keys io.Reader
	// Poll is how often files are looked at; 100ms when zero.
	Poll time.Duration
	// Reported, when set, is called after each report (the benchmark's
	// clock).
	Reported func()
}

// seen is what a scenario came to, as compared between runs.
type seen struct {
	state  outcome.Outcome
	detail string
}

// Loop runs every feature once, then again on every save or "r", until
// ctx ends. It returns nil when ctx ends.
func Loop(ctx context.Context, w *harness.World, o Options) error {
	if len(o.Paths) == 0 {
		o.Paths = []string{"features"}
	}
	if o.Poll == 0 {
		o.Poll = 100 * time.Millisecond
	}
	files, err := featureFiles(o.Paths)
	if err != nil {
		return err
	}
	last := map[string]seen{}
	seen := modTimes(files)
	clean := &cleaner{w: w}
	defer clean.wait()
	report(o, w, clean, last, o.Paths, "all features")
	fmt.Fprintf(o.Out, "watching %d feature files: save one to run it again, r and Enter to run all, Ctrl-C to stop\n", len(files))

	keys := make(chan string)
	if o.Keys != nil {
		go func() {
			scanner := bufio.NewScanner(o.Keys)
			for scanner.Scan() {
				select {
				case keys <- strings.TrimSpace(scanner.Text()):
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	tick := time.NewTicker(o.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case k := <-keys:
			if k == "r" {
				report(o, w, clean, last, o.Paths, "all features")
			}
		case <-tick.C:
			if files, err = featureFiles(o.Paths); err != nil {
				fmt.Fprintf(o.Out, "%v\n", err)
				continue
			}
			now := modTimes(files)
			for _, f := range files {
				if !now[f].Equal(seen[f]) {
					report(o, w, clean, last, []string{f}, f)
				}
			}
			seen = now
		}
	}
}

// report runs the scenarios of paths and prints what changed against last,
// which it updates.
func report(o Options, w *harness.World, clean *cleaner, last map[string]seen, paths []string, what string) {
	start := time.Now()
	_, timings := steps.Run(w, steps.SuiteOptions{Paths: paths, Format: "progress", Output: io.Discard, Tags: o.Tags, Concurrency: o.Concurrency})
	took := time.Since(start)
	now := map[string]seen{}
	for _, s := range timings.List() {
		now[s.Scenario] = outcomeOf(s)
	}
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(now)) {
		before, known := last[name]
		n := now[name]
		switch {
		case !known:
			lines = append(lines, line(n.state.Words(), name, n.detail))
		case before != n:
			lines = append(lines, line("now "+n.state.Words(), name, n.detail))
		}
		last[name] = n
	}
	// Scenarios that were in these files and are no longer.
	for _, name := range slices.Sorted(maps.Keys(last)) {
		if _, ok := now[name]; !ok && inPaths(name, paths) {
			lines = append(lines, line("removed", name, ""))
			delete(last, name)
		}
	}
	counts := outcome.Counts{}
	for _, n := range now {
		counts[n.state]++
	}
	fmt.Fprintf(o.Out, "%s %s: %d scenarios in %s (%s)", time.Now().Format("15:04:05"), what, len(now), took.Round(time.Millisecond), counts)
	if len(lines) == 0 {
		fmt.Fprint(o.Out, ", nothing changed")
	}
	fmt.Fprintln(o.Out)
	for _, l := range lines {
		fmt.Fprint(o.Out, l)
	}
	if o.Reported != nil {
		o.Reported()
	}
	if err := clean.clean(); err != nil {
		fmt.Fprintf(o.Out, "%v\n", err)
	}
}

// scenarioNamespaces selects the namespaces scenarios made (not the run's
// own, such as the readiness probe's).
func scenarioNamespaces(w *harness.World) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: harness.RunLabel + "=" + w.RunID + "," + harness.LogicalLabel}
}

// cleaner deletes the namespaces of the scenarios a run made, so that what
// they hold (pods on the simulated nodes) does not pile up over hours of
// watching. Their Services go at once, before the next run can start: a
// scenario that pins a Service's cluster IP can pin it again on the next
// save. The namespaces themselves are deleted in the background, by name
// (never by label, which the next run's namespaces carry too), and the
// namespace controller empties them while the user edits.
type cleaner struct {
	w  *harness.World
	wg sync.WaitGroup
}

func (c *cleaner) clean() error {
	w := c.w
	api, ok := w.API()
	if !ok {
		return nil // offline: the store is in memory, nothing is pinned
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := api.Client.CoreV1().Namespaces().List(ctx, scenarioNamespaces(w))
	if err != nil {
		return fmt.Errorf("unable to list the scenarios' namespaces: %w", err)
	}
	doomed := map[string]bool{}
	for _, ns := range list.Items {
		if ns.DeletionTimestamp == nil {
			doomed[ns.Name] = true
		}
	}
	services, err := api.Client.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("unable to list Services: %w", err)
	}
	for _, svc := range services.Items {
		if doomed[svc.Namespace] {
			if err := api.Client.CoreV1().Services(svc.Namespace).Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("unable to delete Service %s/%s: %w", svc.Namespace, svc.Name, err)
			}
		}
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for name := range doomed {
			// A failure leaves a namespace for later: the next clean-up
			// lists it again.
			_ = api.Client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
		}
	}()
	return nil
}

// wait waits for the background deletions.
func (c *cleaner) wait() { c.wg.Wait() }

func outcomeOf(s outcome.Scenario) seen {
	o := seen{state: s.Outcome()}
	if s.Err != nil {
		o.detail, _, _ = strings.Cut(s.Err.Error(), "\n")
	}
	return o
}

func line(state, name, detail string) string {
	s := fmt.Sprintf("  %-12s %s\n", state, name)
	if detail != "" {
		s += "               " + detail + "\n"
	}
	return s
}

// inPaths reports whether a scenario ("<file>: <name>") is of one of the
// paths run.
func inPaths(scenario string, paths []string) bool {
	file, _, _ := strings.Cut(scenario, ": ")
	for _, p := range paths {
		if file == p || strings.HasPrefix(file, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// featureFiles lists the .feature files of paths.
func featureFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".feature") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("unable to read the feature files: %w", err)
		}
	}
	return files, nil
}

func modTimes(files []string) map[string]time.Time {
	out := make(map[string]time.Time, len(files))
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			out[f] = st.ModTime()
		}
	}
	return out
}
