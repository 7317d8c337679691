package nodes

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
)

func TestSimulatorRunsPodsOnItsNodes(t *testing.T) {
	ctx := context.Background()
	client := fake.NewSimpleClientset()
	sim, err := Start(ctx, client, Options{Prefix: "sim-", Nodes: 2, KubeletVersion: "v1.37.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Stop()

	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 2 {
		t.Fatalf("nodes: %v, %v", nodes, err)
	}
	for _, n := range nodes.Items {
		if len(n.Status.Conditions) == 0 || n.Status.Conditions[0].Type != corev1.NodeReady || n.Status.Conditions[0].Status != corev1.ConditionTrue {
			t.Errorf("node %s is not Ready: %v", n.Name, n.Status.Conditions)
		}
	}

	yes := true
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "bound", Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "sim-1", Containers: []corev1.Container{{Name: "c", Image: "i"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "job-pod", Namespace: "ns", OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "j", Controller: &yes}}},
			Spec: corev1.PodSpec{NodeName: "sim-0", Containers: []corev1.Container{{Name: "c", Image: "i"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "other-node", Containers: []corev1.Container{{Name: "c"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "unbound", Namespace: "ns"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}},
	}
	for _, p := range pods {
		if _, err := client.CoreV1().Pods("ns").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	phase := func(name string) corev1.PodPhase {
		p, err := client.CoreV1().Pods("ns").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "gone"
		}
		return p.Status.Phase
	}
	waitFor := func(name string, want corev1.PodPhase) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
			return phase(name) == want, nil
		})
		if err != nil {
			t.Fatalf("pod %s: phase %q, want %q", name, phase(name), want)
		}
	}
	waitFor("bound", corev1.PodRunning)
	waitFor("job-pod", corev1.PodSucceeded)
	bound, _ := client.CoreV1().Pods("ns").Get(ctx, "bound", metav1.GetOptions{})
	if bound.Status.PodIP == "" || len(bound.Status.ContainerStatuses) != 1 || !bound.Status.ContainerStatuses[0].Ready {
		t.Errorf("running pod status incomplete: %+v", bound.Status)
	}
	if got := phase("elsewhere"); got != "" {
		t.Errorf("a pod on another node was touched: phase %q", got)
	}
	if got := phase("unbound"); got != "" {
		t.Errorf("an unbound pod was touched: phase %q", got)
	}
	// The informer sees the four creates in order, but not necessarily all
	// of them by the time the first two pods have run.
	var order []string
	_ = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		order = sim.CreationOrder("ns")
		return len(order) >= 4, nil
	})
	if want := []string{"bound", "job-pod", "elsewhere", "unbound"}; !slices.Equal(order, want) {
		t.Errorf("CreationOrder = %v, want %v", order, want)
	}

	// A pod being deleted is removed at once.
	now := metav1.Now()
	bound.DeletionTimestamp = &now
	if _, err := client.CoreV1().Pods("ns").Update(ctx, bound, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("bound", "gone")

	if err := sim.SetNodes(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if names := sim.Nodes(); len(names) != 1 || names[0] != "sim-0" {
		t.Errorf("after SetNodes(1): %v", names)
	}
}

// TestSimulatorWaitsForConfig: a container whose ConfigMap is missing waits
// with CreateContainerConfigError and the kubelet's message; once the
// ConfigMap exists, the pod starts.
func TestSimulatorWaitsForConfig(t *testing.T) {
	ctx := context.Background()
	client := fake.NewSimpleClientset()
	sim, err := Start(ctx, client, Options{Prefix: "sim-", Nodes: 1, KubeletVersion: "v1.37.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Stop()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "sim-0",
		Containers: []corev1.Container{{Name: "web", Image: "i", EnvFrom: []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}}}}}}}}
	if _, err := client.CoreV1().Pods("ns").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var got *corev1.Pod
	poll := func(what string, ok func(*corev1.Pod) bool) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
			got, err = client.CoreV1().Pods("ns").Get(ctx, "web", metav1.GetOptions{})
			return err == nil && ok(got), nil
		})
		if err != nil {
			t.Fatalf("pod never %s; status %+v", what, got.Status)
		}
	}
	poll("waited with CreateContainerConfigError", func(p *corev1.Pod) bool {
		if len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].State.Waiting == nil {
			return false
		}
		w := p.Status.ContainerStatuses[0].State.Waiting
		return w.Reason == "CreateContainerConfigError" && w.Message == `configmap "app-config" not found`
	})
	if got.Status.Phase != corev1.PodPending || got.Status.PodIP == "" {
		t.Errorf("phase %s, pod IP %q; want Pending with a pod IP (the sandbox exists)", got.Status.Phase, got.Status.PodIP)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app-config", Namespace: "ns"}, Data: map[string]string{"A": "1"}}
	if _, err := client.CoreV1().ConfigMaps("ns").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll("started once the ConfigMap exists", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
}
