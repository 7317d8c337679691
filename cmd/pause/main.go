// Command pause is the pod sandbox ("pause") container of the kind node image
// that hack/kind/build-node-image.sh builds: kubeadm and containerd expect an
// image named registry.k8s.io/pause, and none can be pulled here, so this
// program is built statically and put in an image FROM scratch under that
// name.
//
// It holds the pod's namespaces by doing nothing: it waits for SIGINT or
// SIGTERM and exits 0. As PID 1 of a pod that shares its process namespace
// it also reaps the zombies of exited processes, on SIGCHLD.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		reap()
	}
}

// reap collects every exited child without blocking.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
