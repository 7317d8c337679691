// Package profiles holds the profiles shipped with presetsim (*.yaml), and
// the CRDs and API types some of them name (crds/). The profiles are
// embedded so that a command can use one by default, e.g. run
// --implementation policy uses policy.yaml.
package profiles

import "embed"

// FS holds the shipped profiles, by file name.
//
//go:embed *.yaml
var FS embed.FS
