package scenario

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"presetsim.dev/presetsim/harness/backend"
)

// recheck is how often WaitUntil evaluates its condition when no watched
// change arrives: a safety net for conditions that also read other
// resources (a workload's pods and its status), never the normal path.
const recheck = time.Second

// WaitUntil evaluates cond at once and then after every change to the
// resources of gvrs in namespace, as a watch reports it, until cond returns
// true or an error, or timeout passes (wait's interrupted error). Waiting
// for a change instead of polling on a timer ends a wait within a watch
// event's latency of the change, and asks the API server nothing in between.
// A backend or resource that cannot be watched falls back to polling every
// 50ms.
func (s *Scenario) WaitUntil(ctx context.Context, namespace string, timeout time.Duration, cond wait.ConditionWithContextFunc, gvrs ...schema.GroupVersionResource) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	changes := make(chan struct{}, 1)
	for _, gvr := range gvrs {
		w, err := s.cluster.Watch(ctx, gvr, namespace)
		if err != nil {
			return wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, cond)
		}
		defer w.Stop()
		go forward(ctx, w, changes)
	}
	ticker := time.NewTicker(recheck)
	defer ticker.Stop()
	for {
		done, err := cond(ctx)
		if err != nil || done {
			if err != nil && ctx.Err() != nil {
				return wait.ErrorInterrupted(err)
			}
			return err
		}
		select {
		case <-ctx.Done():
			return wait.ErrorInterrupted(ctx.Err())
		case <-changes:
		case <-ticker.C:
		}
	}
}

// waitOnPods waits, as WaitUntil, for a condition on the pods (and the
// other resources, if any) of a logical namespace.
func (s *Scenario) waitOnPods(ctx context.Context, logicalNS string, cond wait.ConditionWithContextFunc, other ...schema.GroupVersionResource) error {
	ns, err := s.Namespace(ctx, logicalNS)
	if err != nil {
		return err
	}
	return s.WaitUntil(ctx, ns, s.w.Timeouts.Wait, cond, append([]schema.GroupVersionResource{backend.Pods}, other...)...)
}

// forward signals changes (without blocking: one pending signal is enough)
// for every event of w, until w ends or ctx is done. A watch the server
// closes leaves the safety-net recheck of WaitUntil to notice later changes.
func forward(ctx context.Context, w watch.Interface, changes chan<- struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
			select {
			case changes <- struct{}{}:
			default:
			}
		}
	}
}

// SettleWindow is how long a check that something does not happen watches:
// override when it is not zero (a step's own "for 5s"), else the run's
// settle window (harness.Timeouts.Settle).
func (s *Scenario) SettleWindow(override time.Duration) time.Duration {
	if override > 0 {
		return override
	}
	return s.w.Timeouts.Settle
}

// Window is how long a check that something does not happen watches
// (Length, see SettleWindow), counted From the end of the step that last
// changed something in the scenario: the window is the time the cluster
// is given to react to that change, so checks in a row after one change
// watch the same window instead of one each, and a check made more than
// Length after the change looks once. A zero From counts from the check's
// start.
type Window struct {
	Length time.Duration
	From   time.Time
}

// end is when the window closes, for a check that starts now.
func (w Window) end() time.Time {
	if w.From.IsZero() {
		return time.Now().Add(w.Length)
	}
	return w.From.Add(w.Length)
}

// holds runs check at once, then every 100ms until the window closes (and
// once as it closes): something that must not happen is watched for a
// while, not looked for once.
func (s *Scenario) holds(ctx context.Context, window Window, check func() error) error {
	deadline := window.end()
	for {
		if err := check(); err != nil {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(left, 100*time.Millisecond)):
		}
	}
}
