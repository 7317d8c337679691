package app

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/internal/report/reporttest"
)

// TestApplyExplain: `presetsim apply --explain` on the five seed examples,
// as written (their mistakes named, with file and line), corrected with the
// presets left in namespace myns (the first thing a new user meets: R2.2),
// and with every object in one namespace; and one pod per rule of R2-R4
// that an explanation gives a verdict on. Golden files hold the output.
func TestApplyExplain(t *testing.T) {
	var cases []string
	for _, seed := range []string{"simple", "configmap", "replicaset", "multiple", "conflict"} {
		cases = append(cases, "seed-"+seed, "seed-"+seed+"-corrected", "seed-"+seed+"-one-namespace")
	}
	cases = append(cases, "rules")
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			file := filepath.Join("testdata", "explain", name+".yaml")
			err := runApply(context.Background(), nil, &stdout, &stderr, []string{"--explain", "-f", file})
			got := stdout.String()
			if err != nil {
				// The input's mistakes: what apply says of them is the output.
				got = "error: " + err.Error() + "\n"
			}
			reporttest.Golden(t, filepath.Join("explain", name), []byte(got), *update)
		})
	}
}

// TestApplyExplainJSON: the machine-readable form holds every verdict,
// with its rule, the items of a conflict and the items an applied preset
// added.
func TestApplyExplainJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := runApply(context.Background(), nil, &stdout, &stderr, []string{"--explain", "-o", "json", "-f", "testdata/explain/rules.yaml"}); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Source    string `json:"source"`
		Namespace string `json:"namespace"`
		Presets   []struct {
			Preset    string   `json:"preset"`
			Outcome   string   `json:"outcome"`
			Rule      rule.ID  `json:"rule"`
			Reason    string   `json:"reason"`
			Added     []string `json:"added"`
			Conflicts []struct {
				What, Preset, Existing string
			} `json:"conflicts"`
		} `json:"presets"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout.String())
	}
	rules := map[rule.ID]bool{}
	for _, pod := range got {
		for _, v := range pod.Presets {
			rules[v.Rule] = true
			if pod.Source == "Pod r4-1-conflict" && v.Preset == "db" {
				if v.Outcome != "conflict" || len(v.Conflicts) != 1 || !strings.Contains(v.Conflicts[0].Existing, `"5432"`) || !strings.Contains(v.Conflicts[0].Preset, `"6379"`) {
					t.Errorf("db on r4-1-conflict: %+v", v)
				}
			}
			if pod.Source == "Pod r2-3-applied" && v.Preset == "db" && len(v.Added) != 5 {
				t.Errorf("db on r2-3-applied added %v, want 5 items", v.Added)
			}
		}
	}
	for _, r := range []rule.ID{rule.R2_2, rule.R2_3, rule.R2_4, rule.R2_5, rule.R4_1, rule.R4_2} {
		if !rules[r] {
			t.Errorf("no verdict rests on %s; rules seen: %v", r, rules)
		}
	}
}
