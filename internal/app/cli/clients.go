package cli

import (
	"fmt"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Clients are the clients of a command that talks to a cluster.
type Clients struct {
	Config  *rest.Config
	Typed   kubernetes.Interface
	Dynamic dynamic.Interface
}

// Connect returns the clients of the cluster kubeconfig names or, when it
// is empty, of the cluster the command runs in (the pod's service account).
func Connect(kubeconfig string) (Clients, error) {
	var c Clients
	var err error
	if kubeconfig == "" {
		if c.Config, err = rest.InClusterConfig(); err != nil {
			return c, fmt.Errorf("--kubeconfig is needed outside a pod of the cluster: %w", err)
		}
	} else if c.Config, err = clientcmd.BuildConfigFromFlags("", kubeconfig); err != nil {
		return c, fmt.Errorf("unable to read %s: %w", kubeconfig, err)
	}
	// client-go's default (5 requests a second, bursts of 10) would hold
	// back the events a webhook records: one per conflicting preset and
	// pod, many a second on a busy API server.
	c.Config.QPS, c.Config.Burst = 100, 200
	if c.Typed, err = kubernetes.NewForConfig(c.Config); err != nil {
		return c, err
	}
	c.Dynamic, err = dynamic.NewForConfig(c.Config)
	return c, err
}
