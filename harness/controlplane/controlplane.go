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
)

// DefaultControllers are the kube-controller-manager controllers started by
// default: service accounts (the ServiceAccount admission plug-in is on), the
// workload controllers, and the garbage collector.
var DefaultControllers = []string{
	"serviceaccount", "replicaset", "deployment", "statefulset", "daemonset", "job", "garbagecollector",
}

// Options configure the control plane.
type Options struct {
	// BinDir holds kube-apiserver, etcd and kube-controller-manager.
	BinDir string
	// Controllers to run in kube-controller-manager; DefaultControllers when nil.
	Controllers []string
	// StartTimeout bounds each component's start; 60s when zero.
	StartTimeout time.Duration
}

// ControlPlane is a running etcd, kube-apiserver and kube-controller-manager.
type ControlPlane struct {
	// Config is an admin (system:masters) client configuration.
	Config *rest.Config
	// KubeConfig is the same, as a kubeconfig file's contents.
	KubeConfig []byte

	env     *envtest.Environment
	kcm     *exec.Cmd
	kcmDone chan error
	dir     string
}

// Start starts the control plane and waits until the API server is healthy
// and the controller-manager runs. On error, whatever was started is stopped.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	for _, bin := range []string{"kube-apiserver", "etcd", "kube-controller-manager"} {
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

	cp := &ControlPlane{env: env}
	defer func() {
		if err != nil {
			_ = cp.Stop()
		}
	}()
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("unable to start etcd and kube-apiserver: %w", err)
	}
	cp.Config = cfg

	admin, err := env.ControlPlane.AddUser(envtest.User{Name: "presetsim-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("unable to create the admin user: %w", err)
	}
	if cp.KubeConfig, err = admin.KubeConfig(); err != nil {
		return nil, fmt.Errorf("unable to write the admin kubeconfig: %w", err)
	}
	if cp.dir, err = os.MkdirTemp("", "presetsim-kcm-"); err != nil {
		return nil, err
	}
	if err := cp.startControllerManager(ctx, opts); err != nil {
		return nil, err
	}
	return cp, nil
}

func (cp *ControlPlane) startControllerManager(ctx context.Context, opts Options) error {
	kubeconfig := filepath.Join(cp.dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, cp.KubeConfig, 0o600); err != nil {
		return fmt.Errorf("unable to write the controller-manager kubeconfig: %w", err)
	}
	logPath := filepath.Join(cp.dir, "kube-controller-manager.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(opts.BinDir, "kube-controller-manager"),
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
		"--controllers="+strings.Join(opts.Controllers, ","),
		"--v=1",
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Die with us even if we are killed without a chance to clean up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("unable to start kube-controller-manager: %w", err)
	}
	cp.kcm = cmd
	cp.kcmDone = make(chan error, 1)
	go func() {
		cp.kcmDone <- cmd.Wait()
		logFile.Close()
	}()

	// The serviceaccount controller creating the default namespace's
	// "default" ServiceAccount shows the controller-manager is working.
	client, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	err = wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-cp.kcmDone:
			cp.kcmDone <- err
			return false, fmt.Errorf("kube-controller-manager exited: %v", err)
		default:
		}
		_, err := client.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return fmt.Errorf("kube-controller-manager did not start (log: %s):\n%s\n%w", logPath, tail(logPath, 20), err)
	}
	return nil
}

// Stop stops the controller-manager, the API server and etcd, and removes
// their files. It is safe to call more than once.
func (cp *ControlPlane) Stop() error {
	var errs []error
	if cp.kcm != nil && cp.kcm.Process != nil {
		_ = cp.kcm.Process.Signal(syscall.SIGTERM)
		select {
		case <-cp.kcmDone:
		case <-time.After(10 * time.Second):
			_ = cp.kcm.Process.Kill()
			<-cp.kcmDone
		}
		cp.kcm = nil
	}
	if cp.env != nil {
		if err := cp.env.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("unable to stop etcd and kube-apiserver: %w", err))
		}
		cp.env = nil
	}
	if cp.dir != "" {
		_ = os.RemoveAll(cp.dir)
		cp.dir = ""
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
