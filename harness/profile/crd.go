package profile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// CRD reads the CustomResourceDefinition the profile names (spec.crd) and
// checks that it serves the profile's preset: its group, kind and a served
// version. It returns nil, nil when the profile names none.
func (p *Profile) CRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	path := p.CRDPath()
	if path == "" {
		return nil, nil
	}
	read := os.ReadFile
	if p.files != nil {
		read = func(name string) ([]byte, error) { return fs.ReadFile(p.files, filepath.ToSlash(name)) }
	}
	data, err := read(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read the profile's CRD: %w", err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if crd.Kind != "CustomResourceDefinition" {
		return nil, fmt.Errorf("%s: expected a CustomResourceDefinition, got kind %q", path, crd.Kind)
	}
	gvk := p.PresetGVK()
	if crd.Spec.Group != gvk.Group || crd.Spec.Names.Kind != gvk.Kind {
		return nil, fmt.Errorf("%s: defines %s in group %q, but spec.preset is %s %s", path, crd.Spec.Names.Kind, crd.Spec.Group, p.Spec.Preset.APIVersion, p.Spec.Preset.Kind)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == gvk.Version && v.Served {
			return crd, nil
		}
	}
	return nil, fmt.Errorf("%s: serves no version %q of %s", path, gvk.Version, gvk.Kind)
}
