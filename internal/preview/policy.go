package preview

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/policyplugin"
	"presetsim.dev/presetsim/presets/policy"
)

// startPolicy compiles each namespace's presets into its policy and
// binding (package presets/policy) and starts the API server's
// admission-policy plug-ins over them (package policyplugin), for the
// namespaces of the presets and of the pods.
func startPolicy(ctx context.Context, lister presetLister, namespaces map[string]bool) (*policyplugin.Chain, error) {
	var stored []runtime.Object
	for _, ns := range slices.Sorted(maps.Keys(lister)) {
		objs, err := policy.Compile(ns, lister[ns], policy.Options{})
		if err != nil {
			return nil, fmt.Errorf("unable to compile the presets of namespace %s into a policy: %w", ns, err)
		}
		stored = append(stored, objs.All()...)
	}
	var nsObjects []runtime.Object
	for ns := range namespaces {
		nsObjects = append(nsObjects, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: ns, Labels: map[string]string{corev1.LabelMetadataName: ns}}})
	}
	return policyplugin.Start(ctx, policyplugin.Deps{
		Namespaces: fake.NewSimpleClientset(nsObjects...),
		Dynamic:    dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()),
		Mapper:     meta.NewDefaultRESTMapper(nil),
		Scheme:     manifest.Scheme(),
		Default:    policyplugin.DefaultPod,
		Policies:   stored,
	})
}
