package admit

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Denied reports whether a refused request was refused by admission — a
// webhook or an admission plug-in denied it, or could not be called —
// rather than by the API server's own checks of the object. It reads the
// API status's reason, never its message: the API server gives a
// webhook's denial the code and reason the webhook set (400 and none when
// it set none; the offline backend says 403 Forbidden), and its own
// refusals of a pod are Invalid (validation), AlreadyExists, Conflict or
// NotFound (the namespace). An error that is no API status (a timeout on
// this side) is not a denial.
func Denied(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	switch status.Status().Reason {
	case metav1.StatusReasonInvalid, metav1.StatusReasonAlreadyExists, metav1.StatusReasonConflict, metav1.StatusReasonNotFound:
		return false
	}
	return true
}
