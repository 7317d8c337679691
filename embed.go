package presetsim

import "embed"

// Suite is the curated feature suite: features/*.feature, by those names.
//
//go:embed features/*.feature
var Suite embed.FS

// SuitePath is the folder of the suite in Suite.
const SuitePath = "features"
