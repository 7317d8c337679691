package report

// Rule is a rule of the specification (docs/specification.md).
type Rule struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Rules are the specification's rules, in order.
var Rules = []Rule{
	{"R1.1", "Group, version and kind; delivered as a CRD"},
	{"R1.2", "Spec fields with the core types' full schema"},
	{"R1.3", "selector is required and valid; {} selects every pod"},
	{"R1.4", "At least one of env, envFrom, volumes, volumeMounts"},
	{"R1.5", "Mounts name the preset's volumes; names and paths unique and valid"},
	{"R1.6", "The name is at most 53 characters"},
	{"R1.7", "The spec is immutable"},
	{"R1.8", "Every rejection names the field path"},
	{"R2.1", "Only CREATE of pods; dry runs mutated without side effects"},
	{"R2.2", "Presets from the request's namespace only"},
	{"R2.3", "A preset applies when its selector matches"},
	{"R2.4", "The exclude annotation opts a pod out"},
	{"R2.5", "Mirror pods are never mutated"},
	{"R2.6", "Controllers' pods are mutated, their templates never"},
	{"R3.1", "Volumes are added to the pod"},
	{"R3.2", "env, envFrom, mounts go to every container and init container"},
	{"R3.3", "Existing items keep their place; injected ones are appended"},
	{"R3.4", "Identical items are skipped"},
	{"R3.5", "Item keys"},
	{"R3.6", "Presets apply by name"},
	{"R3.7", "The podpreset-<name> annotation per applied preset"},
	{"R3.8", "Admitting a mutated pod again changes nothing"},
	{"R4.1", "What a conflict is"},
	{"R4.2", "A conflict applies no preset at all"},
	{"R4.3", "A conflict is reported as an event and a warning"},
	{"R4.4", "A conflict removes or rewrites nothing"},
	{"R5.1", "An admission plug-in served as a TLS webhook"},
	{"R5.2", "failurePolicy Fail and Ignore"},
}
