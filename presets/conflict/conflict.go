package conflict

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
)

// Names of the lists an item is in, as Item.Field gives them.
const (
	FieldEnv          = "env"
	FieldEnvFrom      = "envFrom"
	FieldVolumes      = "volumes"
	FieldVolumeMounts = "volumeMounts"
)

// Item is an item of a preset that has the same key as an item already
// present (in the pod, from an earlier preset or earlier in the same preset)
// but different content (R4.1).
type Item struct {
	// Preset is the name of the preset whose item conflicts.
	Preset string
	// Container is the name of the container or init container; "" for
	// pod-level items (volumes).
	Container string
	// Field is one of FieldEnv, FieldEnvFrom, FieldVolumes,
	// FieldVolumeMounts.
	Field string
	// Key is the human-readable key of the item:
	//   - env, volumes: the name;
	//   - volumeMounts: "name <name>" or "mountPath <path>";
	//   - envFrom: the set parts of the tuple, e.g. "prefix DB_ configMapRef db-env"
	//     or "secretRef db-creds".
	Key string
	// Injected is the preset's item, and Existing the item already in the
	// list that shares the key, each as compact JSON: what an explanation
	// shows side by side.
	Injected, Existing string
}

// Content is an item as Injected and Existing hold it, compact JSON; what
// else shows an item beside a conflict (a change's items, say) renders it
// the same way.
func Content(item any) string {
	b, err := json.Marshal(item)
	if err != nil {
		return fmt.Sprintf("%+v", item)
	}
	return string(b)
}

// InContainer is what an item's description says of its container:
// "… in container website".
const InContainer = " in container "

// String describes the conflict, e.g. "duplicate mountPath /cache in container website".
func (c Item) String() string {
	s := c.Label()
	if c.Container != "" {
		s += InContainer + c.Container
	}
	return s
}

// Label describes the conflict without its container: "duplicate env DB_PORT".
func (c Item) Label() string {
	var what string
	switch {
	case c.Field == FieldEnv:
		what = "env "
	case c.Field == FieldEnvFrom:
		what = "envFrom "
	case c.Field == FieldVolumes:
		what = "volume "
	case c.Field == FieldVolumeMounts && strings.HasPrefix(c.Key, "mountPath "):
		what = "" // "duplicate mountPath /cache" reads on its own
	case c.Field == FieldVolumeMounts:
		what = "volumeMount "
	default:
		what = c.Field + " "
	}
	return "duplicate " + what + c.Key
}

// Report is what is reported of one preset's conflicts with a pod: one
// message, returned as an admission warning and recorded as an event.
type Report struct {
	Preset string
	Items  []Item
}

// Reports groups items by preset, in order of first appearance: one report
// per preset.
func Reports(items []Item) []Report {
	var out []Report
	for _, it := range items {
		i := slices.IndexFunc(out, func(r Report) bool { return r.Preset == it.Preset })
		if i < 0 {
			out = append(out, Report{Preset: it.Preset})
			i = len(out) - 1
		}
		out[i].Items = append(out[i].Items, it)
	}
	return out
}

// Separator joins a report's items in its message.
const Separator = "; "

// Prefix begins the message of a preset's conflicts.
func Prefix(preset string) string { return messageStart + preset + ": " }

const messageStart = "Conflict on pod preset "

// Message is the report's text (R4.3): "Conflict on pod preset <name>:
// <conflict>; <conflict>".
func (r Report) Message() string {
	items := make([]string, len(r.Items))
	for i, it := range r.Items {
		items[i] = it.String()
	}
	return Prefix(r.Preset) + strings.Join(items, Separator)
}

// Messages are the messages of the items' reports, one per preset.
func Messages(items []Item) []string {
	var out []string
	for _, r := range Reports(items) {
		out = append(out, r.Message())
	}
	return out
}

// Parse reads the preset a conflict message names, as Message writes it;
// false when the text is no such message. It reads observed text (another
// implementation's warning or event) back into the definition.
func Parse(message string) (preset string, ok bool) {
	rest, ok := strings.CutPrefix(message, messageStart)
	if !ok {
		return "", false
	}
	preset, _, ok = strings.Cut(rest, ":")
	if !ok || preset == "" || strings.ContainsAny(preset, " \t\n") {
		return "", false
	}
	return preset, true
}

// Mentions lists the presets named by the conflict messages within texts
// (a warning may carry one after a prefix of its own, as a validating
// policy's does), each once, in order.
func Mentions(texts []string) []string {
	var out []string
	for _, t := range texts {
		for i := strings.Index(t, messageStart); i >= 0; i = strings.Index(t, messageStart) {
			t = t[i:]
			if p, ok := Parse(t); ok && !slices.Contains(out, p) {
				out = append(out, p)
			}
			t = t[len(messageStart):]
		}
	}
	return out
}

// Reason is the reason of the conflict event.
const Reason = "PodPresetConflict"

// Event is a conflict event as the specification describes it: on the
// object Target names, of type Warning, reason Reason, with a report's
// message.
type Event struct {
	Kind, Name, Type, Reason, Message string
}

// Event is the report's event, attached to the object ref names.
func (r Report) Event(ref *corev1.ObjectReference) Event {
	return Event{Kind: ref.Kind, Name: ref.Name, Type: corev1.EventTypeWarning, Reason: Reason, Message: r.Message()}
}

// Key renders the event for comparison: every field it is judged by.
func (e Event) Key() string {
	return strings.Join([]string{e.Kind, e.Name, e.Type, e.Reason, e.Message}, " ")
}

// Observed reads a recorded event as a conflict event; false when it is
// not one (another reason).
func Observed(e *corev1.Event) (Event, bool) {
	if e.Reason != Reason {
		return Event{}, false
	}
	return Event{Kind: e.InvolvedObject.Kind, Name: e.InvolvedObject.Name, Type: e.Type, Reason: e.Reason, Message: e.Message}, true
}

// Record records each report's event on the object ref names.
func Record(recorder record.EventRecorder, ref *corev1.ObjectReference, reports []Report) {
	for _, r := range reports {
		e := r.Event(ref)
		recorder.Event(ref, e.Type, e.Reason, e.Message)
	}
}

// Target is the object a conflict event is attached to (R4.3): the pod when
// it has a name, otherwise its controller owner, otherwise nothing (nil).
func Target(pod *corev1.Pod, namespace string) *corev1.ObjectReference {
	if pod.Name != "" {
		return &corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: namespace, Name: pod.Name, UID: pod.UID}
	}
	if owner := metav1.GetControllerOf(pod); owner != nil {
		return &corev1.ObjectReference{APIVersion: owner.APIVersion, Kind: owner.Kind, Namespace: namespace, Name: owner.Name, UID: owner.UID}
	}
	return nil
}
