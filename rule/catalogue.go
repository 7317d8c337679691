package rule

// The rules of the specification, by id; All gives their titles.
const (
	R1_1 ID = "R1.1"
	R1_2 ID = "R1.2"
	R1_3 ID = "R1.3"
	R1_4 ID = "R1.4"
	R1_5 ID = "R1.5"
	R1_6 ID = "R1.6"
	R1_7 ID = "R1.7"
	R1_8 ID = "R1.8"
	R2_1 ID = "R2.1"
	R2_2 ID = "R2.2"
	R2_3 ID = "R2.3"
	R2_4 ID = "R2.4"
	R2_5 ID = "R2.5"
	R2_6 ID = "R2.6"
	R3_1 ID = "R3.1"
	R3_2 ID = "R3.2"
	R3_3 ID = "R3.3"
	R3_4 ID = "R3.4"
	R3_5 ID = "R3.5"
	R3_6 ID = "R3.6"
	R3_7 ID = "R3.7"
	R3_8 ID = "R3.8"
	R4_1 ID = "R4.1"
	R4_2 ID = "R4.2"
	R4_3 ID = "R4.3"
	R4_4 ID = "R4.4"
	R5_1 ID = "R5.1"
	R5_2 ID = "R5.2"
	R5_3 ID = "R5.3"
	R5_4 ID = "R5.4"
	R6_1 ID = "R6.1"
	R6_2 ID = "R6.2"
	R6_3 ID = "R6.3"
	R6_4 ID = "R6.4"
)

// All are the specification's rules, in its order.
var All = []Rule{
	{R1_1, "Group, version and kind; delivered as a CRD"},
	{R1_2, "Spec fields with the core types' full schema"},
	{R1_3, "selector is required and valid; {} selects every pod"},
	{R1_4, "At least one of env, envFrom, volumes, volumeMounts"},
	{R1_5, "Mounts name the preset's volumes; names and paths unique and valid"},
	{R1_6, "The name is at most 53 characters"},
	{R1_7, "The spec is immutable"},
	{R1_8, "Every rejection names the field path"},
	{R2_1, "Only CREATE of pods; dry runs mutated without side effects"},
	{R2_2, "Presets from the request's namespace only"},
	{R2_3, "A preset applies when its selector matches"},
	{R2_4, "The exclude annotation opts a pod out"},
	{R2_5, "Mirror pods are never mutated"},
	{R2_6, "Controllers' pods are mutated, their templates never"},
	{R3_1, "Volumes are added to the pod"},
	{R3_2, "env, envFrom, mounts go to every container and init container"},
	{R3_3, "Existing items keep their place; injected ones are appended"},
	{R3_4, "Identical items are skipped"},
	{R3_5, "Item keys"},
	{R3_6, "Presets apply by name"},
	{R3_7, "The podpreset-<name> annotation per applied preset"},
	{R3_8, "Admitting a mutated pod again changes nothing"},
	{R4_1, "What a conflict is"},
	{R4_2, "A conflict applies no preset at all"},
	{R4_3, "A conflict is reported as an event and a warning"},
	{R4_4, "A conflict removes or rewrites nothing"},
	{R5_1, "An admission plug-in served as a TLS webhook"},
	{R5_2, "failurePolicy Fail and Ignore"},
	{R5_3, "Every request answered, whatever the failure policy hides"},
	{R5_4, "Judged through its own registration; nothing but pod CREATEs changed"},
	{R6_1, "Presets as they stand at each admission, within the propagation window"},
	{R6_2, "Admissions are independent"},
	{R6_3, "Every conflicting admission reports its conflict"},
	{R6_4, "No limit of its own: names, presets, items, containers"},
}

// Sections are the titles of the specification's sections, by the part of
// an id before its dot ("R4").
var Sections = map[string]string{
	"R1": "The object",
	"R2": "Which pods are changed",
	"R3": "What goes in",
	"R4": "Conflicts",
	"R5": "How it is delivered",
	"R6": "State over time",
}
