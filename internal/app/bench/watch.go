package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/app/watch"
	"presetsim.dev/presetsim/steps"
)

// watchTimes measures "presetsim run --watch" on the bench's warm control
// plane: the time from saving a one-scenario feature to its report, for
// saves a person's second apart; and, for comparison, a fresh run of the
// same file (start a control plane beside it, run, stop), as "presetsim
// run FILE" does, less the program's own start.
func watchTimes(ctx context.Context, side beside, bin, dir string, saves, fresh int) (watched, started []time.Duration, err error) {
	w := side.main
	file := filepath.Join(dir, "watched", "one.feature")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(file, []byte(minimalFeature), 0o644); err != nil {
		return nil, nil, err
	}
	reported := make(chan time.Time, 1)
	loopCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- watch.Loop(loopCtx, w, watch.Options{Paths: []string{filepath.Dir(file)}, Out: io.Discard,
			Reported: func() { reported <- time.Now() }})
	}()
	defer func() {
		cancel()
		<-done
	}()
	<-reported // the first run of every feature
	for i := 0; i < saves; i++ {
		time.Sleep(time.Second) // a person between two saves; the last run's namespaces go meanwhile
		saved := time.Now()
		content := fmt.Sprintf("%s# save %d\n", minimalFeature, i)
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			return nil, nil, err
		}
		select {
		case at := <-reported:
			watched = append(watched, at.Sub(saved))
		case <-time.After(30 * time.Second):
			return nil, nil, fmt.Errorf("watch mode did not report save %d within 30s", i)
		}
	}
	for i := 0; i < fresh; i++ {
		start := time.Now()
		fw, err := side.start(harness.Options{})
		if err != nil {
			return nil, nil, err
		}
		status, _ := steps.Run(fw, steps.SuiteOptions{Paths: []string{file}, Format: "progress", Output: io.Discard})
		if err := side.stop(fw); err != nil {
			return nil, nil, err
		}
		if status != 0 {
			return nil, nil, fmt.Errorf("the fresh run of %s failed", file)
		}
		started = append(started, time.Since(start))
	}
	return watched, started, nil
}
