package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
)

// ReadManifests reads the objects of -f arguments as kubectl does: a file,
// "-" for standard input, or a folder (its .yaml, .yml and .json files, not
// its subfolders, in name order); and, when no such file exists here, a
// file or folder as it stood at a git revision, written REV:PATH as git
// show reads it (see revisionFiles). It returns every problem at once, each
// with its file, line and field: YAML and schema errors, and presets the
// specification refuses (model.Validate: an invalid selector, nothing to
// inject, ...). An input with no object at all is an error too.
func ReadManifests(args []string, stdin io.Reader) ([]manifest.Object, error) {
	var objs []manifest.Object
	if err := ScanManifests(args, stdin, func(o manifest.Object) { objs = append(objs, o) }); err != nil {
		return nil, err
	}
	return objs, nil
}

// ScanManifests reads what ReadManifests does and hands each object to
// visit, in order, instead of keeping them: a file's documents are decoded
// on every core, and what the input costs in memory is what visit keeps
// (and the files' text). It returns every problem ReadManifests would; the
// objects without one are visited all the same.
func ScanManifests(args []string, stdin io.Reader, visit func(manifest.Object)) error {
	files, err := expand(args)
	if err != nil {
		return err
	}
	var errs []error
	seen := 0
	for _, f := range files {
		name, data, err := f.read(stdin)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		err = manifest.DecodeEach(manifest.Source{File: name, Line: 1}, string(data), manifest.Scheme(), runtime.GOMAXPROCS(0), func(o manifest.Object) []*manifest.Error {
			seen++
			if invalid := invalidPreset(o); len(invalid) > 0 {
				return invalid
			}
			visit(o)
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if seen == 0 {
		return fmt.Errorf("no object in %s", strings.Join(args, ", "))
	}
	return nil
}

// invalidPreset returns why the specification refuses the object, when it
// is a preset.
func invalidPreset(o manifest.Object) []*manifest.Error {
	p, ok := o.Object.(*v1alpha1.PodPreset)
	if !ok {
		return nil
	}
	var errs []*manifest.Error
	for _, inv := range model.Validate(p) {
		errs = append(errs, o.ErrorAt(inv.Err.Field, fmt.Sprintf("%s (%s)", inv.Err.ErrorBody(), inv.Rule)))
	}
	return errs
}

// input is one manifest file to read: a file, "-", or REV:PATH.
type input struct {
	name     string
	revision bool
}

func (in input) read(stdin io.Reader) (string, []byte, error) {
	if in.revision {
		b, err := readRevisionFile(in.name)
		return in.name, b, err
	}
	return ReadFile(in.name, stdin)
}

// expand replaces each folder argument by its manifest files, and each
// REV:PATH argument that is no file here by the files it names in git.
func expand(args []string) ([]input, error) {
	var out []input
	for _, a := range args {
		if a == "-" {
			out = append(out, input{name: a})
			continue
		}
		info, err := os.Stat(a)
		if _, _, rev := splitRevision(a); err != nil && rev {
			files, err := revisionFiles(a)
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				out = append(out, input{name: f, revision: true})
			}
			continue
		}
		if err != nil || !info.IsDir() {
			out = append(out, input{name: a}) // ReadFile says what is wrong
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, fmt.Errorf("unable to read the folder %s: %w", a, err)
		}
		var found []input
		for _, e := range entries {
			if !e.IsDir() && slices.Contains([]string{".yaml", ".yml", ".json"}, filepath.Ext(e.Name())) {
				found = append(found, input{name: filepath.Join(a, e.Name())})
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no .yaml, .yml or .json file in the folder %s", a)
		}
		out = append(out, found...) // ReadDir sorts by name
	}
	return out, nil
}
