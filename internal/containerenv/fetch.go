package containerenv

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// FetchSources reads what Resolve needs for pods of a
// namespace: its ConfigMaps, Secrets and Services, and the master Service
// "kubernetes" of the default namespace when there is one.
func FetchSources(ctx context.Context, client kubernetes.Interface, namespace string) (Sources, error) {
	src := Sources{ConfigMaps: map[string]*corev1.ConfigMap{}, Secrets: map[string]*corev1.Secret{}}
	cms, err := client.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return src, fmt.Errorf("unable to list ConfigMaps: %w", err)
	}
	for i := range cms.Items {
		src.ConfigMaps[cms.Items[i].Name] = &cms.Items[i]
	}
	secrets, err := client.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return src, fmt.Errorf("unable to list Secrets: %w", err)
	}
	for i := range secrets.Items {
		src.Secrets[secrets.Items[i].Name] = &secrets.Items[i]
	}
	services, err := client.CoreV1().Services(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return src, fmt.Errorf("unable to list Services: %w", err)
	}
	src.Services = services.Items
	master, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	switch {
	case err == nil:
		src.MasterServices = []corev1.Service{*master}
	case !apierrors.IsNotFound(err):
		return src, fmt.Errorf("unable to get the kubernetes Service: %w", err)
	}
	return src, nil
}
