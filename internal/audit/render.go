package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteTable writes the report as a table by workload, each drifted
// workload's findings and the command that fixes it below it.
func WriteTable(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tWORKLOAD\tPODS\tDRIFTED\tFINDINGS")
	for _, wl := range r.Workloads {
		drifted := 0
		counts := map[string]int{}
		var order []string
		for _, p := range wl.Pods {
			if len(p.Findings) > 0 {
				drifted++
			}
			for _, f := range p.Findings {
				key := f.Kind + " " + f.Preset
				if counts[key] == 0 {
					order = append(order, key)
				}
				counts[key]++
			}
		}
		summary := "-"
		if len(order) > 0 {
			parts := make([]string, len(order))
			for i, k := range order {
				parts[i] = fmt.Sprintf("%s (%d)", k, counts[k])
			}
			summary = strings.Join(parts, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s/%s\t%d\t%d\t%s\n", wl.Namespace, wl.Kind, wl.Name, len(wl.Pods), drifted, summary)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, wl := range r.Workloads {
		if !wl.Drifted() {
			continue
		}
		fmt.Fprintf(w, "\n%s/%s in %s:\n", wl.Kind, wl.Name, wl.Namespace)
		var seen []string
		for _, p := range wl.Pods {
			for _, f := range p.Findings {
				line := fmt.Sprintf("  %s: %s", f.Kind, f.Detail)
				if !slices.Contains(seen, line) {
					seen = append(seen, line)
					fmt.Fprintln(w, line)
				}
			}
		}
		fmt.Fprintf(w, "  fix: %s\n", wl.Fix)
	}
	if r.Unowned > 0 {
		fmt.Fprintf(w, "\n%d pods owned by no workload were not audited: nothing re-creates them from a template.\n", r.Unowned)
	}
	return nil
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
