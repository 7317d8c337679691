package admit

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
)

// Request is one admission request, as an API server hands it to a
// mutating admission plug-in.
type Request struct {
	// Object is the object to admit; the plug-in mutates it in place.
	Object runtime.Object
	// OldObject is the stored object, for UPDATE and DELETE.
	OldObject   runtime.Object
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	Subresource string
	Namespace   string
	Name        string
	Operation   admission.Operation
	DryRun      bool
	User        user.Info
}

// PodCreate is the request that creates pod (as the API server presents
// it: after defaulting, before admission), in the pod's namespace.
func PodCreate(pod *corev1.Pod, dryRun bool, username string) Request {
	return Request{
		Object: pod, Kind: corev1.SchemeGroupVersion.WithKind("Pod"), Resource: corev1.SchemeGroupVersion.WithResource("pods"),
		Namespace: pod.Namespace, Name: pod.Name, Operation: admission.Create, DryRun: dryRun,
		User: &user.DefaultInfo{Name: username},
	}
}

// Outcome is what a plug-in made of a request.
type Outcome struct {
	// Warnings are the admission warnings the plug-in added, in order.
	Warnings []string
	// Denied is the plug-in's refusal; nil when it admitted the request
	// (Request.Object then holds the admitted object).
	Denied error
}

// Invoke runs plugin on one request the way an API server runs a mutating
// admission plug-in: only for an operation the plug-in handles, with a
// warning recorder in the context, mutating the request's object in place.
// It is the one admission path of this project: the webhook handler, the
// offline backend and the preview all admit through it.
//
// Events are not returned: a plug-in records them through the
// EventRecorder it was given when it was initialised (WantsEventRecorder),
// as in an API server. A plug-in that panics yields an error, not a
// refusal: an API server would fail the call, and apply its failurePolicy.
func Invoke(ctx context.Context, plugin admission.MutationInterface, objects admission.ObjectInterfaces, req Request) (out Outcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = Outcome{}, fmt.Errorf("the admission plug-in panicked: %v", p)
		}
	}()
	if !plugin.Handles(req.Operation) {
		return Outcome{}, nil
	}
	var opts runtime.Object
	if req.Operation == admission.Create {
		create := &metav1.CreateOptions{}
		if req.DryRun {
			create.DryRun = []string{metav1.DryRunAll}
		}
		opts = create
	}
	attrs := admission.NewAttributesRecord(req.Object, req.OldObject, req.Kind, req.Namespace, req.Name,
		req.Resource, req.Subresource, req.Operation, opts, req.DryRun, req.User)
	warnings := &warningList{}
	out.Denied = plugin.Admit(warning.WithWarningRecorder(ctx, warnings), attrs, objects)
	out.Warnings = warnings.List()
	return out, nil
}
