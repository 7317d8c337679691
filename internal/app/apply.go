package app

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/preview"
)

// ConflictExitCode is apply's exit status when --fail-on-conflict is set and
// a pod has a conflict.
const ConflictExitCode = 3

// apply previews, without an API server, what the presets in the input do to
// its pods and to the pods its workloads' templates would produce.
func newApplyCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "apply (-f FILE [-f FILE ...] | --diff BASE HEAD [-f FILE ...]) [flags]",
		Short: "preview offline what presets do to pods and workloads",
		Long: `Reads manifests (multi-document YAML) holding PodPresets, pods and workloads, and shows the
pods as the reference admission plug-in admits them (or, with --implementation policy, the
presets compiled into MutatingAdmissionPolicies, evaluated by the API server's own
mutating-policy plug-in), without an API server: each pod, and the
pod each workload's template would produce, in its namespace, with the presets of that
namespace. Mistakes in the input are reported with their file, line and field, every one of
them: YAML and schema errors, and presets the specification refuses (an invalid selector,
nothing to inject).

With --diff BASE HEAD, it shows instead what a change does to every pod: BASE and HEAD are
each a file, a folder or REV:PATH (a file or folder at a git revision, as git show reads it),
read with the -f files both sides share; it prints, per pod or workload admitted differently,
the items added, removed or changed, the conflicts it now has and the presets it now gets or no
longer gets, as Markdown a review can quote (-o json for a machine-readable form).

Exit status: 0, 1 on an error in the input, 2 on a usage error, 3 with --fail-on-conflict when
a pod has a conflict, or with --diff when the change gives a pod a conflict it did not have.`,
		Example: `  presetsim apply -f presets.yaml -f deployment.yaml
  presetsim apply -f manifests.yaml -o diff
  presetsim apply -f presets.yaml -f pod.yaml --explain
  presetsim apply -f manifests.yaml --implementation policy -o diff
  kubectl get podpresets,deployments -o yaml | presetsim apply -f - --fail-on-conflict
  presetsim apply --diff main:presets HEAD:presets -f workloads/
  presetsim apply --diff before/ after/ -o json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if diff, _ := cmd.Flags().GetBool("diff"); diff && len(args) != 2 {
				return cli.UsageError(cmd, fmt.Sprintf("--diff compares two sides, BASE and HEAD, not %d", len(args)))
			} else if diff {
				return nil
			}
			return cli.NoArgs(cmd, args)
		},
	}
	fs := cmd.Flags()
	var files []string
	fs.StringArrayVarP(&files, "filename", "f", nil, "manifest file (multi-document YAML), folder of them, or - for standard input; repeatable")
	output := fs.StringP("output", "o", "yaml", "output: yaml (the admitted pods), json, or diff (submitted → admitted)")
	color := fs.String("color", "auto", "colour the diff: auto (when writing to a terminal), always, never")
	explainFlag := fs.Bool("explain", false, "instead of the pods, say for every pod and preset whether it applies and why (-o json for a machine-readable form)")
	failOnConflict := fs.Bool("fail-on-conflict", false, fmt.Sprintf("exit with status %d when a pod has a conflict", ConflictExitCode))
	diff := fs.Bool("diff", false, "compare two sides, BASE and HEAD (files, folders or REV:PATH at a git revision), and show what the change does to every pod as Markdown (or -o json)")
	impl := fs.String("implementation", string(preview.Reference), "what admits the pods: reference (the reference admission plug-in) or policy (the presets compiled into MutatingAdmissionPolicies, evaluated by the API server's own plug-in)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		if *diff {
			return runApplyDiff(cmd, stdin, stdout, applyDiff{files: files, base: args[0], head: args[1], impl: preview.Implementation(*impl), explain: *explainFlag})
		}
		if len(files) == 0 || len(args) > 0 {
			fmt.Fprintln(stderr, "usage: presetsim apply -f FILE [-f FILE ...] [-o yaml|json|diff] [--fail-on-conflict]")
			return cli.ExitError{Code: 2}
		}
		if err := checkImplementation(stderr, preview.Implementation(*impl)); err != nil {
			return err
		}
		format, err := applyFormat(*output, *explainFlag, useColor(*color, stdout))
		if err != nil {
			return err
		}
		// The presets must all be known before a pod is admitted: the
		// manifests are read first, keeping the presets and each pod as
		// JSON; the pods are then admitted and written one by one.
		var in preview.Input
		var addErr error
		err = cli.ScanManifests(files, stdin, func(o manifest.Object) {
			if err := in.Add(o); err != nil {
				addErr = errors.Join(addErr, err)
			}
		})
		if err := errors.Join(err, addErr); err != nil {
			return err
		}
		if in.Pods() == 0 {
			fmt.Fprintln(stderr, "no pod or workload in the input")
		}
		buffered := bufio.NewWriterSize(stdout, 256<<10)
		out := preview.NewWriter(buffered, format)
		conflicts, pods := 0, 0
		opts := preview.Options{Implementation: preview.Implementation(*impl), Workers: runtime.GOMAXPROCS(0), Explain: *explainFlag}
		err = preview.Each(ctx, &in, opts, format.Render, func(r preview.Result, part []byte) error {
			pods++
			if r.Conflicted() {
				conflicts++
			}
			return out.Write(part)
		})
		if err == nil {
			err = out.Close()
		}
		if ferr := buffered.Flush(); err == nil {
			err = ferr
		}
		if err != nil {
			return err
		}
		if conflicts > 0 && *failOnConflict {
			fmt.Fprintf(stderr, "%d of %d pods have a PodPreset conflict\n", conflicts, pods)
			return cli.ExitError{Code: ConflictExitCode}
		}
		return nil
	}
	return cmd
}

// applyFormat is apply's output format, from -o and --explain.
func applyFormat(output string, explain, color bool) (preview.Format, error) {
	switch {
	case explain && output == "json":
		return preview.ExplanationJSON, nil
	case explain && (output == "yaml" || output == "text"):
		return preview.Explanation, nil
	case explain:
		return preview.Format{}, fmt.Errorf("unknown output %q with --explain (want text or json)", output)
	case output == "yaml":
		return preview.YAML, nil
	case output == "json":
		return preview.JSON, nil
	case output == "diff":
		return preview.Diff(color), nil
	}
	return preview.Format{}, fmt.Errorf("unknown output %q (want yaml, json or diff)", output)
}

// checkImplementation refuses an --implementation preview does not know.
func checkImplementation(stderr io.Writer, impl preview.Implementation) error {
	if !slices.Contains(preview.Implementations, impl) {
		fmt.Fprintf(stderr, "unknown --implementation %q (want reference or policy)\n", impl)
		return cli.ExitError{Code: 2}
	}
	return nil
}

// applyDiff is what apply --diff compares.
type applyDiff struct {
	// files are read on both sides; base and head on one each.
	files      []string
	base, head string
	impl       preview.Implementation
	explain    bool
}

// runApplyDiff admits the pods of both sides and writes how they differ;
// exit status ConflictExitCode when the head gives a pod a conflict.
func runApplyDiff(cmd *cobra.Command, stdin io.Reader, stdout io.Writer, d applyDiff) error {
	output := "markdown"
	if cmd.Flags().Changed("output") {
		output, _ = cmd.Flags().GetString("output")
	}
	switch {
	case d.explain:
		return cli.UsageError(cmd, "--explain and --diff do not go together")
	case output != "markdown" && output != "json":
		return cli.UsageError(cmd, fmt.Sprintf("unknown output %q with --diff (want markdown or json)", output))
	case d.base == "-" && d.head == "-":
		return cli.UsageError(cmd, "BASE and HEAD cannot both be standard input")
	case slices.Contains(d.files, "-"):
		return cli.UsageError(cmd, "with --diff, -f files are read on both sides, and standard input can be read once: give it as BASE or HEAD")
	}
	if err := checkImplementation(cmd.ErrOrStderr(), d.impl); err != nil {
		return err
	}
	side := func(arg string) ([]preview.Result, error) {
		objs, err := cli.ReadManifests(append(slices.Clone(d.files), arg), stdin)
		if err != nil {
			return nil, err
		}
		return preview.Run(cmd.Context(), objs, d.impl)
	}
	base, err := side(d.base)
	if err != nil {
		return err
	}
	head, err := side(d.head)
	if err != nil {
		return err
	}
	changes := preview.Compare(base, head)
	changes.Base, changes.Head = d.base, d.head
	if output == "json" {
		err = preview.WriteChangesJSON(stdout, changes)
	} else {
		err = preview.WriteChangesMarkdown(stdout, changes)
	}
	if err != nil {
		return err
	}
	if changes.MadeConflict() {
		return cli.ExitError{Code: ConflictExitCode}
	}
	return nil
}

func useColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
