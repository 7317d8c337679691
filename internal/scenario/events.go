package scenario

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"presetsim.dev/presetsim/harness/backend"
)

// EventSpec is an expected event; Message is a substring.
type EventSpec struct{ Type, Reason, Message string }

// HasEvent waits until the object has a matching event. When the object
// exists, the event must carry its UID, as `kubectl describe` lists only those.
func (s *Scenario) HasEvent(ctx context.Context, kind, name string, want EventSpec) error {
	gvk, mapping, ns, err := s.objectNamespace(ctx, kind, name)
	if err != nil {
		return err
	}
	var uid types.UID
	if obj, err := s.Objects().Get(ctx, mapping.Resource, ns, name); err == nil {
		uid = obj.GetUID()
	}
	var seen []corev1.Event
	var wrongUID bool
	err = s.WaitUntil(ctx, ns, s.World().Timeouts.Wait, func(ctx context.Context) (bool, error) {
		// A list cut short by the deadline keeps what the last whole
		// one saw, for the message.
		events, err := s.Events(ctx, ns, gvk.Kind, name)
		if err != nil {
			return false, err
		}
		seen = events
		for _, e := range seen {
			if (want.Type == "" || e.Type == want.Type) && (want.Reason == "" || e.Reason == want.Reason) && strings.Contains(e.Message, want.Message) {
				if uid != "" && e.InvolvedObject.UID != uid {
					wrongUID = true
					continue
				}
				return true, nil
			}
		}
		return false, nil
	}, backend.Events)
	if err != nil {
		hint := ""
		if wrongUID {
			hint = fmt.Sprintf(" (a matching event exists, but its involvedObject.uid is not the %s's UID %s, so `kubectl describe` does not show it)", gvk.Kind, uid)
		}
		return fmt.Errorf("no event type=%s reason=%s message~%q on %s %q after %s%s; events seen: %s",
			want.Type, want.Reason, want.Message, gvk.Kind, name, s.World().Timeouts.Wait, hint, s.logical(describeEvents(seen)))
	}
	return nil
}

// HasNoEvents checks, for window, that the object gets no event with the
// reason.
func (s *Scenario) HasNoEvents(ctx context.Context, kind, name, reason string, window Window) error {
	gvk, _, ns, err := s.objectNamespace(ctx, kind, name)
	if err != nil {
		return err
	}
	return s.holds(ctx, window, func() error {
		evs, err := s.Events(ctx, ns, gvk.Kind, name)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.Reason == reason {
				return fmt.Errorf("%s %q has an event with reason %s (watched for %s): %s", gvk.Kind, name, reason, window.Length, s.logical(e.Message))
			}
		}
		return nil
	})
}

// Events lists the events of an object, by kind and name, in a physical
// namespace.
func (s *Scenario) Events(ctx context.Context, ns, kind, name string) ([]corev1.Event, error) {
	all, err := s.NamespaceEvents(ctx, ns)
	if err != nil {
		return nil, err
	}
	var out []corev1.Event
	for _, e := range all {
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name {
			out = append(out, e)
		}
	}
	return out, nil
}

func describeEvents(evs []corev1.Event) string {
	if len(evs) == 0 {
		return "none"
	}
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message)
	}
	return strings.Join(parts, "; ")
}

// NamespaceEvents lists every event of a physical namespace.
func (s *Scenario) NamespaceEvents(ctx context.Context, ns string) ([]corev1.Event, error) {
	list, err := s.Objects().List(ctx, backend.Events, ns)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]corev1.Event, 0, len(list))
	for _, u := range list {
		var e corev1.Event
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &e); err != nil {
			return nil, fmt.Errorf("unable to read event %s: %w", u.GetName(), err)
		}
		out = append(out, e)
	}
	return out, nil
}
