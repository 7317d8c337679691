//go:build mutation

package model_test

import (
	"testing"

	"presetsim.dev/presetsim/internal/suitetest"
)

// TestOfflineFeatureSuite is the test make mutation runs against every
// mutant of this package: the feature suite, offline, alone. The model is
// the suite's oracle (every pod a scenario submits is compared with it), so
// a wrong model fails scenarios on the reference.
func TestOfflineFeatureSuite(t *testing.T) { suitetest.Offline(t, "../../features") }
