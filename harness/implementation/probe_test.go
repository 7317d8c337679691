package implementation

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPoll: a probe that answers, or fails, is not called again; one that
// never answers is called at growing intervals until the timeout (every
// 5 ms throughout, a second would be 200 probes), and the error says the
// time ran out.
func TestPoll(t *testing.T) {
	broken := errors.New("broken")
	tests := []struct {
		name               string
		answerAt           int   // the call that returns true; 0: none
		fail               error // what every call returns
		minCalls, maxCalls int
		wantErr            error
	}{
		{name: "answers at once", answerAt: 1, minCalls: 1, maxCalls: 1},
		{name: "answers at the third", answerAt: 3, minCalls: 3, maxCalls: 3},
		{name: "fails", fail: broken, minCalls: 1, maxCalls: 1, wantErr: broken},
		{name: "never answers", minCalls: 2, maxCalls: 25, wantErr: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			err := poll(context.Background(), time.Second, func(context.Context) (bool, error) {
				calls++
				return calls == tt.answerAt, tt.fail
			})
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("poll = %v, want %v", err, tt.wantErr)
			}
			if calls < tt.minCalls || calls > tt.maxCalls {
				t.Errorf("the probe was called %d times, want %d to %d", calls, tt.minCalls, tt.maxCalls)
			}
		})
	}
}
