package conflict

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
)

func TestMessage(t *testing.T) {
	items := []Item{
		{Preset: "allow-database", Container: "website", Field: FieldVolumeMounts, Key: "mountPath /cache"},
		{Preset: "b", Field: FieldVolumes, Key: "cache"},
		{Preset: "allow-database", Container: "website", Field: FieldEnv, Key: "DB_PORT"},
		{Preset: "b", Container: "init", Field: FieldEnvFrom, Key: "prefix DB_ configMapRef db-env"},
	}
	want := []string{
		"Conflict on pod preset allow-database: duplicate mountPath /cache in container website; duplicate env DB_PORT in container website",
		"Conflict on pod preset b: duplicate volume cache; duplicate envFrom prefix DB_ configMapRef db-env in container init",
	}
	if got := Messages(items); !slices.Equal(got, want) {
		t.Errorf("Messages:\n got %q\nwant %q", got, want)
	}
}

// TestParse: Parse reads back the preset of every message Message writes,
// and nothing from other text.
func TestParse(t *testing.T) {
	for _, name := range []string{"a", "allow-database", "with.dots.in-it", "x23456789012345678901234567890123456789012345678901234"} {
		msg := Report{Preset: name, Items: []Item{{Field: FieldEnv, Key: "A"}}}.Message()
		if got, ok := Parse(msg); !ok || got != name {
			t.Errorf("Parse(%q) = %q, %v; want %q", msg, got, ok, name)
		}
	}
	for _, text := range []string{"", "conflict", "Conflict on pod preset : x", "Conflict on pod preset a b: x", "podinjection conflict: env A"} {
		if p, ok := Parse(text); ok {
			t.Errorf("Parse(%q) = %q, want no preset", text, p)
		}
	}
	got := Mentions([]string{
		"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': Conflict on pod preset a: duplicate env A",
		"Conflict on pod preset b: duplicate env B; Conflict on pod preset a: duplicate env A",
		"no conflict here",
	})
	if want := []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("Mentions = %q, want %q", got, want)
	}
}

// TestEvent: a report's event is recorded on its target, and read back as
// the same event.
func TestEvent(t *testing.T) {
	owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "u1", Controller: new(true)}
	for _, tc := range []struct {
		name     string
		pod      *corev1.Pod
		wantKind string
	}{
		{"a named pod", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "website", OwnerReferences: []metav1.OwnerReference{owner}}}, "Pod"},
		{"an unnamed pod with a controller", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-", OwnerReferences: []metav1.OwnerReference{owner}}}, "ReplicaSet"},
		{"an unnamed pod without one", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := Target(tc.pod, "shop")
			if tc.wantKind == "" {
				if ref != nil {
					t.Fatalf("Target = %+v, want none", ref)
				}
				return
			}
			if ref == nil || ref.Kind != tc.wantKind || ref.Namespace != "shop" {
				t.Fatalf("Target = %+v, want a %s in shop", ref, tc.wantKind)
			}
			recorder := record.NewFakeRecorder(4)
			r := Report{Preset: "a", Items: []Item{{Preset: "a", Field: FieldEnv, Key: "A"}}}
			Record(recorder, ref, []Report{r})
			if got, want := <-recorder.Events, "Warning PodPresetConflict "+r.Message(); got != want {
				t.Errorf("recorded %q, want %q", got, want)
			}
			seen := &corev1.Event{InvolvedObject: *ref, Type: corev1.EventTypeWarning, Reason: Reason, Message: r.Message()}
			if got, ok := Observed(seen); !ok || got != r.Event(ref) {
				t.Errorf("Observed = %+v, %v; want %+v", got, ok, r.Event(ref))
			}
			if _, ok := Observed(&corev1.Event{Reason: "Scheduled"}); ok {
				t.Error("an event of another reason read as a conflict")
			}
		})
	}
}

func TestItemString(t *testing.T) {
	tests := []struct {
		name     string
		conflict Item
		want     string
	}{
		{
			name:     "env",
			conflict: Item{Preset: "p", Container: "website", Field: "env", Key: "DB_PORT"},
			want:     "duplicate env DB_PORT in container website",
		},
		{
			name:     "volume",
			conflict: Item{Preset: "p", Field: "volumes", Key: "cache-volume"},
			want:     "duplicate volume cache-volume",
		},
		{
			name:     "volumeMount by mountPath",
			conflict: Item{Preset: "p", Container: "website", Field: "volumeMounts", Key: "mountPath /cache"},
			want:     "duplicate mountPath /cache in container website",
		},
		{
			name:     "volumeMount by name",
			conflict: Item{Preset: "p", Container: "x", Field: "volumeMounts", Key: "name cache-volume"},
			want:     "duplicate volumeMount name cache-volume in container x",
		},
		{
			name:     "envFrom configMapRef",
			conflict: Item{Preset: "p", Container: "x", Field: "envFrom", Key: "configMapRef etcd-env-config"},
			want:     "duplicate envFrom configMapRef etcd-env-config in container x",
		},
		{
			name:     "envFrom with prefix",
			conflict: Item{Preset: "p", Container: "x", Field: "envFrom", Key: "prefix DB_ configMapRef etcd-env-config"},
			want:     "duplicate envFrom prefix DB_ configMapRef etcd-env-config in container x",
		},
		{
			name:     "envFrom secretRef",
			conflict: Item{Preset: "p", Container: "x", Field: "envFrom", Key: "secretRef db-creds"},
			want:     "duplicate envFrom secretRef db-creds in container x",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.conflict.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTargetOwnerWithoutUIDOrController: an unnamed pod's event goes to its
// controller owner, with the owner's UID, and to no owner that is not its
// controller.
func TestTargetOwnerWithoutUIDOrController(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "j-"}}
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "j", Controller: new(false)}}
	if ref := Target(pod, "ns"); ref != nil {
		t.Errorf("Target = %+v for a non-controller owner, want nil", ref)
	}
	pod.OwnerReferences[0].Controller = new(true)
	pod.OwnerReferences[0].UID = "job-uid"
	want := corev1.ObjectReference{APIVersion: "batch/v1", Kind: "Job", Namespace: "ns", Name: "j", UID: "job-uid"}
	if got := Target(pod, "ns"); got == nil || *got != want {
		t.Errorf("Target = %+v, want %+v", got, want)
	}
}
