package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness/webhook"
)

// ExternalModule is someone else's admission webhook, registered by URL.
type ExternalModule struct {
	// URL of the webhook endpoint (https).
	URL string
	// CABundle verifies the webhook's certificate (PEM).
	CABundle []byte
	// AdmissionReviewVersions the webhook accepts; ["v1"] when empty.
	AdmissionReviewVersions []string
	// TimeoutSeconds the API server waits for it; 10 when zero.
	TimeoutSeconds int32
	// FailurePolicy is Fail (the default) or Ignore.
	FailurePolicy string
	// Command, when set, starts the webhook once the API server is up:
	// "{kubeconfig}" in an argument is replaced by the path of a kubeconfig
	// for it. The process (group) is stopped with the World.
	Command []string
	// Env are NAME=value settings added to the command's environment
	// (which is otherwise the harness's own).
	Env []string
	// LogFile, when set, receives everything the command writes to stdout
	// and stderr (presetsim run puts it in the report folder). Its last
	// lines are kept in memory either way, for failure messages.
	LogFile string
	// SyncTimeout bounds how long, after creating a preset, the harness
	// waits for the webhook to apply it to a probe pod; 2s when zero.
	SyncTimeout time.Duration
	// RefusedGrace is how long the webhook may refuse connections at
	// start-up before the run fails with a setup error; 10s when zero (a
	// process may still be starting).
	RefusedGrace time.Duration
}

// KubeconfigPlaceholder is replaced in ExternalModule.Command.
const KubeconfigPlaceholder = "{kubeconfig}"

// external is a running external module.
type external struct {
	spec   ExternalModule
	dir    string
	cmd    *exec.Cmd
	output *lockedBuffer
	log    *os.File
	exited chan struct{}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// tailLines is how many of the process's last lines failure messages show.
const tailLines = 20

// tail returns the last lines of what the process wrote, "" when nothing.
func (b *lockedBuffer) tail() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	text := strings.TrimSpace(b.buf.String())
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	return strings.Join(lines, "\n")
}

// startExternal starts the external module's command, if any, and
// registers its webhook.
func (w *World) startExternal(ctx context.Context, spec ExternalModule, allNamespaces bool) error {
	if !strings.HasPrefix(spec.URL, "https://") {
		return fmt.Errorf("external module: the webhook URL must be https://, got %q", spec.URL)
	}
	if len(spec.CABundle) == 0 {
		return errors.New("external module: a CA bundle is required")
	}
	w.external = &external{spec: spec}
	if len(spec.Command) > 0 {
		if err := w.external.start(w.KubeConfig); err != nil {
			return err
		}
	}
	return w.registerWebhook(ctx, webhook.PodConfig{
		URL:                     spec.URL,
		CABundle:                spec.CABundle,
		FailurePolicy:           admissionregistrationv1.FailurePolicyType(spec.FailurePolicy),
		TimeoutSeconds:          spec.TimeoutSeconds,
		AdmissionReviewVersions: spec.AdmissionReviewVersions,
	}, allNamespaces)
}

func (e *external) start(kubeconfig []byte) error {
	dir, err := os.MkdirTemp("", "presetsim-external-")
	if err != nil {
		return err
	}
	e.dir = dir
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		return err
	}
	args := make([]string, len(e.spec.Command))
	for i, a := range e.spec.Command {
		args[i] = strings.ReplaceAll(a, KubeconfigPlaceholder, path)
	}
	e.output = &lockedBuffer{}
	var out io.Writer = e.output
	if e.spec.LogFile != "" {
		if e.log, err = os.Create(e.spec.LogFile); err != nil {
			return fmt.Errorf("the external module's log: %w", err)
		}
		out = io.MultiWriter(e.output, e.log)
	}
	e.cmd = exec.Command(args[0], args[1:]...)
	if len(e.spec.Env) > 0 {
		e.cmd.Env = append(os.Environ(), e.spec.Env...)
	}
	e.cmd.Stdout, e.cmd.Stderr = out, out
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := e.cmd.Start(); err != nil {
		e.closeLog()
		return fmt.Errorf("unable to start the external module %q: %w", args[0], err)
	}
	e.exited = make(chan struct{})
	go func() {
		_ = e.cmd.Wait()
		e.closeLog()
		close(e.exited)
	}()
	return nil
}

func (e *external) closeLog() {
	if e.log != nil {
		_ = e.log.Close()
	}
}

// processState says, for a message, that the external module's process
// has exited and how; "" while it runs (or when there is none).
func (e *external) processState() string {
	if e == nil || e.cmd == nil {
		return ""
	}
	select {
	case <-e.exited:
		return fmt.Sprintf("; its process exited (%v)", e.cmd.ProcessState)
	default:
		return ""
	}
}

// lastOutput is the last lines the external module's process wrote, for a
// failure message, and where the whole of it is kept; "" when there is no
// process.
func (e *external) lastOutput() string {
	if e == nil || e.cmd == nil {
		return ""
	}
	where := " (not kept: give presetsim run --report-dir to keep all of it)"
	if e.spec.LogFile != "" {
		where = " (all of it in " + e.spec.LogFile + ")"
	}
	tail := e.output.tail()
	if tail == "" {
		return "the webhook's process has written nothing" + where
	}
	return fmt.Sprintf("the webhook's last output%s:\n  %s", where, strings.ReplaceAll(tail, "\n", "\n  "))
}

// stop stops the process group: SIGTERM, then SIGKILL after 5s.
func (e *external) stop() error {
	if e == nil {
		return nil
	}
	defer func() {
		if e.dir != "" {
			_ = os.RemoveAll(e.dir)
		}
	}()
	if e.cmd == nil || e.cmd.Process == nil {
		return nil
	}
	pgid := -e.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-e.exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-e.exited
	}
	return nil
}

// refusedGrace is how long the webhook may refuse connections at start-up.
func (e *external) refusedGrace() time.Duration {
	if e == nil || e.spec.RefusedGrace == 0 {
		return 10 * time.Second
	}
	return e.spec.RefusedGrace
}

// isRefused reports whether the API server could not connect to the webhook.
func isRefused(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection refused")
}

// probePreset waits, for at most the external module's SyncTimeout, until a
// dry-run pod that the preset's matchLabels select comes back with the
// preset's annotation: the webhook's cache has the preset. A preset whose
// selector has expressions, or that the probe cannot show (a module that
// writes no annotation), costs the whole timeout and is not an error: the
// scenario's own steps judge the module.
func (w *World) probePreset(ctx context.Context, namespace, name string) error {
	var timeout time.Duration
	if w.external != nil {
		timeout = w.external.spec.SyncTimeout
	}
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	gvr, err := w.presetResource()
	if err != nil {
		return err
	}
	u, err := w.cluster.get(ctx, gvr, namespace, name)
	if err != nil {
		return err
	}
	raw, _, _ := unstructured.NestedMap(u.Object, w.Profile.SelectorPath()...)
	selector := &metav1.LabelSelector{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, selector); err != nil || len(selector.MatchExpressions) > 0 {
		return nil
	}
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: "presetsim-probe-", Namespace: namespace, Labels: selector.MatchLabels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "presetsim-probe", Image: "probe"}}},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return err
	}
	_ = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := w.cluster.create(ctx, podsResource, &unstructured.Unstructured{Object: obj}, createOptions{dryRun: true})
		if err != nil {
			return false, nil
		}
		_, ok := got.GetAnnotations()[w.Profile.AppliedKey(name)]
		return ok, nil
	})
	return nil
}
