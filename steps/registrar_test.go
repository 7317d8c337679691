package steps

import (
	"errors"
	"strings"
	"testing"
)

// TestWithWebhookOutput: a failure the webhook caused points to its
// process's output; any other failure, or one with no process, is left as
// it is.
func TestWithWebhookOutput(t *testing.T) {
	crashed := errors.New(`unable to create Pod "website": Internal error occurred: failed calling webhook "podpreset.presetsim.dev": failed to call webhook: Post "https://127.0.0.1:9443/mutate?timeout=10s": stream error: stream ID 173; INTERNAL_ERROR; received from peer`)
	output := "the webhook's last output (all of it in reports/webhook.log):\n  panic: odd number of arguments"
	for _, tc := range []struct {
		name   string
		err    error
		output string
		want   []string
	}{
		{"a crashed webhook", crashed, output, []string{"stream error", "could not get an answer from the webhook", "reports/webhook.log", "panic: odd number"}},
		{"no process started", crashed, "", []string{"stream error"}},
		{"a webhook that answers 500", errors.New(`unable to create Pod "website": Internal error occurred: failed calling webhook "podpreset.presetsim.dev": failed to call webhook: an error on the server ("runtime error: invalid memory address") has prevented the request from succeeding`),
			output, []string{"answered the API server with a server error (HTTP 5xx)", "reports/webhook.log", "invalid memory address"}},
		{"a verdict, not a crash", errors.New(`the pod "website" should be as submitted`), output, []string{"should be as submitted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := withWebhookOutput(tc.err, tc.output)
			if !errors.Is(got, tc.err) {
				t.Errorf("the cause is lost: %v", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("%q does not contain %q", got, w)
				}
			}
			if tc.output != "" && !strings.Contains(tc.err.Error(), "failed calling webhook") && strings.Contains(got.Error(), tc.output) {
				t.Errorf("a failure the webhook did not cause shows its output: %q", got)
			}
		})
	}
}
