package containerenv

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// FuzzResolve: Resolve never panics, and a value made of literal text,
// $$ escapes and $(NAME) references comes out with every reference either
// resolved (NAME defined earlier) or left as written.
func FuzzResolve(f *testing.F) {
	f.Add("$(A)-$$(B)-$(C", "A", "x", []byte{0, 1, 2, 3})
	f.Add("$", "", "", []byte{})
	f.Add("$$$(A)$(B)$", "B", "$(A)", []byte{2, 2, 1, 0, 3})
	f.Fuzz(func(t *testing.T, raw, name, value string, plan []byte) {
		defined := []corev1.EnvVar{{Name: "A", Value: "a"}}
		// A defined value is expanded too; without '$' it stays as written,
		// which the model below relies on.
		value = strings.ReplaceAll(value, "$", "")
		if ValidName(name) {
			defined = append(defined, corev1.EnvVar{Name: name, Value: value})
		}
		// Any input: no panic.
		p := pod(corev1.Container{Env: append(append([]corev1.EnvVar(nil), defined...), corev1.EnvVar{Name: "RAW", Value: raw})})
		if _, err := Resolve(p, &p.Spec.Containers[0], Sources{}); err != nil {
			t.Fatalf("Resolve without sources failed: %v", err)
		}

		// A value built from the plan, with its expected expansion.
		lookup := map[string]string{}
		for _, d := range defined {
			lookup[d.Name] = d.Value // later definitions win, as in Resolve
		}
		var in, want strings.Builder
		for i, b := range plan {
			switch b % 4 {
			case 0: // literal text without '$'
				text := strings.ReplaceAll(raw, "$", "")
				in.WriteString(text)
				want.WriteString(text)
			case 1: // a reference to a defined variable
				in.WriteString("$(A)")
				want.WriteString(lookup["A"])
			case 2: // a reference to an undefined variable stays as written
				ref := "$(UNDEFINED_" + strings.Repeat("X", i%3) + ")"
				in.WriteString(ref)
				want.WriteString(ref)
			case 3: // an escaped operator
				in.WriteString("$$")
				want.WriteString("$")
			}
		}
		p = pod(corev1.Container{Env: append(append([]corev1.EnvVar(nil), defined...), corev1.EnvVar{Name: "PLANNED", Value: in.String()})})
		env, err := Resolve(p, &p.Spec.Containers[0], Sources{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := env.Lookup("PLANNED")
		if in.Len() > 0 && got.Value != want.String() {
			t.Errorf("expand(%q) = %q, want %q", in.String(), got.Value, want.String())
		}
	})
}
