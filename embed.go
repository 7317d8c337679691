package presetsim

import "embed"

// Suite is the curated feature suite: features/*.feature, by those names.
//
//go:embed features/*.feature
var Suite embed.FS

// SuitePath is the folder of the suite in Suite.
const SuitePath = "features"

// Profiles are the profiles shipped with presetsim, by file name
// (profiles/policy.yaml, profiles/redhat-cop-podpreset-webhook.yaml), and
// the CRDs they name (profiles/crds/): a command uses one by default (run
// --implementation policy uses policy.yaml), and profile.Shipped reads one,
// from any directory.
//
//go:embed profiles/*.yaml profiles/crds/*.yaml
var Profiles embed.FS
