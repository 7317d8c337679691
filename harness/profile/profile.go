package profile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"presetsim.dev/presetsim"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// APIVersion and Kind of a profile document.
const (
	APIVersion = "presetsim.dev/v1alpha1"
	Kind       = "Profile"
)

// Capability is an optional behaviour a profile may claim; each is also a
// scenario tag ("@events").
type Capability string

// The capabilities.
const (
	// Events: conflicts are recorded as events (R4.3).
	Events Capability = "events"
	// Warnings: conflicts are returned as admission warnings (R4.3).
	Warnings Capability = "warnings"
	// InitContainers: init containers are injected (R3.2).
	InitContainers Capability = "initContainers"
	// EnvFromConflicts: envFrom entries conflict like any item (R4.1).
	EnvFromConflicts Capability = "envFromConflicts"
	// Rollout is this project's opt-in rollout controller
	// (internal/rollout), beyond the specification.
	Rollout Capability = "rollout"
)

// Capabilities are the capabilities a profile may claim.
var Capabilities = []Capability{Events, Warnings, InitContainers, EnvFromConflicts, Rollout}

// ScenarioCapabilities are the capabilities a scenario's tag can make it
// depend on as a whole (Unclaimed).
var ScenarioCapabilities = []Capability{Rollout}

// CanonicalFields are the PodPreset fields a profile may map.
var CanonicalFields = []string{"spec.selector", "spec.env", "spec.envFrom", "spec.volumes", "spec.volumeMounts"}

// NamePlaceholder stands for the preset's name in the applied annotation.
const NamePlaceholder = "{name}"

// Profile describes one implementation.
type Profile struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Metadata   Metadata `yaml:"metadata"`
	Spec       Spec     `yaml:"spec"`

	// File is where the profile was read from.
	File string `yaml:"-"`
	// files holds the files it names (spec.crd) when it is a shipped one,
	// embedded in the binary; nil for a profile on disk.
	files fs.FS
}

// Metadata names the profile.
type Metadata struct {
	Name string `yaml:"name"`
}

// Spec is what a profile says.
type Spec struct {
	Implementation string `yaml:"implementation"`
	Version        string `yaml:"version"`
	CRD            string `yaml:"crd"`
	// Registration names a file (relative to the profile's) holding the
	// implementation's MutatingWebhookConfiguration as it ships: an
	// external webhook is registered as it says, unless the run is given
	// --webhook-configuration (RegistrationFile).
	Registration string `yaml:"registration"`
	// NamespaceLabels are labels a namespace carries where the
	// implementation is deployed to admit its pods: its registration's
	// namespaceSelector selects them (Charmed Kubeflow's PodDefault
	// webhook, app.kubernetes.io/part-of: kubeflow-profile). The run
	// labels its namespaces with them, and a namespaceSelector they satisfy
	// is a declared difference from R5.4, stated once, not a failure.
	NamespaceLabels map[string]string `yaml:"namespaceLabels"`
	Preset          Preset            `yaml:"preset"`
	Annotations     Annotations       `yaml:"annotations"`
	// ReferenceCRD says that the implementation's API is the reference CRD
	// (presets/config/crd), which the harness installs: the R1 scenarios
	// then check it. Otherwise they check the CRD the profile names (CRD),
	// or do not apply.
	ReferenceCRD bool `yaml:"referenceCRD"`
	// Behaviour declares the implementation's design choices where they
	// depart from the specification.
	Behaviour Behaviour `yaml:"behaviour"`
	// Claims lists the capabilities claimed; nil claims them all.
	Claims []Capability `yaml:"claims"`
	// Warning is the form of the implementation's conflict warning (R4.3):
	// MessagePlaceholder stands for the specification's message, and
	// NamespacePlaceholder for the pod's namespace; MessagePlaceholder
	// alone when empty. A MutatingAdmissionPolicy's warnings come from a
	// ValidatingAdmissionPolicy, which the API server prefixes with the
	// policy's name.
	Warning string `yaml:"warning"`
	// Probe is how the harness learns that an installed implementation
	// applies a preset: "" (a dry-run pod comes back with the preset's
	// applied annotation), or ProbeCompiled (presetsim's policies: a pod
	// with the annotation presetsim.dev/probe-compiled is told what the
	// mutating and the warning policy were compiled from).
	Probe string `yaml:"probe"`
}

// ProbeCompiled is Spec.Probe of presetsim's policies.
const ProbeCompiled = "compiled"

// Placeholders of Spec.Warning.
const (
	MessagePlaceholder   = "{message}"
	NamespacePlaceholder = "{namespace}"
)

// Preset is the implementation's preset kind and field mapping.
type Preset struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Fields     map[string]string `yaml:"fields"`
}

// Annotations are the implementation's annotation keys.
type Annotations struct {
	Applied string `yaml:"applied"`
	Exclude string `yaml:"exclude"`
}

// Canonical is the profile of the specification itself.
func Canonical() *Profile {
	p := &Profile{APIVersion: APIVersion, Kind: Kind, Metadata: Metadata{Name: "canonical"}, Spec: Spec{ReferenceCRD: true}}
	p.setDefaults()
	return p
}

// Load reads and checks a profile file. Errors name the file, the line and
// the field.
func Load(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read the profile: %w", err)
	}
	return Parse(path, data)
}

// Parse reads and checks a profile; file names it in errors.
func Parse(file string, data []byte) (*Profile, error) { return parse(file, data, nil) }

// parse is Parse with the files the profile names read from files (a
// shipped profile's, embedded), or from the disk when files is nil.
func parse(file string, data []byte, files fs.FS) (*Profile, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	p := &Profile{files: files}
	if unknown := unknownKeys(&root, reflect.TypeOf(*p), ""); len(unknown) > 0 {
		return nil, problems(file, &root, unknown)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("%s: %s", file, strings.ReplaceAll(err.Error(), "yaml: unmarshal errors:\n  ", ""))
	}
	p.File = file
	if errs := p.check(); len(errs) > 0 {
		return nil, problems(file, &root, errs)
	}
	p.setDefaults()
	return p, nil
}

type problem struct{ path, msg string }

// problems is one error of every problem, a line each: file:line: path:
// message.
func problems(file string, root *yaml.Node, errs []problem) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = fmt.Sprintf("%s:%d: %s: %s", file, lineOf(root, e.path), e.path, e.msg)
	}
	return errors.New(strings.Join(msgs, "\n"))
}

func (p *Profile) check() []problem {
	var out []problem
	if p.APIVersion != APIVersion {
		out = append(out, problem{"apiVersion", fmt.Sprintf("must be %s, got %q", APIVersion, p.APIVersion)})
	}
	if p.Kind != Kind {
		out = append(out, problem{"kind", fmt.Sprintf("must be %s, got %q", Kind, p.Kind)})
	}
	if p.Metadata.Name == "" {
		out = append(out, problem{"metadata.name", "is required"})
	}
	if (p.Spec.Preset.APIVersion == "") != (p.Spec.Preset.Kind == "") {
		out = append(out, problem{"spec.preset", "apiVersion and kind go together"})
	}
	if p.Spec.Preset.APIVersion != "" {
		if gv, err := schema.ParseGroupVersion(p.Spec.Preset.APIVersion); err != nil || gv.Group == "" {
			out = append(out, problem{"spec.preset.apiVersion", fmt.Sprintf("must be group/version, got %q", p.Spec.Preset.APIVersion)})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Spec.Preset.Fields)) {
		if !slices.Contains(CanonicalFields, k) {
			out = append(out, problem{"spec.preset.fields." + k, "is not a canonical field (" + strings.Join(CanonicalFields, ", ") + ")"})
		}
		if v := p.Spec.Preset.Fields[k]; v == "" || strings.HasPrefix(v, ".") || strings.HasSuffix(v, ".") {
			out = append(out, problem{"spec.preset.fields." + k, fmt.Sprintf("must be a dotted path such as spec.podSelector, got %q", v)})
		}
	}
	if a := p.Spec.Annotations.Applied; a != "" && strings.Count(a, NamePlaceholder) != 1 {
		out = append(out, problem{"spec.annotations.applied", "must hold " + NamePlaceholder + " once, e.g. example.com/applied-{name}"})
	}
	if w := p.Spec.Warning; w != "" {
		rest := strings.ReplaceAll(strings.Replace(w, MessagePlaceholder, "", 1), NamespacePlaceholder, "")
		if strings.Count(w, MessagePlaceholder) != 1 || strings.Contains(rest, "{") {
			out = append(out, problem{"spec.warning", fmt.Sprintf("must hold %s once and no placeholder but %s, e.g. \"conflict: %s\"", MessagePlaceholder, NamespacePlaceholder, MessagePlaceholder)})
		}
	}
	if p.Spec.Probe != "" && p.Spec.Probe != ProbeCompiled {
		out = append(out, problem{"spec.probe", fmt.Sprintf("must be empty or %q, got %q", ProbeCompiled, p.Spec.Probe)})
	}
	for i, c := range p.Spec.Claims {
		if !slices.Contains(Capabilities, c) {
			out = append(out, problem{fmt.Sprintf("spec.claims[%d]", i), fmt.Sprintf("unknown capability %q (known: %s)", c, capabilityList())})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Spec.NamespaceLabels)) {
		path := fmt.Sprintf("spec.namespaceLabels[%q]", k)
		if strings.HasPrefix(k, "presetsim.dev/") {
			out = append(out, problem{path, "presetsim.dev/ labels are the run's own"})
			continue
		}
		for _, msg := range validation.IsQualifiedName(k) {
			out = append(out, problem{path, "not a label key: " + msg})
		}
		for _, msg := range validation.IsValidLabelValue(p.Spec.NamespaceLabels[k]) {
			out = append(out, problem{path, "not a label value: " + msg})
		}
	}
	out = append(out, p.checkBehaviour()...)
	if p.Spec.CRD != "" {
		if _, err := p.withPreset().CRD(); err != nil {
			out = append(out, problem{"spec.crd", err.Error()})
		}
	}
	if p.Spec.Registration != "" {
		if _, _, err := p.RegistrationFile(); err != nil {
			out = append(out, problem{"spec.registration", err.Error()})
		}
	}
	return out
}

// withPreset is a copy of p with its preset defaulted, as setDefaults
// gives it, for checks that run before the defaults.
func (p *Profile) withPreset() *Profile {
	c := *p
	c.Spec.Preset.setDefaults()
	return &c
}

// setDefaults makes an unset preset the canonical PodPreset.
func (pr *Preset) setDefaults() {
	if pr.APIVersion == "" {
		pr.APIVersion, pr.Kind = v1alpha1.SchemeGroupVersion.String(), "PodPreset"
	}
}

func (p *Profile) setDefaults() {
	// A content capability left unclaimed is a variant of the model, so
	// that its scenarios still run and check the rest.
	b := &p.Spec.Behaviour
	if b.InitContainers == "" && p.Spec.Claims != nil && !slices.Contains(p.Spec.Claims, InitContainers) {
		b.InitContainers = InitUntouched
	}
	if b.EnvFrom == "" && p.Spec.Claims != nil && !slices.Contains(p.Spec.Claims, EnvFromConflicts) {
		b.EnvFrom = EnvFromAppended
	}
	p.Spec.Behaviour.setDefaults()
	p.Spec.Preset.setDefaults()
	if p.Spec.Annotations.Applied == "" {
		p.Spec.Annotations.Applied = merge.AnnotationKey(NamePlaceholder)
	}
	if p.Spec.Annotations.Exclude == "" {
		p.Spec.Annotations.Exclude = merge.ExcludeAnnotation
	}
	if p.Spec.Claims == nil {
		p.Spec.Claims = slices.Clone(Capabilities)
	}
	if p.Spec.Warning == "" {
		p.Spec.Warning = MessagePlaceholder
	}
}

// Warning is the warning the implementation returns for the
// specification's message, for a pod of namespace (physical).
func (p *Profile) Warning(namespace, message string) string {
	return strings.ReplaceAll(strings.Replace(p.Spec.Warning, MessagePlaceholder, message, 1), NamespacePlaceholder, namespace)
}

// CRDPath is the CRD file, relative paths taken from the profile's folder;
// empty when the profile names none.
func (p *Profile) CRDPath() string {
	if p.Spec.CRD == "" || filepath.IsAbs(p.Spec.CRD) {
		return p.Spec.CRD
	}
	return filepath.Join(filepath.Dir(p.File), p.Spec.CRD)
}

// RegistrationFile reads the file spec.registration names (relative to
// the profile's own, or from a shipped profile's files): its path and
// content; "" and nil when the profile names none.
func (p *Profile) RegistrationFile() (string, []byte, error) {
	path := p.Spec.Registration
	if path == "" {
		return "", nil, nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(p.File), path)
	}
	read := os.ReadFile
	if p.files != nil {
		read = func(name string) ([]byte, error) { return fs.ReadFile(p.files, filepath.ToSlash(name)) }
	}
	data, err := read(path)
	if err != nil {
		return path, nil, fmt.Errorf("unable to read the profile's registration: %w", err)
	}
	return path, data, nil
}

// Claims reports whether the profile claims the capability.
func (p *Profile) Claims(c Capability) bool { return slices.Contains(p.Spec.Claims, c) }

// capabilityList is the capabilities, for a message.
func capabilityList() string {
	names := make([]string, len(Capabilities))
	for i, c := range Capabilities {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// Unclaimed returns the first capability among a scenario's tags
// ("@rollout") that the profile does not claim and that decides whether the
// scenario can run at all. The others never stop a scenario: an unclaimed
// events or warnings capability stops only the checks that need it
// (decided by the check), and an unclaimed content capability
// (initContainers, envFromConflicts) is a variant of the model the
// scenario's pods are checked against.
func (p *Profile) Unclaimed(tags []string) (Capability, bool) {
	for _, t := range tags {
		c := Capability(strings.TrimPrefix(t, "@"))
		if slices.Contains(ScenarioCapabilities, c) && !p.Claims(c) {
			return c, true
		}
	}
	return "", false
}

// PresetGVK is the implementation's preset kind.
func (p *Profile) PresetGVK() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(p.Spec.Preset.APIVersion, p.Spec.Preset.Kind)
}

// AppliedKey is the annotation the implementation writes for a preset.
func (p *Profile) AppliedKey(name string) string {
	return strings.Replace(p.Spec.Annotations.Applied, NamePlaceholder, name, 1)
}

// AppliedPrefix is the part of the applied key before the name.
func (p *Profile) AppliedPrefix() string {
	prefix, _, _ := strings.Cut(p.Spec.Annotations.Applied, NamePlaceholder)
	return prefix
}

// AnnotationPrefix is the applied key's prefix up to its last '/': the
// implementation's annotation domain ("podpreset.admission.kubernetes.io/").
// A pod must carry no unexpected annotation under it.
func (p *Profile) AnnotationPrefix() string {
	prefix := p.AppliedPrefix()
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		return prefix[:i+1]
	}
	return prefix
}

// Annotations translates canonical annotation keys (podpreset-<name>,
// exclude) into the implementation's; other keys stay.
func (p *Profile) Annotations(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		switch name, ok := strings.CutPrefix(k, merge.AnnotationKey("")); {
		case k == merge.ExcludeAnnotation:
			out[p.Spec.Annotations.Exclude] = v
		case ok:
			out[p.AppliedKey(name)] = v
		default:
			out[k] = v
		}
	}
	return out
}

// Preset translates a canonical PodPreset into the implementation's object:
// its apiVersion and kind, and each mapped field moved to its path.
func (p *Profile) Preset(canonical *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	out := canonical.DeepCopy()
	out.SetAPIVersion(p.Spec.Preset.APIVersion)
	out.SetKind(p.Spec.Preset.Kind)
	for _, from := range slices.Sorted(maps.Keys(p.Spec.Preset.Fields)) {
		v, found, err := unstructured.NestedFieldNoCopy(out.Object, strings.Split(from, ".")...)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		unstructured.RemoveNestedField(out.Object, strings.Split(from, ".")...)
		if err := unstructured.SetNestedField(out.Object, v, strings.Split(p.Spec.Preset.Fields[from], ".")...); err != nil {
			return nil, fmt.Errorf("profile %s: unable to set %s: %w", p.Metadata.Name, p.Spec.Preset.Fields[from], err)
		}
	}
	return out, nil
}

// CanonicalPresets translates the implementation's preset objects into
// typed canonical PodPresets (CanonicalPreset), by namespace and name.
func (p *Profile) CanonicalPresets(own []unstructured.Unstructured) ([]*v1alpha1.PodPreset, error) {
	out := make([]*v1alpha1.PodPreset, 0, len(own))
	for i := range own {
		canonical, err := p.CanonicalPreset(&own[i])
		if err != nil {
			return nil, err
		}
		preset := &v1alpha1.PodPreset{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(canonical.Object, preset); err != nil {
			return nil, fmt.Errorf("%s %s/%s: %w", p.PresetGVK().Kind, own[i].GetNamespace(), own[i].GetName(), err)
		}
		out = append(out, preset)
	}
	slices.SortFunc(out, func(a, b *v1alpha1.PodPreset) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return out, nil
}

// CanonicalPreset translates the implementation's preset object back into
// a canonical PodPreset (settings.k8s.io/v1alpha1): the reverse of Preset.
func (p *Profile) CanonicalPreset(own *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	out := own.DeepCopy()
	out.SetAPIVersion(v1alpha1.SchemeGroupVersion.String())
	out.SetKind("PodPreset")
	for _, from := range slices.Sorted(maps.Keys(p.Spec.Preset.Fields)) {
		to := strings.Split(p.Spec.Preset.Fields[from], ".")
		v, found, err := unstructured.NestedFieldNoCopy(out.Object, to...)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		unstructured.RemoveNestedField(out.Object, to...)
		if err := unstructured.SetNestedField(out.Object, v, strings.Split(from, ".")...); err != nil {
			return nil, fmt.Errorf("profile %s: unable to set %s: %w", p.Metadata.Name, from, err)
		}
	}
	return out, nil
}

// Message translates the canonical field paths in an expected message
// (spec.selector) into the implementation's (spec.podSelector).
func (p *Profile) Message(text string) string {
	for _, from := range slices.Sorted(maps.Keys(p.Spec.Preset.Fields)) {
		text = strings.ReplaceAll(text, from, p.Spec.Preset.Fields[from])
	}
	return text
}

// SelectorPath is where the implementation's preset keeps its selector.
func (p *Profile) SelectorPath() []string {
	if to, ok := p.Spec.Preset.Fields["spec.selector"]; ok {
		return strings.Split(to, ".")
	}
	return []string{"spec", "selector"}
}

// lineOf finds the line of a dotted path (with [i] indexes) in a YAML tree;
// the closest existing parent's line when the path is not there.
func lineOf(root *yaml.Node, path string) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, seg := range splitPath(path) {
		next := (*yaml.Node)(nil)
		switch {
		case n.Kind == yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == seg.key {
					line, next = n.Content[i].Line, n.Content[i+1]
				}
			}
		case n.Kind == yaml.SequenceNode && seg.index >= 0 && seg.index < len(n.Content):
			next = n.Content[seg.index]
			line = next.Line
		}
		if next == nil {
			return line
		}
		n = next
	}
	return line
}

type pathSeg struct {
	key   string
	index int
}

// splitPath splits a field path such as spec.claims[1] or
// spec.namespaceLabels["example.com/team"] (a key with dots, quoted).
func splitPath(path string) []pathSeg {
	var out []pathSeg
	for path != "" {
		switch {
		case strings.HasPrefix(path, "[\""):
			key, rest, _ := strings.Cut(path[2:], "\"]")
			out, path = append(out, pathSeg{key: key, index: -1}), rest
		case strings.HasPrefix(path, "["):
			var i int
			if _, err := fmt.Sscanf(path, "[%d]", &i); err == nil {
				out = append(out, pathSeg{index: i})
			}
			_, path, _ = strings.Cut(path, "]")
		case strings.HasPrefix(path, "."):
			path = path[1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			out, path = append(out, pathSeg{key: path[:end], index: -1}), path[end:]
		}
	}
	return out
}

// Shipped parses a profile shipped with presetsim by file name
// (policy.yaml); messages name it profiles/NAME.
func Shipped(name string) (*Profile, error) {
	data, err := fs.ReadFile(presetsim.Profiles, "profiles/"+name)
	if err != nil {
		return nil, err
	}
	return parse("profiles/"+name, data, presetsim.Profiles) // its CRD too, from any directory
}
