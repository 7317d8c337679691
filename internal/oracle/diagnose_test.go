package oracle

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/model"
	"presetsim.dev/presetsim/rule"
)

// observe is what an implementation that makes the given outcomes of the
// dry run and of the create shows: the pods, the warnings, the events.
func observe(presets []*v1alpha1.PodPreset, pod *corev1.Pod, dry, create model.Outcome) Observed {
	req := func(o model.Outcome) Request { return Request{Pod: o.Pod, Warnings: o.Warnings} }
	return Observed{Presets: presets, Pod: pod, DryRun: req(dry), Create: req(create), Events: append(dry.Events, create.Events...)}
}

// faulty admits as the model does under other options, input or output.
func faulty(presets []*v1alpha1.PodPreset, pod *corev1.Pod, opts model.Options, edit func(*model.Admission), after func(*model.Outcome)) Observed {
	admit := func(dryRun bool) model.Outcome {
		a := model.Admission{Presets: presets, Pod: defaults.Pod(pod), DryRun: dryRun}
		if edit != nil {
			edit(&a)
		}
		o := model.Admit(a, opts)[0]
		if after != nil {
			after(&o)
		}
		return o
	}
	return observe(presets, pod, admit(true), admit(false))
}

func preset(name string, env ...corev1.EnvVar) *v1alpha1.PodPreset {
	return &v1alpha1.PodPreset{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: "7"},
		Spec: v1alpha1.PodPresetSpec{Selector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Env: env}}
}

func webPod(annotations map[string]string, containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "website", Namespace: "default", Labels: map[string]string{"app": "web"}, Annotations: annotations},
		Spec: corev1.PodSpec{Containers: containers}}
}

// TestDiagnose: an implementation made to depart from the specification
// one way is diagnosed as that way, its rule first; one that does what the
// specification says is explained by no hypothesis.
func TestDiagnose(t *testing.T) {
	w := &harness.World{Profile: profile.Canonical()}
	app := corev1.Container{Name: "app", Image: "nginx", Env: []corev1.EnvVar{{Name: "PORT", Value: "80"}}}
	init := corev1.Container{Name: "init", Image: "busybox"}
	side := corev1.Container{Name: "side", Image: "envoy"}
	db := preset("db", corev1.EnvVar{Name: "DB", Value: "postgres"})
	clash := preset("clash", corev1.EnvVar{Name: "PORT", Value: "8080"})
	side2, side3 := corev1.Container{Name: "side2", Image: "envoy"}, corev1.Container{Name: "side3", Image: "envoy"}
	var settings []corev1.EnvVar
	for i := range 20 {
		settings = append(settings, corev1.EnvVar{Name: fmt.Sprintf("SETTING_%02d", i), Value: "x"})
	}
	many := preset("many", settings...)
	lower := corev1.Container{Name: "app", Image: "nginx", Env: []corev1.EnvVar{{Name: "db", Value: "sqlite"}}}
	mounted := func(name, volume string) *v1alpha1.PodPreset {
		p := preset(name)
		p.Spec.VolumeMounts = []corev1.VolumeMount{{Name: volume, MountPath: "/etc/conf"}}
		p.Spec.Volumes = []corev1.Volume{{Name: volume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		return p
	}
	confApp := corev1.Container{Name: "app", Image: "nginx", VolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/etc/conf"}}}
	fromCM := func(prefix string) []corev1.EnvFromSource {
		return []corev1.EnvFromSource{{Prefix: prefix, ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-a"}}}}
	}
	prefixedApp := corev1.Container{Name: "app", Image: "nginx", EnvFrom: fromCM("Q_")}
	prefixed := preset("prefixed")
	prefixed.Spec.EnvFrom = append(fromCM("P_"), corev1.EnvFromSource{Prefix: "P_", SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}}})
	hostIP := corev1.EnvVar{Name: "HOST_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.hostIP"}}}
	hostApp := corev1.Container{Name: "app", Image: "nginx", Env: []corev1.EnvVar{hostIP}}
	twoEnv := corev1.Container{Name: "app", Image: "nginx", Env: []corev1.EnvVar{{Name: "PORT", Value: "80"}, {Name: "LOG", Value: "debug"}}}
	// A name no casing changes.
	digits := corev1.Container{Name: "app", Image: "nginx", Env: []corev1.EnvVar{{Name: "_9", Value: "9"}}}
	unselected := preset("zz", corev1.EnvVar{Name: "ZZ", Value: "1"})
	unselected.Spec.Selector.MatchLabels = map[string]string{"app": "batch"}
	queue0 := preset("queue", corev1.EnvVar{Name: "QUEUE", Value: "rabbit"})
	queue := preset("queue", corev1.EnvVar{Name: "QUEUE", Value: "rabbit"})
	queue.Namespace = "default-x7k2"
	// A volume the API server defaults in a pod (defaultMode, the
	// fieldRef's apiVersion), as real implementations' presets hold it.
	labelsVolume := preset("labels")
	labelsVolume.Spec.Volumes = []corev1.Volume{{Name: "v-1", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
		Items: []corev1.DownwardAPIVolumeFile{{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}}}
	// Of the same name in another namespace, and in conflict with the pod.
	foreignLabels := labelsVolume.DeepCopy()
	foreignLabels.Namespace = "default-x7k2"
	foreignLabels.Spec.Volumes = []corev1.Volume{{Name: "v-1", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	imageVolume := preset("tools")
	imageVolume.Spec.Volumes = []corev1.Volume{{Name: "tools", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "registry.example/tools:1.2"}}}}
	// A preset whose volume shares the pod's own volume's name, and two
	// presets that conflict: an implementation that drops the pod's
	// shadowed items then finds the presets' conflict and leaves them out,
	// so the pod's mount names a volume it no longer has.
	shadowing := []*v1alpha1.PodPreset{preset("a", corev1.EnvVar{Name: "X", Value: "1"}), preset("b", corev1.EnvVar{Name: "X", Value: "2"})}
	shadowing[0].Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp"}}}}
	shadowedPod := withVolumes(webPod(nil, corev1.Container{Name: "app", Image: "nginx", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}),
		corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	for _, tc := range []struct {
		name     string
		obs      Observed
		wantName string
		wantRule rule.ID
	}{
		{"the specification's own outcome", faulty([]*v1alpha1.PodPreset{db}, webPod(nil, app), model.Options{}, nil, nil), "", ""},
		{"an excluded pod mutated", faulty([]*v1alpha1.PodPreset{db}, webPod(map[string]string{merge.ExcludeAnnotation: "true"}, app), model.Options{},
			func(a *model.Admission) { a.Pod.Annotations = nil }, func(o *model.Outcome) { o.Pod.Annotations[merge.ExcludeAnnotation] = "true" }),
			"decides exclusion otherwise", rule.R2_4},
		{"a conflict reported nowhere", faulty([]*v1alpha1.PodPreset{clash}, webPod(nil, app), model.Options{}, nil,
			func(o *model.Outcome) { o.Warnings, o.Events = nil, nil }), "reports no conflict", rule.R4_3},
		{"init containers left alone", faulty([]*v1alpha1.PodPreset{db}, withInit(webPod(nil, app), init), model.Options{Variant: merge.Variant{InitContainersUntouched: true}}, nil, nil),
			"leaves init containers alone", rule.R3_2},
		{"an image volume injected as an emptyDir", faulty([]*v1alpha1.PodPreset{imageVolume}, webPod(nil, app), model.Options{}, nil, func(o *model.Outcome) {
			o.Pod.Spec.Volumes[0].VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
		}), "reads presets through API types that lack image volumes: one is injected as an emptyDir", rule.R3_1},
		{"presets applied in another order", faulty([]*v1alpha1.PodPreset{db, preset("queue", corev1.EnvVar{Name: "QUEUE", Value: "rabbit"})}, webPod(nil, app), model.Options{},
			func(a *model.Admission) { a.Presets = []*v1alpha1.PodPreset{rename(a.Presets[0], "z"), a.Presets[1]} },
			func(o *model.Outcome) { renameApplied(o.Pod, "z", "db") }),
			"applies the presets in another order", rule.R3_6},
		{"presets applied one by one, the later created first", faulty([]*v1alpha1.PodPreset{preset("a", corev1.EnvVar{Name: "X", Value: "1"}), preset("b", corev1.EnvVar{Name: "X", Value: "2"})}, webPod(nil, app), model.Options{Conflicts: model.SkipPreset},
			func(a *model.Admission) { a.Presets = []*v1alpha1.PodPreset{rename(a.Presets[1], "0"), a.Presets[0]} },
			func(o *model.Outcome) { renameApplied(o.Pod, "0", "b") }),
			"applies the presets one by one in another order, each unless it conflicts", rule.R3_6},
		{"presets that do not conflict applied", faulty([]*v1alpha1.PodPreset{clash, db}, webPod(nil, app), model.Options{Conflicts: model.SkipPreset}, nil, nil),
			"applies the presets that do not conflict", rule.R4_2},
		{"a preset's item compared undefaulted with the pod's defaulted one", faulty([]*v1alpha1.PodPreset{labelsVolume}, withVolumes(webPod(nil, app), labelsVolume.Spec.Volumes...),
			model.Options{Variant: merge.Variant{PresetsUndefaulted: true}}, nil, nil),
			"compares a preset's items with the pod's with the API server's defaults on one side only", rule.R3_4},
		{"a fault of the namespace's own presets, before presets of other namespaces that would explain it too",
			elsewhere(faulty([]*v1alpha1.PodPreset{labelsVolume}, withVolumes(webPod(nil, app), labelsVolume.Spec.Volumes...),
				model.Options{Variant: merge.Variant{PresetsUndefaulted: true}}, nil, nil), foreignLabels),
			"compares a preset's items with the pod's with the API server's defaults on one side only", rule.R3_4},
		{"env vars appended again to a pod already mutated", faulty([]*v1alpha1.PodPreset{db}, webPod(map[string]string{merge.AnnotationKey("db"): "7"}, app), model.Options{}, nil,
			func(o *model.Outcome) {
				o.Pod.Spec.Containers[0].Env = append(o.Pod.Spec.Containers[0].Env, db.Spec.Env...)
			}),
			"appends a preset's env vars again to a pod it already mutated", rule.R3_8},
		{"a conflict reported for the dry run, not for the create after it", history([]*v1alpha1.PodPreset{clash}, webPod(nil, app), nil,
			func(o *model.Outcome) { o.Warnings, o.Events = nil, nil }),
			"reports a conflict only for the first pod that has it", rule.R6_3},
		{"the dry run's env vars carried into the preset for the create", history([]*v1alpha1.PodPreset{db}, webPod(nil, app, side),
			func(a *model.Admission) {
				a.Presets = []*v1alpha1.PodPreset{preset("db", slices.Concat(db.Spec.Env, app.Env)...)}
			}, nil),
			"writes into the presets it read: a pod's own env vars join the presets that matched it", rule.R6_2},
		{"a long preset's env vars cut at twelve", faulty([]*v1alpha1.PodPreset{many}, webPod(nil, app), model.Options{},
			func(a *model.Admission) {
				cut := many.DeepCopy()
				cut.Spec.Env = cut.Spec.Env[:12]
				a.Presets = []*v1alpha1.PodPreset{cut}
			}, nil),
			"injects no more than some number of a preset's env vars", rule.R6_4},
		{"the app containers past the first left as submitted, the init containers injected", faulty([]*v1alpha1.PodPreset{db}, withInit(webPod(nil, app, side), init), model.Options{}, nil,
			func(o *model.Outcome) { o.Pod.Spec.Containers[1] = side }),
			"injects into the first app container only", rule.R3_2},
		{"the containers past the third left as submitted", faulty([]*v1alpha1.PodPreset{db}, withInit(webPod(nil, app, side, side2, side3), init), model.Options{}, nil,
			func(o *model.Outcome) { o.Pod.Spec.Containers[2], o.Pod.Spec.Containers[3] = side2, side3 }),
			"injects into no more than some number of a pod's containers", rule.R6_4},
		{"the pod's own env var names upper-cased before they are compared", faulty([]*v1alpha1.PodPreset{preset("sqlite", corev1.EnvVar{Name: "db", Value: "postgres"})}, webPod(nil, lower), model.Options{},
			func(a *model.Admission) { a.Pod.Spec.Containers[0].Env[0].Name = "DB" },
			func(o *model.Outcome) { o.Pod.Spec.Containers[0].Env[0].Name = "db" }),
			"compares env var names without regard to case", rule.R3_5},
		{"an env var identical to the pod's own appended again, the pod's name upper-cased or not", faulty([]*v1alpha1.PodPreset{preset("sqlite", lower.Env...)}, webPod(nil, lower), model.Options{},
			func(a *model.Admission) { a.Pod.Spec.Containers[0].Env[0].Name = "DB" },
			func(o *model.Outcome) { o.Pod.Spec.Containers[0].Env[0].Name = "db" }),
			"appends an env var again when the container has an identical one", rule.R3_4},
		{"the pod's own mounts checked by name only, the presets' by name and path", faulty([]*v1alpha1.PodPreset{mounted("a", "data"), mounted("b", "logs"), db}, webPod(nil, confApp), model.Options{},
			func(a *model.Admission) { a.Pod.Spec.Containers[0].VolumeMounts[0].MountPath = "/elsewhere" },
			func(o *model.Outcome) { o.Pod.Spec.Containers[0].VolumeMounts[0].MountPath = "/etc/conf" }),
			"checks volume mounts by name only", rule.R4_1},
		{"envFrom prefixes dropped, the pod's own too, before entries are compared", faulty([]*v1alpha1.PodPreset{prefixed}, webPod(nil, prefixedApp), model.Options{},
			func(a *model.Admission) {
				unprefixed := prefixed.DeepCopy()
				for i := range unprefixed.Spec.EnvFrom {
					unprefixed.Spec.EnvFrom[i].Prefix = ""
				}
				a.Presets, a.Pod.Spec.Containers[0].EnvFrom = []*v1alpha1.PodPreset{unprefixed}, fromCM("")
			},
			func(o *model.Outcome) { o.Pod.Spec.Containers[0].EnvFrom[0] = fromCM("Q_")[0] }),
			"drops envFrom prefixes", rule.R3_5},
		{"the pod's own items compared as submitted, before the API server's defaults", faulty([]*v1alpha1.PodPreset{preset("host", hostIP)}, webPod(nil, hostApp), model.Options{},
			func(a *model.Admission) { a.Pod.Spec.Containers[0].Env[0].ValueFrom.FieldRef.APIVersion = "" },
			func(o *model.Outcome) { o.Pod.Spec.Containers[0].Env[0].ValueFrom.FieldRef.APIVersion = "v1" }),
			"compares a preset's items with the pod's with the API server's defaults on one side only", rule.R3_4},
		{"the pod's own item a preset shares a name with dropped, the preset's appended", faulty([]*v1alpha1.PodPreset{clash}, webPod(nil, twoEnv), model.Options{},
			func(a *model.Admission) { a.Pod.Spec.Containers[0].Env = a.Pod.Spec.Containers[0].Env[1:] }, nil),
			"puts a conflicting item in place of the pod's own", rule.R4_4},
		{"injected env vars before the app containers' own, after the init containers'", faulty([]*v1alpha1.PodPreset{db}, withInit(webPod(nil, app), corev1.Container{Name: "init", Image: "busybox", Env: []corev1.EnvVar{{Name: "STEP", Value: "1"}}}), model.Options{}, nil,
			func(o *model.Outcome) {
				c := &o.Pod.Spec.Containers[0]
				c.Env = append(c.Env[1:], c.Env[0])
			}),
			"puts injected items before the pod's own", rule.R3_3},
		{"the namespace's last preset applied in place of the one that selects the pod", faulty([]*v1alpha1.PodPreset{db, unselected}, webPod(nil, app), model.Options{},
			func(a *model.Admission) {
				zz := unselected.DeepCopy()
				zz.Spec.Selector = metav1.LabelSelector{}
				a.Presets = []*v1alpha1.PodPreset{zz}
			}, nil),
			"applies the namespace's last preset by name whenever any preset selects the pod", rule.R2_3},
		{"conflict events recorded for the dry run too", faulty([]*v1alpha1.PodPreset{clash}, webPod(nil, app), model.Options{},
			func(a *model.Admission) { a.DryRun = false }, nil),
			"records conflict events on dry runs too", rule.R2_1},
		{"every preset of the namespace applied", faulty([]*v1alpha1.PodPreset{db, unselected, preset("zzz")}, webPod(nil, app), model.Options{},
			func(a *model.Admission) {
				a.Presets = nil
				for _, p := range []*v1alpha1.PodPreset{db, unselected, preset("zzz")} {
					p = p.DeepCopy()
					p.Spec.Selector = metav1.LabelSelector{}
					a.Presets = append(a.Presets, p)
				}
			}, nil),
			"applies every preset of the namespace, whatever its selector", rule.R2_3},
		{"an env var identical to the container's own appended again", faulty([]*v1alpha1.PodPreset{preset("nine", digits.Env...), db}, webPod(nil, digits), model.Options{}, nil,
			func(o *model.Outcome) {
				o.Pod.Spec.Containers[0].Env = append(o.Pod.Spec.Containers[0].Env, digits.Env...)
			}),
			"appends an env var again when the container has an identical one", rule.R3_4},
		{"the pod's own annotations replaced, an applied one it was submitted with too", faulty([]*v1alpha1.PodPreset{db, queue0}, webPod(map[string]string{merge.AnnotationKey("db"): "7", "team": "web"}, app), model.Options{}, nil,
			func(o *model.Outcome) {
				o.Pod.Annotations = map[string]string{merge.AnnotationKey("queue"): o.Pod.Annotations[merge.AnnotationKey("queue")]}
			}),
			"replaces the pod's own annotations", rule.R3_7},
		{"the pod's own volume taken away, the pod refused by the API server, no events", refusedByServer(shadowing, shadowedPod, "data"),
			"puts a conflicting item in place of the pod's own", rule.R4_4},
		{"the presets of another case's namespace taken", elsewhere(faulty([]*v1alpha1.PodPreset{db}, webPod(nil, app), model.Options{},
			func(a *model.Admission) { a.Presets = append(a.Presets, queue) }, nil), queue),
			"takes presets of other namespaces", rule.R2_2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := diagnose(w, tc.obs, []request{{dryRun: true, got: tc.obs.DryRun}, {got: tc.obs.Create}}, true)
			if tc.wantName == "" {
				if len(hs) > 0 {
					t.Errorf("explained by %q, want no hypothesis", hs[0].Name)
				}
				return
			}
			if len(hs) == 0 || hs[0].Name != tc.wantName || hs[0].Rule != tc.wantRule {
				var names []string
				for _, h := range hs {
					names = append(names, h.Name)
				}
				t.Fatalf("explained by %q, want %q (%s) first", names, tc.wantName, tc.wantRule)
			}
			other := rule.R3_7 // a rule the differences name besides
			if tc.wantRule == other {
				other = rule.R3_1
			}
			d := Disagreement{Rules: []rule.ID{other, tc.wantRule}, Summary: "x"}
			d.Explain(hs[0])
			if d.Rules[0] != tc.wantRule || len(d.Rules) != 2 || d.AsIf != tc.wantName {
				t.Errorf("Explain: %+v, want %s first, once", d, tc.wantRule)
			}
		})
	}
}

// history admits the dry run as the specification says, then the create
// as the model does with its input or output edited: an implementation
// whose second admission departs from the first.
func history(presets []*v1alpha1.PodPreset, pod *corev1.Pod, edit func(*model.Admission), after func(*model.Outcome)) Observed {
	dry := model.Admit(model.Admission{Presets: presets, Pod: defaults.Pod(pod), DryRun: true}, model.Options{})[0]
	a := model.Admission{Presets: presets, Pod: defaults.Pod(pod)}
	if edit != nil {
		edit(&a)
	}
	create := model.Admit(a, model.Options{})[0]
	if after != nil {
		after(&create)
	}
	return observe(presets, pod, dry, create)
}

// refusedByServer is what an implementation whose pod the API server
// refused for a mount of volume shows: both requests refused, no events.
func refusedByServer(presets []*v1alpha1.PodPreset, pod *corev1.Pod, volume string) Observed {
	err := apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, pod.Name, field.ErrorList{field.NotFound(field.NewPath("spec", "containers").Index(0).Child("volumeMounts").Index(0).Child("name"), volume)})
	return Observed{Presets: presets, Pod: pod, DryRun: Request{Err: err}, Create: Request{Err: err}}
}

// elsewhere is obs with presets another namespace held during both
// requests.
func elsewhere(obs Observed, held ...*v1alpha1.PodPreset) Observed {
	obs.DryRun.Elsewhere.Held, obs.Create.Elsewhere.Held = held, held
	return obs
}

func withInit(pod *corev1.Pod, init corev1.Container) *corev1.Pod {
	pod.Spec.InitContainers = []corev1.Container{init}
	return pod
}

// rename is a copy of a preset under another name (which orders it
// otherwise).
func rename(p *v1alpha1.PodPreset, name string) *v1alpha1.PodPreset {
	q := p.DeepCopy()
	q.Name = name
	return q
}

// renameApplied gives an applied annotation back its preset's name.
func renameApplied(pod *corev1.Pod, from, to string) {
	v := pod.Annotations[merge.AnnotationKey(from)]
	delete(pod.Annotations, merge.AnnotationKey(from))
	pod.Annotations[merge.AnnotationKey(to)] = v
}

// TestTieOrders: presets of one name are tried in every order, the others
// by name; the orders are bounded.
func TestTieOrders(t *testing.T) {
	named := func(ns, name string) *v1alpha1.PodPreset {
		return &v1alpha1.PodPreset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	show := func(orders [][]*v1alpha1.PodPreset) []string {
		var out []string
		for _, o := range orders {
			s := ""
			for _, p := range o {
				s += p.Namespace + "/" + p.Name + " "
			}
			out = append(out, s)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		presets []*v1alpha1.PodPreset
		want    []string
	}{
		{"distinct names, by name", []*v1alpha1.PodPreset{named("x", "b"), named("x", "a")}, []string{"x/a x/b "}},
		{"one name twice", []*v1alpha1.PodPreset{named("x", "c"), named("x", "a"), named("y", "c")}, []string{"x/a x/c y/c ", "x/a y/c x/c "}},
		{"two names twice", []*v1alpha1.PodPreset{named("x", "a"), named("y", "a"), named("x", "b"), named("y", "b")},
			[]string{"x/a y/a x/b y/b ", "x/a y/a y/b x/b ", "y/a x/a x/b y/b ", "y/a x/a y/b x/b "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := show(tieOrders(tc.presets)); !slices.Equal(got, tc.want) {
				t.Errorf("tieOrders = %q, want %q", got, tc.want)
			}
		})
	}
	var many []*v1alpha1.PodPreset
	for i := range 6 {
		many = append(many, named(fmt.Sprint(i), "a"), named(fmt.Sprint(i), "b"))
	}
	if n := len(tieOrders(many)); n > maxTieOrders || n < 2 {
		t.Errorf("%d orders of twelve presets of two names, want 2 to %d", n, maxTieOrders)
	}
}

// TestSelectedElsewhere: presets of other namespaces count when they select
// the pod, whether the case's own or another case's, held or passing.
func TestSelectedElsewhere(t *testing.T) {
	app := corev1.Container{Name: "app", Image: "nginx"}
	selecting := preset("db", corev1.EnvVar{Name: "DB", Value: "postgres"})
	selecting.Namespace = "default-x7k2"
	other := selecting.DeepCopy()
	other.Spec.Selector.MatchLabels = map[string]string{"app": "batch"}
	for _, tc := range []struct {
		name string
		obs  Observed
		want bool
	}{
		{"none", Observed{Pod: webPod(nil, app)}, false},
		{"the case's own other namespace", Observed{Pod: webPod(nil, app), Others: []*v1alpha1.PodPreset{selecting}}, true},
		{"another case's, not selecting", Observed{Pod: webPod(nil, app), Create: Request{Elsewhere: Elsewhere{Held: []*v1alpha1.PodPreset{other}}}}, false},
		{"another case's, created during the dry run", Observed{Pod: webPod(nil, app), DryRun: Request{Elsewhere: Elsewhere{Passing: []*v1alpha1.PodPreset{selecting}}}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.obs.SelectedElsewhere(); got != tc.want {
				t.Errorf("SelectedElsewhere = %v, want %v", got, tc.want)
			}
		})
	}
}

func withVolumes(pod *corev1.Pod, volumes ...corev1.Volume) *corev1.Pod {
	pod.Spec.Volumes = append(pod.Spec.Volumes, volumes...)
	return pod
}

// TestRefusedAsMade: an outcome whose pod mounts a volume it lacks, mounts
// two volumes at one path of a container or holds two volumes of one name
// explains the API server's refusal that names that mount, path or volume,
// as the API server returns it or as a scenario words it; nothing else.
func TestRefusedAsMade(t *testing.T) {
	dangling := webPod(nil, corev1.Container{Name: "app", Image: "nginx", VolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}}})
	whole := dangling.DeepCopy()
	whole.Spec.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	invalid := apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "website", field.ErrorList{field.NotFound(field.NewPath("spec", "containers").Index(0).Child("volumeMounts").Index(0).Child("name"), "cache")})
	samePath := whole.DeepCopy()
	samePath.Spec.Containers[0].VolumeMounts = append(samePath.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "cache", MountPath: "/cache", SubPath: "x"})
	pathTwice := apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "website", field.ErrorList{field.Invalid(field.NewPath("spec", "containers").Index(0).Child("volumeMounts").Index(1).Child("mountPath"), "/cache", "must be unique")})
	volumeTwice := whole.DeepCopy()
	volumeTwice.Spec.Volumes = append(volumeTwice.Spec.Volumes, corev1.Volume{Name: "cache", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp"}}})
	nameTwice := apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "website", field.ErrorList{field.Duplicate(field.NewPath("spec", "volumes").Index(1).Child("name"), "cache")})
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		err  error
		want bool
	}{
		{"the API server's refusal of the mount", dangling, invalid, true},
		{"the same, as a scenario words it", dangling, fmt.Errorf("unable to create Pod %q: %s", "website", invalid.Error()), true},
		{"a pod whose volume is there", whole, invalid, false},
		{"two mounts at one path", samePath, pathTwice, true},
		{"one mount at the path named", whole, pathTwice, false},
		{"two volumes of one name", volumeTwice, nameTwice, true},
		{"one volume of the name", whole, nameTwice, false},
		{"a webhook's denial", dangling, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "website", fmt.Errorf("volumeMounts: Not found: %q", "cache")), false},
		{"another mount named", dangling, apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "website", field.ErrorList{field.NotFound(field.NewPath("spec", "containers").Index(0).Child("volumeMounts").Index(0).Child("name"), "data")}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedAsMade(tc.pod, tc.err); got != tc.want {
				t.Errorf("refusedAsMade: %v, want %v (%v)", got, tc.want, tc.err)
			}
		})
	}
}

// TestVolumesNeverAdded: an implementation that never adds a preset's
// volumes may read them out of the presets (then they conflict with
// nothing) or take them away from what it merged (then a conflict of
// volumes still leaves every preset out): both are outcomes of the
// variant.
func TestVolumesNeverAdded(t *testing.T) {
	w := &harness.World{Profile: profile.Canonical()}
	withVolume := func(name string, source corev1.VolumeSource) *v1alpha1.PodPreset {
		p := preset(name)
		p.Spec.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: source}}
		p.Spec.VolumeMounts = []corev1.VolumeMount{{Name: "cache", MountPath: "/cache-" + name}}
		return p
	}
	a := withVolume("a", corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}})
	b := withVolume("b", corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp"}})
	b.Spec.VolumeMounts = nil // its volume alone conflicts with a's
	app := corev1.Container{Name: "app", Image: "nginx"}
	for _, tc := range []struct {
		name    string
		presets []*v1alpha1.PodPreset
		want    func(model.Outcome) bool
	}{
		{"read out of the presets: the mount without its volume", []*v1alpha1.PodPreset{a}, func(o model.Outcome) bool {
			return o.Pod != nil && len(o.Pod.Spec.Volumes) == 0 && len(o.Pod.Spec.Containers[0].VolumeMounts) == 1
		}},
		{"read out of the presets: no conflict left, both applied", []*v1alpha1.PodPreset{a, b}, func(o model.Outcome) bool {
			return len(o.Applied) == 2 && len(o.Warnings) == 0
		}},
		{"taken away after the merge: the conflict of volumes still leaves both out", []*v1alpha1.PodPreset{a, b}, func(o model.Outcome) bool {
			return len(o.Applied) == 0 && len(o.Warnings) > 0 && o.Pod != nil && len(o.Pod.Spec.Containers[0].VolumeMounts) == 0
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := faulty(tc.presets, webPod(nil, app), model.Options{}, nil, nil)
			outs := volumesNeverAdded(newHypothesisInput(w, obs, false, obs.Create))
			if !slices.ContainsFunc(outs, tc.want) {
				t.Errorf("no outcome of the %d as wanted", len(outs))
			}
		})
	}
}
