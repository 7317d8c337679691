package policyplugin

import (
	"os"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
)

// TestMain compiles written policies every 10ms, as the presetsim command
// does, instead of the API server's every second.
func TestMain(m *testing.M) {
	generic.SetPolicyRefreshIntervalForTests(10 * time.Millisecond)
	os.Exit(m.Run())
}
