// Package profiles holds the profiles shipped with presetsim (*.yaml), and
// the CRDs and API types some of them name (crds/). The profiles are
// embedded so that a command can use one by default, e.g. run
// --implementation policy uses policy.yaml.
package profiles

import (
	"embed"

	"presetsim.dev/presetsim/harness/profile"
)

// FS holds the shipped profiles, by file name.
//
//go:embed *.yaml
var FS embed.FS

// Load parses a shipped profile by file name (policy.yaml); messages name
// it profiles/NAME.
func Load(name string) (*profile.Profile, error) {
	data, err := FS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return profile.Parse("profiles/"+name, data)
}
