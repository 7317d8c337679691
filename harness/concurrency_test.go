package harness_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/envtest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/scenario"
	"presetsim.dev/presetsim/internal/suitetest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// TestPodsWhilePresetsAreCreated creates 1,000 pods, 20 at a time, through
// the real API server and the webhook while 10 presets are being created:
// every pod must carry each preset entirely (annotation, env var, volume and
// mount) or not at all.
func TestPodsWhilePresetsAreCreated(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	const pods, workers, presets = 1000, 20, 10
	ctx := context.Background()
	w, err := harness.Start(ctx, harness.Options{Backend: envtest.New(envtest.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	api := suitetest.API(t, w)
	ns, err := scenario.New(w).Namespace(ctx, "load")
	if err != nil {
		t.Fatal(err)
	}

	var created atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers+1)
	next := make(chan int)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range next {
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%04d", n), Labels: map[string]string{"app": "load"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}},
				}
				if _, err := api.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
				created.Add(1)
			}
		}()
	}
	wg.Add(1)
	go func() { // presets appear while pods are being created
		defer wg.Done()
		for i := 0; i < presets; i++ {
			for created.Load() < int64(i*pods/(presets+1)) {
				time.Sleep(5 * time.Millisecond)
			}
			name := fmt.Sprintf("preset-%02d", i)
			pp := &v1alpha1.PodPreset{
				TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Spec: v1alpha1.PodPresetSpec{
					Selector:     metav1.LabelSelector{MatchLabels: map[string]string{"app": "load"}},
					Env:          []corev1.EnvVar{{Name: "FROM_" + name, Value: name}},
					Volumes:      []corev1.Volume{{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
					VolumeMounts: []corev1.VolumeMount{{Name: name, MountPath: "/mnt/" + name}},
				},
			}
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pp)
			if err == nil {
				_, err = api.Dynamic.Resource(v1alpha1.GroupVersionResource()).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: u}, metav1.CreateOptions{})
			}
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	for i := 0; i < pods; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	list, err := api.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != pods {
		t.Fatalf("%d pods, want %d", len(list.Items), pods)
	}
	perPreset := make([]int, presets)
	for _, p := range list.Items {
		c := p.Spec.Containers[0]
		for i := 0; i < presets; i++ {
			name := fmt.Sprintf("preset-%02d", i)
			_, annotated := p.Annotations[merge.AnnotationKey(name)]
			parts := []bool{annotated, hasEnv(c, "FROM_"+name), hasVolume(p, name), hasMount(c, "/mnt/"+name)}
			all, none := true, true
			for _, has := range parts {
				all, none = all && has, none && !has
			}
			if !all && !none {
				t.Errorf("pod %s has preset %s only in part (annotation, env, volume, mount): %v", p.Name, name, parts)
			}
			if all {
				perPreset[i]++
			}
		}
	}
	t.Logf("%d pods; pods per preset: %v", len(list.Items), perPreset)
	if perPreset[0] == 0 {
		t.Errorf("no pod got the first preset: the test did not exercise the webhook")
	}
}

func hasEnv(c corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name {
			return true
		}
	}
	return false
}

func hasVolume(p corev1.Pod, name string) bool {
	for _, v := range p.Spec.Volumes {
		if v.Name == name {
			return true
		}
	}
	return false
}

func hasMount(c corev1.Container, path string) bool {
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return true
		}
	}
	return false
}
