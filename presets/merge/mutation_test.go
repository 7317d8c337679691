//go:build mutation

package merge_test

import (
	"testing"

	"presetsim.dev/presetsim/internal/suitetest"
)

// TestOfflineFeatureSuite is the test make mutation runs against every
// mutant of this package: the feature suite, offline, alone.
func TestOfflineFeatureSuite(t *testing.T) { suitetest.Offline(t, "../../features") }
