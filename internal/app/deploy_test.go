package app

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/internal/registry"
)

// TestDeployManifests: the workloads of deploy/ run commands this binary
// accepts — each container's args name a command, flags it has, a backend
// that exists, a shipped profile and a shard it can read — in the image
// that kustomize's images: rewrites, as a service account that the same
// folder's RBAC creates. What they may do in a cluster is make test-kind's
// to show (hack/kind/conformance.sh).
func TestDeployManifests(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "2")
	files, err := filepath.Glob("../../deploy/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../deploy/*/*/*.yaml")
	files = append(files, more...)
	accounts := map[string]bool{} // namespace/name
	type workload struct {
		file string
		ns   string
		spec corev1.PodSpec
	}
	var workloads []workload
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
		for {
			doc, err := docs.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var head struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal(doc, &head); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			switch head.Kind {
			case "ServiceAccount":
				accounts[head.Metadata.Namespace+"/"+head.Metadata.Name] = true
			case "Job":
				var j batchv1.Job
				if err := yaml.UnmarshalStrict(doc, &j); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				workloads = append(workloads, workload{f, j.Namespace, j.Spec.Template.Spec})
			case "Deployment":
				var d appsv1.Deployment
				if err := yaml.UnmarshalStrict(doc, &d); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				workloads = append(workloads, workload{f, d.Namespace, d.Spec.Template.Spec})
			}
		}
	}
	if len(workloads) < 3 {
		t.Fatalf("%d workloads in deploy/, want the policy controller and the two conformance Jobs", len(workloads))
	}
	backends := registry.Backends().Names()
	for _, w := range workloads {
		if !accounts[w.ns+"/"+w.spec.ServiceAccountName] {
			t.Errorf("%s: service account %s/%s is not created in deploy/", w.file, w.ns, w.spec.ServiceAccountName)
		}
		for _, c := range w.spec.Containers {
			if c.Image != "presetsim" {
				t.Errorf("%s: image %q, want presetsim (kustomize's images: sets the tag)", w.file, c.Image)
			}
			// $(JOB_COMPLETION_INDEX) is the kubelet's to expand.
			args := make([]string, len(c.Args))
			for i, a := range c.Args {
				args[i] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", "2")
			}
			root := newRootCommand(strings.NewReader(""), io.Discard, io.Discard)
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == root {
				t.Errorf("%s: args %q name no command: %v", w.file, c.Args, err)
				continue
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: args %q: %v", w.file, c.Args, err)
				continue
			}
			if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
				t.Errorf("%s: args %q: %v", w.file, c.Args, err)
			}
			fs := cmd.Flags()
			if b := fs.Lookup("backend"); b != nil && b.Changed && !slices.Contains(backends, b.Value.String()) {
				t.Errorf("%s: --backend %s is none of %v", w.file, b.Value, backends)
			}
			if p := fs.Lookup("profile"); p != nil && p.Changed {
				if _, err := loadProfile(p.Value.String()); err != nil {
					t.Errorf("%s: %v", w.file, err)
				}
			}
			if s := fs.Lookup("shard"); s != nil && s.Changed {
				if i, n, err := parseShard(s.Value.String()); err != nil || i != 3 || n != 3 {
					t.Errorf("%s: --shard %s in the pod of index 2 is shard %d/%d (%v), want 3/3", w.file, s.Value, i, n, err)
				}
			}
		}
	}
}

// TestLoadProfile: --profile takes a file, or the name of a shipped
// profile, which a binary far from the repository still has.
func TestLoadProfile(t *testing.T) {
	tests := []struct {
		name, arg, wantImpl, wantErr string
	}{
		{name: "a shipped profile by name", arg: "policy", wantImpl: "presetsim PodPreset as a MutatingAdmissionPolicy"},
		{name: "a shipped profile by file name", arg: "policy.yaml", wantImpl: "presetsim PodPreset as a MutatingAdmissionPolicy"},
		{name: "a file", arg: "../../profiles/policy.yaml", wantImpl: "presetsim PodPreset as a MutatingAdmissionPolicy"},
		{name: "neither", arg: "polcy", wantErr: "no such file, and no shipped profile of that name (kubeflow-poddefault, kubernetes-1.19, policy"},
		{name: "a missing file is not looked up by name", arg: "profiles/policy.yaml", wantErr: "profiles/policy.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := loadProfile(tt.arg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || p.Spec.Implementation != tt.wantImpl {
				t.Fatalf("got %v, %v; want the profile of %q", p, err, tt.wantImpl)
			}
		})
	}
}
