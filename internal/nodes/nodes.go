package nodes

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"presetsim.dev/presetsim/internal/containerenv"
)

// SimulatedLabel marks the nodes of a Simulator.
const SimulatedLabel = "presetsim.dev/simulated-node"

// Simulator runs simulated nodes and their kubelet.
type Simulator struct {
	client  kubernetes.Interface
	prefix  string
	version string

	informer cache.SharedIndexInformer
	queue    workqueue.TypedRateLimitingInterface[string]
	cancel   context.CancelFunc
	done     sync.WaitGroup

	mu     sync.Mutex
	nodes  map[string]int // node name → index, for addresses
	nextIP map[string]int // node name → last pod IP suffix handed out
	order  map[string][]string
}

// Options configure a Simulator.
type Options struct {
	// Prefix of the node names: <prefix>0, <prefix>1, ...
	Prefix string
	// Nodes to start with.
	Nodes int
	// KubeletVersion reported by the nodes, e.g. v1.37.1.
	KubeletVersion string
}

// Start creates the nodes and starts the kubelet.
func Start(ctx context.Context, client kubernetes.Interface, opts Options) (*Simulator, error) {
	s := &Simulator{
		client:  client,
		prefix:  opts.Prefix,
		version: opts.KubeletVersion,
		queue:   workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		nodes:   map[string]int{},
		nextIP:  map[string]int{},
		order:   map[string][]string{},
	}
	pods := client.CoreV1().Pods(metav1.NamespaceAll)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return pods.List(ctx, o) },
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return pods.Watch(ctx, o)
		},
	}
	// Carry over whether the client can stream lists (fake clients cannot).
	s.informer = cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, client), &corev1.Pod{}, 0, cache.Indexers{})
	if _, err := s.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod, ok := obj.(*corev1.Pod); ok {
				s.recordCreation(pod)
			}
			s.enqueue(obj)
		},
		UpdateFunc: func(_, obj any) { s.enqueue(obj) },
	}); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		s.informer.RunWithContext(runCtx)
	}()
	if !cache.WaitForCacheSync(ctx.Done(), s.informer.HasSynced) {
		s.Stop()
		return nil, fmt.Errorf("node simulator: pod cache did not sync")
	}
	for i := 0; i < 2; i++ {
		s.done.Add(1)
		go func() {
			defer s.done.Done()
			for s.processNext(runCtx) {
			}
		}()
	}
	if err := s.SetNodes(ctx, opts.Nodes); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Stop stops the kubelet. The Node objects stay; they go with the cluster.
func (s *Simulator) Stop() {
	s.cancel()
	s.queue.ShutDown()
	s.done.Wait()
}

// Nodes returns the names of the simulated nodes, sorted.
func (s *Simulator) Nodes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.nodes))
	for n := range s.nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CreationOrder returns the names of the pods of a namespace in the order
// the simulator first saw them (a finer order than creationTimestamp, which
// has one-second resolution).
func (s *Simulator) CreationOrder(namespace string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order[namespace]...)
}

func (s *Simulator) recordCreation(pod *corev1.Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.order[pod.Namespace] = append(s.order[pod.Namespace], pod.Name)
}

// SetNodes creates or deletes simulated nodes until there are n, Ready.
func (s *Simulator) SetNodes(ctx context.Context, n int) error {
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s%d", s.prefix, i)
		s.mu.Lock()
		_, exists := s.nodes[name]
		s.mu.Unlock()
		if exists {
			continue
		}
		if err := s.createNode(ctx, name, i); err != nil {
			return err
		}
	}
	for _, name := range s.Nodes() {
		s.mu.Lock()
		i := s.nodes[name]
		s.mu.Unlock()
		if i < n {
			continue
		}
		if err := s.client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("unable to delete simulated node %s: %w", name, err)
		}
		s.mu.Lock()
		delete(s.nodes, name)
		s.mu.Unlock()
	}
	return nil
}

func (s *Simulator) createNode(ctx context.Context, name string, i int) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name,
		Labels: map[string]string{
			corev1.LabelHostname: name, corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64", SimulatedLabel: "true",
		},
	}}
	created, err := s.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("unable to create simulated node %s: %w", name, err)
	}
	now := metav1.Now()
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("32"),
		corev1.ResourceMemory:           resource.MustParse("128Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
	created.Status = corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: capacity,
		Phase:       corev1.NodeRunning,
		Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "simulated node is ready", LastHeartbeatTime: now, LastTransitionTime: now},
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: now, LastTransitionTime: now},
			{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: now, LastTransitionTime: now},
			{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: now, LastTransitionTime: now},
		},
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: nodeIP(i)},
			{Type: corev1.NodeHostName, Address: name},
		},
		NodeInfo: corev1.NodeSystemInfo{KubeletVersion: s.version, OperatingSystem: "linux", Architecture: "amd64", ContainerRuntimeVersion: "presetsim://simulated"},
	}
	ready, err := s.client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("unable to make simulated node %s Ready: %w", name, err)
	}
	// The TaintNodesByCondition admission plug-in gives a new node the
	// not-ready taint; the node-lifecycle controller (not run here: it would
	// want lease heartbeats) lifts it once the node is Ready. Do that here.
	var taints []corev1.Taint
	for _, t := range ready.Spec.Taints {
		if t.Key != corev1.TaintNodeNotReady {
			taints = append(taints, t)
		}
	}
	if len(taints) != len(ready.Spec.Taints) {
		ready.Spec.Taints = taints
		if _, err := s.client.CoreV1().Nodes().Update(ctx, ready, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("unable to lift the not-ready taint of simulated node %s: %w", name, err)
		}
	}
	s.mu.Lock()
	s.nodes[name] = i
	s.mu.Unlock()
	return nil
}

// nodeIP is a documentation-range address (RFC 5737): never routed.
func nodeIP(i int) string { return fmt.Sprintf("192.0.2.%d", 10+i) }

func (s *Simulator) enqueue(obj any) {
	if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
		s.queue.Add(key)
	}
}

func (s *Simulator) processNext(ctx context.Context) bool {
	key, quit := s.queue.Get()
	if quit {
		return false
	}
	defer s.queue.Done(key)
	if err := s.sync(ctx, key); err != nil && ctx.Err() == nil {
		s.queue.AddRateLimited(key)
		return true
	}
	s.queue.Forget(key)
	return true
}

// sync moves one pod a step through its lifecycle.
func (s *Simulator) sync(ctx context.Context, key string) error {
	obj, exists, err := s.informer.GetIndexer().GetByKey(key)
	if err != nil || !exists {
		return err
	}
	pod := obj.(*corev1.Pod)
	s.mu.Lock()
	nodeIndex, ours := s.nodes[pod.Spec.NodeName]
	s.mu.Unlock()
	if !ours {
		return nil
	}
	pods := s.client.CoreV1().Pods(pod.Namespace)
	switch {
	case pod.DeletionTimestamp != nil:
		// The containers have stopped: finish the deletion, as a kubelet does.
		zero := int64(0)
		err := pods.Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &pod.UID}})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	case pod.Status.Phase == corev1.PodPending || pod.Status.Phase == "":
		if container, cerr, err := s.configError(ctx, pod); err != nil {
			return err
		} else if cerr != nil {
			// As a kubelet: the container waits, and the pod is tried
			// again until what it refers to exists.
			s.queue.AddAfter(key, RetryConfigAfter)
			next := s.waiting(pod, nodeIndex, container, cerr.Message)
			if equality.Semantic.DeepEqual(next.Status, pod.Status) {
				return nil
			}
			_, err := pods.UpdateStatus(ctx, next, metav1.UpdateOptions{})
			return ignoreGone(err)
		}
		_, err := pods.UpdateStatus(ctx, s.running(pod, nodeIndex), metav1.UpdateOptions{})
		return ignoreGone(err)
	case pod.Status.Phase == corev1.PodRunning && ownedByJob(pod):
		_, err := pods.UpdateStatus(ctx, completed(pod), metav1.UpdateOptions{})
		return ignoreGone(err)
	}
	return nil
}

func ignoreGone(err error) error {
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // a newer version of the pod is on its way through the queue
	}
	return err
}

func ownedByJob(pod *corev1.Pod) bool {
	owner := metav1.GetControllerOf(pod)
	return owner != nil && owner.Kind == "Job"
}

// RetryConfigAfter is how soon a pod whose container could not get its
// environment is tried again (a kubelet backs off up to minutes; this is a
// simulation that should not keep scenarios waiting).
const RetryConfigAfter = 200 * time.Millisecond

// configError returns the first container (init containers first) whose
// environment cannot be made, and why, as the kubelet's
// CreateContainerConfigError.
func (s *Simulator) configError(ctx context.Context, pod *corev1.Pod) (string, *containerenv.ConfigError, error) {
	if !needsSources(pod) {
		return "", nil, nil
	}
	src, err := containerenv.FetchSources(ctx, s.client, pod.Namespace)
	if err != nil {
		return "", nil, err
	}
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			_, err := containerenv.Resolve(pod, &list[i], src)
			var cerr *containerenv.ConfigError
			if errors.As(err, &cerr) {
				return list[i].Name, cerr, nil
			}
		}
	}
	return "", nil, nil
}

// needsSources reports whether any container refers to a ConfigMap or Secret
// for its environment.
func needsSources(pod *corev1.Pod) bool {
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			for _, e := range c.EnvFrom {
				if e.ConfigMapRef != nil || e.SecretRef != nil {
					return true
				}
			}
			for _, e := range c.Env {
				if e.ValueFrom != nil && (e.ValueFrom.ConfigMapKeyRef != nil || e.ValueFrom.SecretKeyRef != nil) {
					return true
				}
			}
		}
	}
	return false
}

// waiting returns the pod Pending on its node, with the container waiting
// for the reason CreateContainerConfigError, as a kubelet reports it: the
// sandbox (and so the pod IP) exists, the container does not.
func (s *Simulator) waiting(pod *corev1.Pod, nodeIndex int, container, message string) *corev1.Pod {
	p := pod.DeepCopy()
	if p.Status.PodIP == "" {
		ip := s.podIP(pod.Spec.NodeName, nodeIndex)
		p.Status.PodIP, p.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
		host := nodeIP(nodeIndex)
		p.Status.HostIP, p.Status.HostIPs = host, []corev1.HostIP{{IP: host}}
		now := metav1.Now()
		p.Status.StartTime = &now
	}
	p.Status.Phase = corev1.PodPending
	statuses := func(list []corev1.Container, init bool) []corev1.ContainerStatus {
		var out []corev1.ContainerStatus
		for _, c := range list {
			reason, msg := "PodInitializing", ""
			if init {
				reason = "" // init containers before the failing one are not simulated as run
			}
			if c.Name == container {
				reason, msg = containerenv.Reason, message
			}
			cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image}
			if reason != "" {
				cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}
			}
			out = append(out, cs)
		}
		return out
	}
	p.Status.InitContainerStatuses = statuses(p.Spec.InitContainers, true)
	p.Status.ContainerStatuses = statuses(p.Spec.Containers, false)
	for _, t := range []corev1.PodConditionType{corev1.ContainersReady, corev1.PodReady} {
		if c := getCondition(&p.Status, t); c == nil || c.Status != corev1.ConditionFalse {
			setCondition(&p.Status, corev1.PodCondition{Type: t, Status: corev1.ConditionFalse, Reason: "ContainersNotReady",
				Message: "containers with unready status: [" + container + "]", LastTransitionTime: metav1.Now()})
		}
	}
	return p
}

func getCondition(status *corev1.PodStatus, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return &status.Conditions[i]
		}
	}
	return nil
}

// podIP hands out the next pod IP of a node.
func (s *Simulator) podIP(node string, nodeIndex int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextIP[node]++
	return fmt.Sprintf("10.244.%d.%d", nodeIndex, s.nextIP[node]%250+2)
}

// running returns the pod Running and Ready, as a kubelet reports it once
// its init containers completed and its containers started.
func (s *Simulator) running(pod *corev1.Pod, nodeIndex int) *corev1.Pod {
	p := pod.DeepCopy()
	now := metav1.Now()
	ip := p.Status.PodIP
	if ip == "" {
		ip = s.podIP(pod.Spec.NodeName, nodeIndex)
	}
	host := nodeIP(nodeIndex)
	p.Status.Phase = corev1.PodRunning
	p.Status.HostIP, p.Status.HostIPs = host, []corev1.HostIP{{IP: host}}
	p.Status.PodIP, p.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	p.Status.StartTime = &now
	for _, t := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		setCondition(&p.Status, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now})
	}
	p.Status.InitContainerStatuses = nil
	for _, c := range p.Spec.InitContainers {
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: "presetsim://" + c.Image, ContainerID: containerID(pod, c.Name), Ready: true,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", StartedAt: now, FinishedAt: now}},
		})
	}
	p.Status.ContainerStatuses = nil
	started := true
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: "presetsim://" + c.Image, ContainerID: containerID(pod, c.Name), Ready: true, Started: &started,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
	return p
}

// completed returns a Running pod Succeeded: every container exited 0.
func completed(pod *corev1.Pod) *corev1.Pod {
	p := pod.DeepCopy()
	now := metav1.Now()
	p.Status.Phase = corev1.PodSucceeded
	for _, t := range []corev1.PodConditionType{corev1.ContainersReady, corev1.PodReady} {
		setCondition(&p.Status, corev1.PodCondition{Type: t, Status: corev1.ConditionFalse, Reason: "PodCompleted", LastTransitionTime: now})
	}
	started := false
	for i := range p.Status.ContainerStatuses {
		cs := &p.Status.ContainerStatuses[i]
		startedAt := now
		if cs.State.Running != nil {
			startedAt = cs.State.Running.StartedAt
		}
		cs.Ready, cs.Started = false, &started
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", StartedAt: startedAt, FinishedAt: now}}
	}
	return p
}

func containerID(pod *corev1.Pod, name string) string {
	return fmt.Sprintf("presetsim://%s/%s", pod.UID, name)
}

func setCondition(status *corev1.PodStatus, c corev1.PodCondition) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == c.Type {
			if status.Conditions[i].Status == c.Status {
				return
			}
			status.Conditions[i] = c
			return
		}
	}
	status.Conditions = append(status.Conditions, c)
}
