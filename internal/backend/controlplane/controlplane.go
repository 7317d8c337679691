package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"presetsim.dev/presetsim/internal/procs"
)

// DefaultControllers are the kube-controller-manager controllers started by
// default: service accounts (the ServiceAccount admission plug-in is on), the
// workload controllers, the garbage collector, and the namespace controller,
// which empties a deleted namespace and removes it, as in a real cluster
// (without it, a namespace deleted stays Terminating for ever, and a tool
// that waits for it, chainsaw's cleanup for one, waits in vain).
var DefaultControllers = []string{
	"serviceaccount", "replicaset", "deployment", "statefulset", "daemonset", "job", "garbagecollector", "namespace",
}

// Options configure the control plane.
type Options struct {
	// BinDir holds kube-apiserver, etcd and kube-controller-manager.
	BinDir string
	// Controllers to run in kube-controller-manager; DefaultControllers when nil.
	Controllers []string
	// StartTimeout bounds each component's start; 60s when zero.
	StartTimeout time.Duration
	// NoScheduler leaves kube-scheduler out (pods then stay unbound).
	NoScheduler bool
	// KeepDir records the control plane's directories as soon as they
	// exist (backend.Run.KeepDir), so that a run killed meanwhile leaves
	// no etcd data, certificates or keys behind; may be nil.
	KeepDir func(dir string) error
}

func (o Options) keep(dir string) error {
	if o.KeepDir == nil {
		return nil
	}
	return o.KeepDir(dir)
}

// ControlPlane is a running etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler.
type ControlPlane struct {
	// Config is an admin (system:masters) client configuration.
	Config *rest.Config
	// KubeConfig is the same, as a kubeconfig file's contents.
	KubeConfig []byte

	env        *envtest.Environment
	apiserver  procs.Process // kube-apiserver, which Stop kills (zero when not found)
	components []*component  // started after the API server, stopped before it
	// root holds everything the control plane writes (private, 0700):
	// apiserver/ (certificates and keys), etcd/ (its data) and dir.
	root string
	dir  string // components/: their kubeconfig and logs
}

// component is a control-plane process started by this package.
type component struct {
	name string
	cmd  *exec.Cmd
	done chan error // receives the exit status once
	log  string
}

// Start starts the control plane and waits until the API server is healthy
// and the controller-manager runs. On error, whatever was started is stopped.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	bins := []string{"kube-apiserver", "etcd", "kube-controller-manager"}
	if !opts.NoScheduler {
		bins = append(bins, "kube-scheduler")
	}
	for _, bin := range bins {
		if _, err := os.Stat(filepath.Join(opts.BinDir, bin)); err != nil {
			return nil, fmt.Errorf("control-plane binary %s missing in %q (run hack/build-tools.sh): %w", bin, opts.BinDir, err)
		}
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 60 * time.Second
	}
	if opts.Controllers == nil {
		opts.Controllers = DefaultControllers
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    opts.BinDir,
		ControlPlaneStartTimeout: opts.StartTimeout,
		ControlPlaneStopTimeout:  20 * time.Second,
	}
	// envtest turns the ServiceAccount admission plug-in off because it runs no
	// controllers; we run the serviceaccount controller, so keep the API
	// server's default admission chain, as a real cluster has it.
	env.ControlPlane.GetAPIServer().Configure().Disable("disable-admission-plugins")
	// At shutdown, end the watches at once: otherwise the API server waits
	// up to its request timeout (60 s) for a client that still watches —
	// a webhook started outside the run (--webhook-kubeconfig-out) does.
	env.ControlPlane.GetAPIServer().Configure().Set("shutdown-watch-termination-grace-period", "2s")

	cp := &ControlPlane{env: env}
	defer func() {
		if err != nil {
			_ = cp.Stop()
		}
	}()
	if cp.root, err = os.MkdirTemp("", "presetsim-envtest-"); err != nil {
		return nil, err
	}
	if err := opts.keep(cp.root); err != nil {
		return nil, err
	}
	sub := func(name string) (string, error) {
		dir := filepath.Join(cp.root, name)
		return dir, os.Mkdir(dir, 0o700)
	}
	etcdDir, err1 := sub("etcd")
	certDir, err2 := sub("apiserver")
	componentsDir, err3 := sub("components")
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	env.ControlPlane.Etcd = &envtest.Etcd{DataDir: etcdDir}
	env.ControlPlane.GetAPIServer().CertDir = certDir
	token, err := adminToken(certDir)
	if err != nil {
		return nil, err
	}
	env.ControlPlane.GetAPIServer().Configure().Set("token-auth-file", filepath.Join(certDir, tokenFile))
	cfg, err := env.Start()
	// envtest makes one more directory of its own, for webhook serving
	// certificates, in the temporary directory.
	if dir := env.WebhookInstallOptions.LocalServingCertDir; dir != "" {
		if kerr := opts.keep(dir); kerr != nil && err == nil {
			err = kerr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("unable to start etcd and kube-apiserver: %w", err)
	}
	// envtest keeps the process to itself; its certificate directory,
	// ours, is in its command line.
	cp.apiserver, _ = procs.ChildWith("--cert-dir=" + certDir)
	cp.Config = rest.AnonymousClientConfig(cfg)
	cp.Config.BearerToken = token
	if cp.KubeConfig, err = kubeconfigOf(cp.Config); err != nil {
		return nil, fmt.Errorf("unable to write the admin kubeconfig: %w", err)
	}
	cp.dir = componentsDir
	// The scheduler first, without waiting: its start overlaps the
	// controller-manager's.
	var schedulerUp func() error
	if !opts.NoScheduler {
		if schedulerUp, err = cp.startScheduler(ctx, opts); err != nil {
			return nil, err
		}
	}
	if err := cp.startControllerManager(ctx, opts); err != nil {
		return nil, err
	}
	if schedulerUp != nil {
		if err := schedulerUp(); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

func (cp *ControlPlane) kubeconfig() (string, error) {
	path := filepath.Join(cp.dir, "kubeconfig")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.WriteFile(path, cp.KubeConfig, 0o600); err != nil {
		return "", fmt.Errorf("unable to write the components' kubeconfig: %w", err)
	}
	return path, nil
}

// start starts a component with its output in a log file of the run.
func (cp *ControlPlane) start(name, bin string, args ...string) (*component, error) {
	logPath := filepath.Join(cp.dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Die with us even if we are killed without a chance to clean up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("unable to start %s: %w", name, err)
	}
	c := &component{name: name, cmd: cmd, done: make(chan error, 1), log: logPath}
	cp.components = append(cp.components, c)
	go func() {
		c.done <- cmd.Wait()
		logFile.Close()
	}()
	return c, nil
}

// waitFor polls ready until it returns true, failing early if c exits.
func (cp *ControlPlane) waitFor(ctx context.Context, c *component, timeout time.Duration, ready func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-c.done:
			c.done <- err
			return false, fmt.Errorf("%s exited: %v", c.name, err)
		default:
		}
		return ready(ctx)
	})
	if err != nil {
		return fmt.Errorf("%s did not start (log: %s):\n%s\n%w", c.name, c.log, tail(c.log, 20), err)
	}
	return nil
}

func (cp *ControlPlane) startControllerManager(ctx context.Context, opts Options) error {
	kubeconfig, err := cp.kubeconfig()
	if err != nil {
		return err
	}
	c, err := cp.start("kube-controller-manager", filepath.Join(opts.BinDir, "kube-controller-manager"),
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
		"--controllers="+strings.Join(opts.Controllers, ","),
		// Its client's default limits, 20 requests/s and bursts of 30, are
		// a shared cluster's: a suite that rolls out a dozen workloads at
		// once waited on them — a rollout's last pods 2.3-2.5 s in the
		// suite against 0.25 s alone, the suite at 6 at a time 4.30-4.46 s;
		// with these 3.58-4.03 s (2026-11-27). The scheduler's own (50 and
		// 100) made no difference.
		"--kube-api-qps=400",
		"--kube-api-burst=800",
		"--v=1",
	)
	if err != nil {
		return err
	}
	// The serviceaccount controller creating the default namespace's
	// "default" ServiceAccount shows the controller-manager is working.
	client, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	return cp.waitFor(ctx, c, opts.StartTimeout, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
}

func (cp *ControlPlane) startScheduler(ctx context.Context, opts Options) (up func() error, err error) {
	kubeconfig, err := cp.kubeconfig()
	if err != nil {
		return nil, err
	}
	c, err := cp.start("kube-scheduler", filepath.Join(opts.BinDir, "kube-scheduler"),
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--v=1",
	)
	if err != nil {
		return nil, err
	}
	// There is no health endpoint without secure serving; a scheduler that
	// stays up for a moment has parsed its flags and reached the API server.
	deadline := time.Now().Add(300 * time.Millisecond)
	return func() error {
		return cp.waitFor(ctx, c, opts.StartTimeout, func(context.Context) (bool, error) {
			return time.Now().After(deadline), nil
		})
	}, nil
}

// Stop stops the controller-manager and the scheduler, kills the API server,
// stops etcd, and removes their files. It is safe to call more than once.
func (cp *ControlPlane) Stop() error {
	var errs []error
	for i := len(cp.components) - 1; i >= 0; i-- {
		c := cp.components[i]
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	}
	cp.components = nil
	// kube-apiserver's graceful shutdown ends in net/http's Server.Shutdown,
	// which looks for idle connections at doubling intervals: the API server
	// exited about 1.05 s after it had drained its requests, in every stop
	// (2026-11-27). A throwaway control plane needs none of that — what
	// used it is stopped, etcd keeps what was written — so it is killed,
	// and envtest finds it gone.
	if cp.apiserver.PID != 0 {
		if err := procs.Kill(cp.apiserver); err != nil {
			errs = append(errs, fmt.Errorf("unable to stop kube-apiserver: %w", err))
		}
		cp.apiserver = procs.Process{}
	}
	if cp.env != nil {
		if err := cp.env.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("unable to stop etcd and kube-apiserver: %w", err))
		}
		cp.env = nil
	}
	if cp.root != "" {
		_ = os.RemoveAll(cp.root)
		cp.root, cp.dir = "", ""
	}
	return errors.Join(errs...)
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
