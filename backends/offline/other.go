package offline

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/admit"
	"presetsim.dev/presetsim/internal/webhook"
	"presetsim.dev/presetsim/outcome"
)

// ephemeralContainers is the pod subresource kubectl debug updates.
const ephemeralContainers = "ephemeralcontainers"

// admitOther passes a request other than CREATE of a pod to the plug-in,
// as an API server does through the harness's extra registration
// (webhook.WithOtherRequests, failurePolicy Ignore). Under
// backend.UnsubscribedFail a refusal refuses the request, a change is
// stored, and a plug-in that fails (panics) is noted (R5.3) while the
// request goes on with its object as it was; under
// backend.UnsubscribedReport, the default, what the plug-in did is a
// finding and the request goes on as it was. It returns the object to
// store.
func (c *Cluster) admitOther(ctx context.Context, req admit.Request) (runtime.Object, error) {
	admitted, err := c.admitted(req.Namespace)
	if err != nil || !admitted {
		return req.Object, err
	}
	original := req.Object.DeepCopyObject()
	what := webhook.WithSubresource(webhook.Describe(string(req.Operation), req.Kind.Kind, req.Name, req.DryRun), req.Subresource)
	answer, err := admit.Invoke(ctx, c.plugin, nil, req)
	if !c.unsubscribed.Fail() {
		if finding, ok := observe(req, what, original, answer, err); ok {
			c.findings.Note(req.Namespace, finding)
		}
		return original, nil
	}
	if err != nil {
		c.failed.Note(req.Namespace, what+": "+err.Error())
		return original, nil
	}
	if answer.Denied != nil {
		return nil, apierrors.NewForbidden(req.Resource.GroupResource(), req.Name,
			fmt.Errorf("admission webhook %q denied the request: %v", webhook.OtherRequestsName, answer.Denied))
	}
	return req.Object, nil
}

// observe is the finding of what the plug-in did with a request other than
// a pod's creation (its outcome, or its error), none when it left the
// object as it was (original).
func observe(req admit.Request, what string, original runtime.Object, out admit.Outcome, err error) (outcome.Finding, bool) {
	r := webhook.RuleOf(req.Kind.Kind, req.Subresource)
	switch {
	case err != nil:
		return webhook.Would(r, "fail", what, err.Error()), true
	case out.Denied != nil:
		return webhook.Would(r, "refuse", what, out.Denied.Error()), true
	}
	return webhook.Changed(r, what, original, req.Object)
}

// request is the admission request of an operation on an object of the
// store, typed as the store holds it.
func request(gvr schema.GroupVersionResource, obj, old runtime.Object, subresource string, op admission.Operation, dryRun bool) (admit.Request, error) {
	m, err := metaOf(obj)
	if err != nil {
		return admit.Request{}, err
	}
	return admit.Request{
		Object: obj, OldObject: old, Kind: obj.GetObjectKind().GroupVersionKind(), Resource: gvr, Subresource: subresource,
		Namespace: m.GetNamespace(), Name: m.GetName(), Operation: op, DryRun: dryRun,
		User: offlineUser,
	}, nil
}

// admitPodUpdate admits an UPDATE of a pod, next replacing current; it
// returns the pod to store.
func (c *Cluster) admitPodUpdate(ctx context.Context, current, next *unstructured.Unstructured, subresource string) (*unstructured.Unstructured, error) {
	old, err := c.typedObject(backend.Pods, current)
	if err != nil {
		return nil, err
	}
	obj, err := c.typedObject(backend.Pods, next)
	if err != nil {
		return nil, err
	}
	pod := c.DefaultPod(obj.(*corev1.Pod))
	pod.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	req, err := request(backend.Pods, pod, old, subresource, admission.Update, false)
	if err != nil {
		return nil, err
	}
	admitted, err := c.admitOther(ctx, req)
	if err != nil {
		return nil, err
	}
	out, err := c.toUnstructured(backend.Pods, admitted)
	if err != nil {
		return nil, err
	}
	if subresource == ephemeralContainers {
		// As the API server's strategy for the subresource: only the
		// ephemeral containers change.
		kept := current.DeepCopy()
		list, _, _ := unstructured.NestedFieldCopy(out.Object, "spec", "ephemeralContainers")
		if err := unstructured.SetNestedField(kept.Object, list, "spec", "ephemeralContainers"); err != nil {
			return nil, err
		}
		return kept, nil
	}
	return out, nil
}

// UpdateSubresource updates a pod's ephemeralcontainers subresource
// (backend.Subresources), the one subresource the store serves.
func (c *Cluster) UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, subresource string) (*unstructured.Unstructured, error) {
	if gvr != backend.Pods || subresource != ephemeralContainers {
		return nil, c.unsupported("the %s subresource of %s is not served offline", subresource, gvr.Resource)
	}
	return c.update(ctx, gvr, u, subresource)
}

// later is another admission after the implementation's: an annotation
// set on the pods of a namespace (backend.LaterAdmissions).
type later struct{ key, value string }

// AnnotateAfter sets an annotation on every pod created in the namespace
// once the module admitted it, and has the module admit it again, as an
// API server reinvokes a webhook registered with reinvocationPolicy
// IfNeeded when a later one changed the object.
func (c *Cluster) AnnotateAfter(namespace, key, value string) (func(), error) {
	c.laterMu.Lock()
	defer c.laterMu.Unlock()
	if c.later == nil {
		c.later = map[string][]later{}
	}
	c.later[namespace] = append(c.later[namespace], later{key, value})
	return func() {
		c.laterMu.Lock()
		defer c.laterMu.Unlock()
		delete(c.later, namespace)
	}, nil
}

// admitLater runs the later admissions of the pod's namespace and, when
// they changed the pod, has the module admit it again; it returns the
// reinvocation's warnings.
func (c *Cluster) admitLater(ctx context.Context, pod *corev1.Pod, dryRun bool) ([]string, error) {
	c.laterMu.Lock()
	afters := c.later[pod.Namespace]
	c.laterMu.Unlock()
	changed := false
	for _, l := range afters {
		if v, ok := pod.Annotations[l.key]; ok && v == l.value {
			continue
		}
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[l.key] = l.value
		changed = true
	}
	if !changed {
		return nil, nil
	}
	outcome, err := admit.Invoke(ctx, c.plugin, nil, admit.PodCreate(pod, dryRun, offlineUser.Name))
	if err != nil {
		c.noteFailed(pod, dryRun, err)
		return nil, apierrors.NewInternalError(fmt.Errorf("failed calling webhook %q (reinvoked): %w", webhookName, err))
	}
	if outcome.Denied != nil {
		return nil, apierrors.NewForbidden(backend.Pods.GroupResource(), pod.Name,
			fmt.Errorf("admission webhook %q denied the request (reinvoked): %v", webhookName, outcome.Denied))
	}
	return outcome.Warnings, nil
}

// The abilities the harness asks of the offline backend.
var (
	_ backend.InProcessAdmission = (*Cluster)(nil)
	_ backend.Findings           = (*Cluster)(nil)
	_ backend.AdmissionFailures  = (*Cluster)(nil)
)
