package scenario

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/containerenv"
	"presetsim.dev/presetsim/internal/envprint"
)

// Mask stands for a value that came from a Secret, in every message.
const Mask = "***"

// EnvVar is an expected variable of a step table.
type EnvVar struct{ Name, Value string }

// environment returns what a container of a pod of the scenario sees. With
// simulated nodes it first waits until the pod runs, so that its node and IP
// are known; a container that cannot start fails with the kubelet's reason.
func (s *Scenario) environment(ctx context.Context, podName, container string) (containerenv.Environment, error) {
	ns := s.podNamespace(podName)
	pod, err := s.getPod(ctx, ns, podName)
	if err != nil {
		return containerenv.Environment{}, err
	}
	blocked := ""
	if backend.RunsPods(s.Objects()) {
		if pod, blocked, err = s.waitStarted(ctx, ns, podName); err != nil {
			return containerenv.Environment{}, err
		}
	}
	c := findContainer(pod, container)
	if c == nil {
		return containerenv.Environment{}, fmt.Errorf("pod %q has no container %q (it has %s)", podName, container, containerNames(pod))
	}
	src, err := containerenv.FetchSources(ctx, s.Objects().Clients().Typed, pod.Namespace)
	if err != nil {
		return containerenv.Environment{}, err
	}
	env, err := containerenv.Resolve(pod, c, src)
	if err != nil {
		return env, fmt.Errorf("container %q of pod %q cannot start: %s: %s", container, podName, containerenv.Reason, s.logical(err.Error()))
	}
	switch {
	case blocked != "":
		s.note("the environment of container %q of pod %q was not compared with what a real container prints: the pod cannot start: %s", container, podName, s.logical(blocked))
	case s.kubelet() != nil:
		if err := s.checkPrinted(ctx, pod, container, env); err != nil {
			return env, err
		}
	}
	return env, nil
}

// checkPrinted compares the environment the harness computed with what the
// container printed on a real kubelet (cmd/printenv, the image every pod
// runs on the kind backend): a difference means the simulation is wrong,
// and fails the step whatever the scenario expects.
func (s *Scenario) checkPrinted(ctx context.Context, pod *corev1.Pod, container string, env containerenv.Environment) error {
	var printed map[string]string
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, s.World().Timeouts.Wait, true, func(ctx context.Context) (bool, error) {
		raw, err := s.kubelet().Logs(ctx, pod.Namespace, pod.Name, container)
		if err != nil {
			last = err
			return false, nil
		}
		printed, last = envprint.Parse(string(raw))
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("container %q of pod %q did not print its environment within %s (does it run the printenv image?): %v", container, pod.Name, s.World().Timeouts.Wait, last)
	}
	diffs := containerenv.ComparePrinted(env, printed)
	if len(diffs) == 0 {
		return nil
	}
	lines := make([]string, 0, len(diffs))
	for _, d := range diffs {
		simulated, real := "<unset>", "<unset>"
		secret := d.Simulated != nil && d.Simulated.Secret
		if d.Simulated != nil {
			simulated = s.show(*d.Simulated) + " (from " + d.Simulated.From + ")"
		}
		if d.Printed != nil {
			real = s.show(containerenv.Var{Value: *d.Printed, Secret: secret})
		}
		lines = append(lines, fmt.Sprintf("%s: kubelet gave %s, harness computed %s", d.Name, real, simulated))
	}
	return fmt.Errorf("the environment container %q of pod %q printed differs from the harness's simulation:\n  %s", container, pod.Name, strings.Join(lines, "\n  "))
}

// waitStarted waits until the pod is Running, or one of its containers waits
// for a reason other than PodInitializing or ContainerCreating (an error).
// On a real kubelet a pod can also be blocked before its containers are
// made, by a volume it cannot mount (a FailedMount event, such as a Secret
// volume whose Secret does not exist): the pod is then returned with blocked
// saying why, as its environment is still what the kubelet would give it.
func (s *Scenario) waitStarted(ctx context.Context, ns, name string) (pod *corev1.Pod, blocked string, err error) {
	var stuck, last error
	var watched []schema.GroupVersionResource
	if s.kubelet() != nil {
		watched = append(watched, backend.Events)
	}
	err = s.waitOnPods(ctx, ns, func(ctx context.Context) (bool, error) {
		got, err := s.getPod(ctx, ns, name)
		if err != nil {
			last = err
			return false, err
		}
		pod = got
		if pod.Status.Phase == corev1.PodRunning || pod.Status.Phase == corev1.PodSucceeded {
			return true, nil
		}
		if c, w := waitingContainer(pod); w != nil {
			stuck = fmt.Errorf("container %q of pod %q cannot start: %s: %s", c, name, w.Reason, s.logical(w.Message))
			return true, nil
		}
		if s.kubelet() != nil {
			evs, err := s.Events(ctx, pod.Namespace, "Pod", name)
			if err != nil {
				last = err
				return false, nil
			}
			for _, e := range evs {
				if e.Reason == "FailedMount" {
					blocked = "FailedMount: " + e.Message
					return true, nil
				}
			}
		}
		return false, nil
	}, watched...)
	if stuck != nil {
		return nil, "", stuck
	}
	if err != nil {
		phase := "<not found>"
		if pod != nil {
			phase = string(pod.Status.Phase)
		}
		if last != nil {
			phase += "; last error: " + s.logical(last.Error())
		}
		return nil, "", fmt.Errorf("pod %q did not start within %s (phase %s)", name, s.World().Timeouts.Wait, phase)
	}
	return pod, blocked, nil
}

// waitingContainer returns a container that waits for a reason that is an
// error, not a step on the way.
func waitingContainer(pod *corev1.Pod) (string, *corev1.ContainerStateWaiting) {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, cs := range list {
			if w := cs.State.Waiting; w != nil && w.Reason != "PodInitializing" && w.Reason != "ContainerCreating" {
				return cs.Name, w
			}
		}
	}
	return "", nil
}

func findContainer(pod *corev1.Pod, name string) *corev1.Container {
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

func containerNames(pod *corev1.Pod) string {
	var names []string
	for _, c := range append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...) {
		names = append(names, fmt.Sprintf("%q", c.Name))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// show renders a variable's value for a message: masked when it came from
// a Secret, unless the run shows secrets.
func (s *Scenario) show(v containerenv.Var) string {
	if v.Secret && !s.World().ShowSecrets {
		return Mask
	}
	return fmt.Sprintf("%q", v.Value)
}

// SeesEnvironment checks that the container sees every variable of want with
// exactly that value and, with exact, no other variable.
func (s *Scenario) SeesEnvironment(ctx context.Context, podName, container string, want []EnvVar, exact bool) error {
	env, err := s.environment(ctx, podName, container)
	if err != nil {
		return err
	}
	var problems []string
	expected := map[string]bool{}
	for _, w := range want {
		expected[w.Name] = true
		got, ok := env.Lookup(w.Name)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: want %s, got <unset>", w.Name, s.show(containerenv.Var{Value: w.Value})))
		case got.Value != w.Value:
			wantShown := s.show(containerenv.Var{Value: w.Value, Secret: got.Secret})
			problems = append(problems, fmt.Sprintf("%s: want %s, got %s (from %s)", w.Name, wantShown, s.show(got), got.From))
		}
	}
	if exact {
		for _, v := range env.Vars {
			if !expected[v.Name] {
				problems = append(problems, fmt.Sprintf("%s: want <unset>, got %s (from %s)", v.Name, s.show(v), v.From))
			}
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		hint := ""
		if !s.World().ShowSecrets && strings.Contains(strings.Join(problems, "\n"), Mask) {
			hint = "\n(values from Secrets are shown as " + Mask + "; run with --show-secrets to see them)"
		}
		return fmt.Errorf("the environment of container %q of pod %q differs:\n  %s%s", container, podName, strings.Join(problems, "\n  "), hint)
	}
	return nil
}

// DoesNotSee checks that none of the variables is set in the container.
func (s *Scenario) DoesNotSee(ctx context.Context, podName, container string, names []string) error {
	env, err := s.environment(ctx, podName, container)
	if err != nil {
		return err
	}
	var problems []string
	for _, n := range names {
		if v, ok := env.Lookup(n); ok {
			problems = append(problems, fmt.Sprintf("%s = %s (from %s)", n, s.show(v), v.From))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("container %q of pod %q sees variables it should not:\n  %s", container, podName, strings.Join(problems, "\n  "))
	}
	return nil
}

// FailsToStart checks that the container cannot start for the reason, with
// a message containing message. With simulated nodes this is the pod's
// status, as the kubelet reports it; without, the environment's resolution.
func (s *Scenario) FailsToStart(ctx context.Context, podName, container, reason, message string) error {
	ns := s.podNamespace(podName)
	if !backend.RunsPods(s.Objects()) {
		_, err := s.environment(ctx, podName, container)
		if err == nil {
			return fmt.Errorf("container %q of pod %q can start: its environment resolves", container, podName)
		}
		if reason != containerenv.Reason || !strings.Contains(err.Error(), message) {
			return fmt.Errorf("want %s with a message containing %q, got: %v", reason, message, err)
		}
		return nil
	}
	var last string
	err := s.waitOnPods(ctx, ns, func(ctx context.Context) (bool, error) {
		pod, err := s.getPod(ctx, ns, podName)
		if err != nil {
			return false, err
		}
		for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
			for _, cs := range list {
				if cs.Name != container {
					continue
				}
				switch {
				case cs.State.Waiting != nil:
					last = fmt.Sprintf("waiting: %s: %s", cs.State.Waiting.Reason, cs.State.Waiting.Message)
					return cs.State.Waiting.Reason == reason && strings.Contains(cs.State.Waiting.Message, message), nil
				case cs.State.Running != nil:
					last = "running"
				}
			}
		}
		return false, nil
	})
	if err != nil {
		if last == "" {
			last = "no status yet"
		}
		return fmt.Errorf("container %q of pod %q is not waiting with %s and a message containing %q within %s (last: %s)",
			container, podName, reason, message, s.World().Timeouts.Wait, s.logical(last))
	}
	return nil
}

// BecomesReady waits until the pod is Ready, on a simulated or real node.
func (s *Scenario) BecomesReady(ctx context.Context, podName string) error {
	if !backend.RunsPods(s.Objects()) {
		return s.noNodes()
	}
	ns := s.podNamespace(podName)
	var pod *corev1.Pod
	err := s.waitOnPods(ctx, ns, func(ctx context.Context) (bool, error) {
		var err error
		if pod, err = s.getPod(ctx, ns, podName); err != nil {
			return false, err
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		status := "no status"
		if pod != nil {
			status = string(pod.Status.Phase)
			if c, w := waitingContainer(pod); w != nil {
				status += fmt.Sprintf("; container %q waiting: %s: %s", c, w.Reason, s.logical(w.Message))
			}
		}
		return fmt.Errorf("pod %q did not become ready within %s (%s)", podName, s.World().Timeouts.Wait, status)
	}
	return nil
}
