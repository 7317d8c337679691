package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/procs"
)

// slowStart is a backend whose Start starts a child process and then waits
// for its context's end, as envtest's start of etcd and kube-apiserver
// does for seconds; it then stops the child and fails.
type slowStart struct{ started chan int }

func (slowStart) Name() string          { return "slow-start" }
func (slowStart) StartsProcesses() bool { return true }

func (b slowStart) Start(ctx context.Context, _ backend.Run) (backend.Cluster, error) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	b.started <- cmd.Process.Pid
	<-ctx.Done()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil, errors.New("stopped while starting")
}

// TestRecordedWhileStarting: the processes a backend starts are in the
// run's record before its Start returns, so that the next run could reap
// them if this one were killed meanwhile.
func TestRecordedWhileStarting(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := slowStart{started: make(chan int, 1)}
	done := make(chan error, 1)
	go func() {
		_, err := harness.Start(ctx, harness.Options{Backend: b})
		done <- err
	}()
	var pid int
	select {
	case pid = <-b.started:
	case err := <-done:
		t.Fatalf("Start returned before the backend started its process: %v", err)
	}
	recorded := func(context.Context) (bool, error) {
		files, _ := filepath.Glob(filepath.Join(procs.Dir(), "*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue // being renamed into place
			}
			var r struct {
				Children []struct {
					PID int `json:"pid"`
				} `json:"children"`
			}
			if json.Unmarshal(data, &r) != nil {
				continue
			}
			for _, c := range r.Children {
				if c.PID == pid {
					return true, nil
				}
			}
		}
		return false, nil
	}
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 5*time.Second, true, recorded); err != nil {
		t.Errorf("the backend's process (pid %d) is not in a record in %s while its Start runs", pid, procs.Dir())
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("Start succeeded with a backend that failed")
	}
}
