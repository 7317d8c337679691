package admit

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestDenied: a webhook's denial (the API server's status for it, with or
// without the webhook's own code and reason), a forbidden create and a
// failed webhook call are denials, wrapped or not; the API server's own
// refusals and errors that are no API status are not.
func TestDenied(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	webhookDenial := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 400,
		Message: `admission webhook "x" denied the request: no`}}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "a webhook's denial without a reason", err: webhookDenial, want: true},
		{name: "wrapped", err: fmt.Errorf("creating pod web: %w", webhookDenial), want: true},
		{name: "forbidden", err: apierrors.NewForbidden(pods, "web", errors.New("no")), want: true},
		{name: "a webhook that could not be called", err: apierrors.NewInternalError(errors.New(`failed calling webhook "x"`)), want: true},
		{name: "invalid", err: apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "web", field.ErrorList{field.Duplicate(field.NewPath("spec", "volumes").Index(1).Child("name"), "v")}), want: false},
		{name: "already exists", err: apierrors.NewAlreadyExists(pods, "web"), want: false},
		{name: "the namespace is missing", err: apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "ns"), want: false},
		{name: "no API status, whatever it says", err: errors.New(`admission webhook "x" denied the request`), want: false},
		{name: "nil", err: nil, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Denied(tt.err); got != tt.want {
				t.Errorf("Denied(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
