package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"presetsim.dev/presetsim/internal/report"
	"presetsim.dev/presetsim/outcome"
)

// serviceAccountNamespace is where a pod finds its own namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// maxConfigMap is what a ConfigMap may hold, less room for its metadata.
const maxConfigMap = 1000 * 1024

// publishVerdict writes a run's summary into the ConfigMap ref names,
// [NAMESPACE/]NAME — the pod's own namespace when it names none — for
// kubectl to read where the run's pod cannot be reached: summary.json (as
// --report-dir holds it, what report merge and report compare read) and
// verdict (report verdict's text). The ConfigMap is replaced if it exists.
func publishVerdict(ctx context.Context, client kubernetes.Interface, ref string, s *outcome.Report) error {
	ns, name, ok := strings.Cut(ref, "/")
	if !ok {
		name = ns
		raw, err := os.ReadFile(serviceAccountNamespace)
		if err != nil {
			return fmt.Errorf("--summary-configmap %s names no namespace and the run is not in a pod (%w): write NAMESPACE/NAME", ref, err)
		}
		ns = strings.TrimSpace(string(raw))
	}
	var summary, verdict bytes.Buffer
	if err := s.WriteJSON(&summary); err != nil {
		return err
	}
	if err := report.WriteVerdict(&verdict, s); err != nil {
		return err
	}
	if n := summary.Len() + verdict.Len(); n > maxConfigMap {
		return fmt.Errorf("the report is %d bytes, more than a ConfigMap holds: keep --report-dir on a volume instead", n)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{
			"app.kubernetes.io/name": "presetsim", "app.kubernetes.io/component": "verdict"}},
		Data: map[string]string{"summary.json": summary.String(), "verdict": verdict.String()},
	}
	cms := client.CoreV1().ConfigMaps(ns)
	_, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("writing the verdict into ConfigMap %s/%s: %w", ns, name, err)
	}
	return nil
}
