package controlplane_test

import (
	"context"
	"slices"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/internal/backend/controlplane"
)

// TestClientsAreTheAdminByToken: the control plane's configuration and its
// kubeconfig authenticate as presetsim-admin in system:masters, by bearer
// token and no client certificate, and a wrong token is refused.
func TestClientsAreTheAdminByToken(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	bin, err := envtest.FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cp, err := controlplane.Start(ctx, controlplane.Options{BinDir: bin, NoScheduler: true, Controllers: []string{"serviceaccount"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()

	fromFile, err := clientcmd.RESTConfigFromKubeConfig(cp.KubeConfig)
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]*rest.Config{"Config": cp.Config, "KubeConfig": fromFile} {
		if cfg.BearerToken == "" || len(cfg.CertData) > 0 || cfg.CertFile != "" {
			t.Errorf("%s: token %t, client certificate %t; want a token only", name, cfg.BearerToken != "", len(cfg.CertData) > 0 || cfg.CertFile != "")
		}
		review, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if u := review.Status.UserInfo; u.Username != "presetsim-admin" || !slices.Contains(u.Groups, "system:masters") {
			t.Errorf("%s authenticates as %s in %v; want presetsim-admin in system:masters", name, u.Username, u.Groups)
		}
	}

	wrong := rest.CopyConfig(cp.Config)
	wrong.BearerToken = "not-" + wrong.BearerToken
	_, err = kubernetes.NewForConfigOrDie(wrong).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Errorf("a wrong token: %v; want 401 Unauthorized", err)
	}
}
