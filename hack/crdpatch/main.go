// Command crdpatch adds to the generated PodPreset CRD the validation that
// controller-gen markers cannot express, because it sits on fields of
// Kubernetes' own core/v1 and meta/v1 types (R1.3, R1.5, R1.6). Where the schema can say a rule
// (a pattern, a length), it does, so the API server names the exact field
// path; CEL is kept for rules across fields. Run by hack/generate.sh.
package main

import (
	"bytes"
	"fmt"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

const (
	// dns1123Label is what volume names must match (as for a pod's volumes).
	dns1123Label = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// envVarName is Kubernetes' relaxed environment variable name (GA and
	// locked since 1.34): printable ASCII except '='.
	envVarName = `^[ -<>-~]+$`
	// envVarPrefix is the same, possibly empty.
	envVarPrefix = `^[ -<>-~]*$`
	// labelKey is a qualified name (a label key), as metav1 validates a
	// selector's keys: an optional DNS-subdomain prefix and "/", then a name
	// part of at most 63 characters. The prefix's own limit of 253
	// characters is left to maxLength on the whole key.
	labelKey = `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`
	// labelValue is a label value: empty, or at most 63 characters.
	labelValue = `^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$`
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crdpatch <crd.yaml>")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "crdpatch: %v\n", err)
		os.Exit(1)
	}
}

func run(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(bytes.TrimPrefix(data, []byte("---\n")), crd); err != nil {
		return fmt.Errorf("unable to read %s: %w", path, err)
	}
	for i := range crd.Spec.Versions {
		if err := patch(crd.Spec.Versions[i].Schema.OpenAPIV3Schema); err != nil {
			return fmt.Errorf("%s: version %s: %w", path, crd.Spec.Versions[i].Name, err)
		}
	}
	out, err := yaml.Marshal(crd)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte("---\n"), out...), 0o644)
}

func patch(root *apiextensionsv1.JSONSchemaProps) error {
	maxName := int64(v1alpha1.MaxNameLength)
	// R1.6: only metadata.name and generateName may be constrained in a CRD.
	root.Properties["metadata"] = apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"name": {Type: "string", MaxLength: &maxName},
		},
	}
	spec, ok := root.Properties["spec"]
	if !ok {
		return fmt.Errorf("no spec in schema")
	}
	label := int64(63)
	one := int64(1)
	edits := []struct {
		list, field string
		edit        func(*apiextensionsv1.JSONSchemaProps)
	}{
		{"volumes", "name", func(p *apiextensionsv1.JSONSchemaProps) { p.MaxLength, p.Pattern = &label, dns1123Label }},
		{"volumeMounts", "name", func(p *apiextensionsv1.JSONSchemaProps) { p.MaxLength = &label }},
		{"env", "name", func(p *apiextensionsv1.JSONSchemaProps) { p.MinLength, p.Pattern = &one, envVarName }},
		{"envFrom", "prefix", func(p *apiextensionsv1.JSONSchemaProps) { p.Pattern = envVarPrefix }},
	}
	for _, e := range edits {
		list, ok := spec.Properties[e.list]
		if !ok || list.Items == nil || list.Items.Schema == nil {
			return fmt.Errorf("no spec.%s items in schema", e.list)
		}
		field, ok := list.Items.Schema.Properties[e.field]
		if !ok {
			return fmt.Errorf("no spec.%s[].%s in schema", e.list, e.field)
		}
		e.edit(&field)
		list.Items.Schema.Properties[e.field] = field
		spec.Properties[e.list] = list
	}
	envFrom := spec.Properties["envFrom"]
	envFrom.Items.Schema.XValidations = append(envFrom.Items.Schema.XValidations, apiextensionsv1.ValidationRule{
		Rule:    "has(self.configMapRef) != has(self.secretRef)",
		Message: "must set exactly one of configMapRef or secretRef",
	})
	spec.Properties["envFrom"] = envFrom

	// R1.5, per mount: it names a volume of the preset, and its name is
	// unique within the preset. One rule per index: the CEL cost estimator
	// loses the size of strings taken from filter() results, so a single
	// rule whose message names the offending index is rejected as too
	// expensive, while indexing the list directly is cheap. A duplicate
	// name's rule names every mount of a name others have too; its reason
	// is FieldValueInvalid, since the API server words a FieldValueDuplicate
	// without the message, and so without the index. The rules of each
	// check stay together, every index of one before the other's.
	mounts := spec.Properties["volumeMounts"]
	if mounts.MaxItems == nil {
		return fmt.Errorf("spec.volumeMounts has no maxItems")
	}
	var named, unique []apiextensionsv1.ValidationRule
	for i := int64(0); i < *mounts.MaxItems; i++ {
		present := fmt.Sprintf("!has(self.volumeMounts) || size(self.volumeMounts) <= %d || ", i)
		named = append(named, apiextensionsv1.ValidationRule{
			Rule:              present + fmt.Sprintf("(has(self.volumes) && self.volumes.exists(v, v.name == self.volumeMounts[%d].name))", i),
			MessageExpression: fmt.Sprintf(`'spec.volumeMounts[%d].name: "' + self.volumeMounts[%d].name + '" does not name a volume of this preset'`, i, i),
			FieldPath:         ".volumeMounts",
			Reason:            &fieldValueInvalid,
		})
		unique = append(unique, apiextensionsv1.ValidationRule{
			Rule:              present + fmt.Sprintf("self.volumeMounts.exists_one(m, m.name == self.volumeMounts[%d].name)", i),
			MessageExpression: fmt.Sprintf(`'spec.volumeMounts[%d].name: Duplicate value: "' + self.volumeMounts[%d].name + '"'`, i, i),
			FieldPath:         ".volumeMounts",
			Reason:            &fieldValueInvalid,
		})
	}
	spec.XValidations = append(append(spec.XValidations, named...), unique...)
	if err := patchEnvFromKeys(&spec); err != nil {
		return err
	}
	if err := patchSelector(&spec); err != nil {
		return err
	}
	root.Properties["spec"] = spec
	return nil
}

// maxPrefix bounds an envFrom entry's prefix, which Kubernetes does not:
// the API server refuses a CEL rule whose estimated cost is unbounded, and
// the rules that keep envFrom keys unique compare prefixes.
const maxPrefix = 1024

// maxObjectName is the longest name a ConfigMap or Secret may have (a
// DNS-1123 subdomain), which a pod's envFrom entry is held to as well.
const maxObjectName = 253

// patchEnvFromKeys keeps envFrom keys unique within a preset (R1.5): the key
// is R3.5's, the prefix and the name of the ConfigMap or of the Secret,
// each empty when absent (merge.EnvFromKey). One rule per index, which
// names every entry whose key others have too; the strings compared are
// bounded, so that the API server can bound the rules' cost.
func patchEnvFromKeys(spec *apiextensionsv1.JSONSchemaProps) error {
	envFrom := spec.Properties["envFrom"]
	if envFrom.MaxItems == nil || envFrom.Items == nil || envFrom.Items.Schema == nil {
		return fmt.Errorf("spec.envFrom has no maxItems or items")
	}
	item := envFrom.Items.Schema
	prefixLen, nameLen := int64(maxPrefix), int64(maxObjectName)
	prefix := item.Properties["prefix"]
	prefix.MaxLength = &prefixLen
	item.Properties["prefix"] = prefix
	for _, source := range []string{"configMapRef", "secretRef"} {
		ref, ok := item.Properties[source]
		if !ok {
			return fmt.Errorf("no spec.envFrom[].%s in schema", source)
		}
		name, ok := ref.Properties["name"]
		if !ok {
			return fmt.Errorf("no spec.envFrom[].%s.name in schema", source)
		}
		name.MaxLength = &nameLen
		ref.Properties["name"] = name
		item.Properties[source] = ref
	}
	spec.Properties["envFrom"] = envFrom
	key := func(e string) string {
		return fmt.Sprintf("[has(%[1]s.prefix) ? %[1]s.prefix : '', "+
			"has(%[1]s.configMapRef) && has(%[1]s.configMapRef.name) ? %[1]s.configMapRef.name : '', "+
			"has(%[1]s.secretRef) && has(%[1]s.secretRef.name) ? %[1]s.secretRef.name : '']", e)
	}
	for i := int64(0); i < *envFrom.MaxItems; i++ {
		at := fmt.Sprintf("self.envFrom[%d]", i)
		spec.XValidations = append(spec.XValidations, apiextensionsv1.ValidationRule{
			Rule: fmt.Sprintf("!has(self.envFrom) || size(self.envFrom) <= %d || "+
				"self.envFrom.exists_one(e, %s == %s)", i, key("e"), key(at)),
			Message:   fmt.Sprintf("spec.envFrom[%d]: Duplicate value: another entry has its prefix and source name", i),
			FieldPath: ".envFrom",
			Reason:    &fieldValueInvalid,
		})
	}
	return nil
}

// patchSelector makes the selector a valid label selector (R1.3), as
// metav1's validation says: known operators, values exactly when the
// operator needs them, valid keys and values.
func patchSelector(spec *apiextensionsv1.JSONSchemaProps) error {
	sel, ok := spec.Properties["selector"]
	if !ok {
		return fmt.Errorf("no spec.selector in schema")
	}
	exprs, ok := sel.Properties["matchExpressions"]
	if !ok || exprs.Items == nil || exprs.Items.Schema == nil {
		return fmt.Errorf("no spec.selector.matchExpressions items in schema")
	}
	req := exprs.Items.Schema
	keyLen, valueLen, maxItems := int64(317), int64(63), int64(64)
	key := req.Properties["key"]
	key.Pattern, key.MaxLength = labelKey, &keyLen
	req.Properties["key"] = key
	op := req.Properties["operator"]
	op.Enum = nil
	for _, o := range []string{"In", "NotIn", "Exists", "DoesNotExist"} {
		op.Enum = append(op.Enum, apiextensionsv1.JSON{Raw: []byte(`"` + o + `"`)})
	}
	req.Properties["operator"] = op
	values := req.Properties["values"]
	values.MaxItems = &maxItems
	values.Items.Schema.Pattern, values.Items.Schema.MaxLength = labelValue, &valueLen
	req.Properties["values"] = values
	req.XValidations = append(req.XValidations,
		apiextensionsv1.ValidationRule{
			Rule:      "!(self.operator in ['In', 'NotIn']) || (has(self.values) && size(self.values) > 0)",
			Message:   "must be specified when `operator` is 'In' or 'NotIn'",
			FieldPath: ".values", Reason: &fieldValueRequired,
		},
		apiextensionsv1.ValidationRule{
			Rule:      "!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || size(self.values) == 0",
			Message:   "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
			FieldPath: ".values", Reason: &fieldValueForbidden,
		})
	exprs.MaxItems = &maxItems
	sel.Properties["matchExpressions"] = exprs
	labels, ok := sel.Properties["matchLabels"]
	if !ok || labels.AdditionalProperties == nil || labels.AdditionalProperties.Schema == nil {
		return fmt.Errorf("no spec.selector.matchLabels values in schema")
	}
	labels.AdditionalProperties.Schema.Pattern, labels.AdditionalProperties.Schema.MaxLength = labelValue, &valueLen
	labels.MaxProperties = &maxItems
	// A map's keys have no schema: CEL checks them.
	labels.XValidations = append(labels.XValidations, apiextensionsv1.ValidationRule{
		Rule:              fmt.Sprintf("self.all(k, size(k) <= %d && k.matches(%q))", keyLen, labelKey),
		MessageExpression: fmt.Sprintf("'invalid label key: ' + self.filter(k, !(size(k) <= %d && k.matches(%q)))[0]", keyLen, labelKey),
	})
	sel.Properties["matchLabels"] = labels
	spec.Properties["selector"] = sel
	return nil
}

var (
	fieldValueInvalid   = apiextensionsv1.FieldValueInvalid
	fieldValueRequired  = apiextensionsv1.FieldValueRequired
	fieldValueForbidden = apiextensionsv1.FieldValueForbidden
)
