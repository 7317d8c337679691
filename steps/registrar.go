package steps

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/internal/scenario"
	"presetsim.dev/presetsim/internal/words"

	"github.com/cucumber/godog"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/oracle"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
)

// skippedStep is a step's reason to stop the scenario without failing it,
// reported by godog as skipped: errors.Is(err, godog.ErrSkip) holds, and an
// UnsupportedError stays reachable with backend.IsUnsupported.
type skippedStep struct{ error }

func (e skippedStep) Unwrap() []error { return []error{e.error, godog.ErrSkip} }

var (
	errorType   = reflect.TypeFor[error]()
	contextType = reflect.TypeFor[context.Context]()
)

// registrar registers step definitions with what each checks (checkSpec).
// Around every step it:
//   - bounds the step's context by timeout, so a backend that stops
//     answering fails the step instead of hanging the run;
//   - skips a check whose capability the profile does not claim, recording
//     it as not claimed, and goes on with the scenario;
//   - turns an UnsupportedError into a skip: the backend cannot honour the
//     step, and the scenario neither passes nor fails;
//   - records the check's outcome, credited to the rules it establishes;
//   - turns a failure that the declared model explains (judge) into a skip
//     recorded as "differs as declared".
type registrar struct {
	sc      *godog.ScenarioContext
	timeout time.Duration
	// expressions, when set, only collects the steps' expressions
	// (Expressions): nothing is registered. manifests, with it, collects
	// those of the steps whose DocString holds objects to create, and
	// inputs those of them whose objects must be accepted.
	expressions, manifests, inputs *[]*regexp.Regexp
	// reference, when set, only collects what each step is (Reference).
	reference *[]StepDoc
}

// Step registers handler for expr. The handler's first argument must be
// the context and its last result an error, as godog requires.
func (r registrar) Step(expr string, spec checkSpec, handler any) {
	if r.reference != nil {
		kind := "check"
		if spec.setup {
			kind = "setup"
		}
		*r.reference = append(*r.reference, StepDoc{Expression: expr, Kind: kind, Rules: spec.rules, Shows: spec.shows, Needs: spec.needs,
			DocString: takes[*godog.DocString](handler), Table: takes[*godog.Table](handler)})
		return
	}
	if r.expressions != nil {
		*r.expressions = append(*r.expressions, compiled(expr))
		if r.manifests != nil && spec.setup && !spec.fragment && takes[*godog.DocString](handler) {
			*r.manifests = append(*r.manifests, compiled(expr))
			if r.inputs != nil && !spec.tries {
				*r.inputs = append(*r.inputs, compiled(expr))
			}
		}
		return
	}
	recordDefinition(expr, 1)
	v := reflect.ValueOf(handler)
	// The wrapper captures the timeout, not r: godog keeps every step
	// result with its definition until the run ends, and through r.sc each
	// would keep its scenario's whole registry of steps alive.
	timeout := r.timeout
	wrapped := reflect.MakeFunc(v.Type(), func(args []reflect.Value) []reflect.Value {
		ctx := args[0].Interface().(context.Context)
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
			args = append([]reflect.Value{reflect.ValueOf(ctx)}, args[1:]...)
		}
		s := from(ctx)
		if s == nil {
			return v.Call(args)
		}
		if spec.needs != "" && !s.profile().Claims(spec.needs) {
			s.record(outcome.Check{Rules: oracle.Attribute(nil, spec.rules, s.tags), Outcome: outcome.NotClaimed,
				Reason: fmt.Sprintf("needs %s, which profile %s does not claim", spec.needs, s.profile().Metadata.Name)})
			return zeroResults(v.Type())
		}
		out := v.Call(args)
		if spec.setup {
			s.acted = time.Now()
		}
		last := out[len(out)-1]
		err, _ := last.Interface().(error)
		if result := s.judge(ctx, spec, err); result != err {
			set := reflect.New(errorType).Elem()
			if result != nil {
				set.Set(reflect.ValueOf(result))
			}
			out[len(out)-1] = set
		}
		return out
	})
	r.sc.Step(compiled(expr), wrapped.Interface())
}

// Expressions are the expressions of every step the suite defines, for
// checking feature files before a run (suitecheck).
func Expressions() []*regexp.Regexp {
	all, _ := expressionsAndManifests()
	return all
}

// ManifestExpressions are the expressions of the steps whose DocString
// holds objects to create (the setup steps that take one: "the PodPreset:",
// "I create the pod:", ...), whose YAML can be checked before a run.
func ManifestExpressions() []*regexp.Regexp {
	_, manifests := expressionsAndManifests()
	return manifests
}

func expressionsAndManifests() (all, manifests []*regexp.Regexp) {
	registerAll(registrar{expressions: &all, manifests: &manifests})
	return all, manifests
}

// InputExpressions are the expressions of the steps whose DocString holds
// objects the scenario creates as its input, which must be accepted ("the
// PodPreset:", "I create the pod:", not "I try to create:"): a preset among
// them that the specification refuses is a mistake of the feature file,
// found before a run (suitecheck).
func InputExpressions() []*regexp.Regexp {
	var all, manifests, inputs []*regexp.Regexp
	registerAll(registrar{expressions: &all, manifests: &manifests, inputs: &inputs})
	return inputs
}

// StepDoc is one step of the language, as the step registry defines it:
// what Reference lists and docs/steps.md renders.
type StepDoc struct {
	// Expression is the step's regular expression.
	Expression string
	// Kind is "setup" (it prepares the scenario; a failure is blamed on
	// its rules, within the scenario's tags) or "check".
	Kind string
	// Rules are the rules of the specification a failure is credited to
	// (before narrowing by the scenario's tags and the differences).
	Rules []rule.ID
	// Shows is the kind of evidence a check is (content, events, ...): a
	// profile's declared difference can excuse only checks that show it.
	Shows string
	// Needs is the profile capability the check needs, if any.
	Needs profile.Capability
	// DocString and Table say what the step takes after its line.
	DocString, Table bool
}

// Reference lists every step of the language, in registration order.
func Reference() []StepDoc {
	var docs []StepDoc
	registerAll(registrar{reference: &docs})
	return docs
}

// registerAll registers every step of the language.
func registerAll(r registrar) {
	register(r)
	registerWorkloads(r)
	registerEnvironment(r)
}

// takes reports whether a step handler has an argument of type T (a
// DocString, a Table).
func takes[T any](handler any) bool {
	t := reflect.TypeOf(handler)
	for i := range t.NumIn() {
		if t.In(i) == reflect.TypeFor[T]() {
			return true
		}
	}
	return false
}

// expressions are the steps' compiled expressions: every scenario
// registers every step, and godog compiles a string expression each time
// (150 MB alive at once in a run of 2,000 scenarios).
var expressions sync.Map // string → *regexp.Regexp

func compiled(expr string) *regexp.Regexp {
	if re, ok := expressions.Load(expr); ok {
		return re.(*regexp.Regexp)
	}
	re, _ := expressions.LoadOrStore(expr, regexp.MustCompile(expr))
	return re.(*regexp.Regexp)
}

// zeroResults are a handler's results for a step that did not run: zero
// values and a nil error.
func zeroResults(t reflect.Type) []reflect.Value {
	out := make([]reflect.Value, t.NumOut())
	for i := range out {
		out[i] = reflect.Zero(t.Out(i))
	}
	return out
}

// judge records a step's outcome and returns the error godog should see.
// A failure is credited to the rules its check establishes and, when the
// scenario's pods differ from the model's, to the rules those differences
// show; when a variant of the model explains the difference ("behaves as
// if"), its rule comes first. It is "differs as declared" only when every
// pod the scenario submitted came out as the model makes it under the
// profile's options, and either a declaration changes the model's outcome
// for those inputs (it is named) or the profile declares every credited
// rule different in the way the check shows (the scenario submitted no
// pod itself: "not verified").
func (s *state) judge(ctx context.Context, spec checkSpec, err error) error {
	if u, ok := backend.IsUnsupported(err); ok {
		return skippedStep{u}
	}
	if err == nil {
		if !spec.setup {
			s.record(outcome.Check{Rules: oracle.Attribute(nil, spec.rules, s.tags), Outcome: outcome.Passed})
		}
		return nil
	}
	var narrowed []rule.ID
	if spec.narrow != nil {
		narrowed = spec.narrow(err, s.profile().AnnotationPrefix())
	}
	rules := oracle.Attribute(narrowed, spec.rules, s.tags)
	if spec.setup && crdLacksField(err) {
		// The scenario's objects were decoded against the core types
		// before the run: a field the API server does not know for a
		// preset is one the implementation's CRD lacks, whatever the
		// scenario checks (R1.2: the core types' full schema).
		rules = mergeRules([]rule.ID{rule.R1_2}, rules)
	}
	v := s.againstModel(ctx)
	if d := v.disagreement; d != nil {
		switch {
		case d.AsIf != "":
			// A variant of the model explains what the implementation
			// did: its rule is the cause, the check's are what it led to.
			rules = mergeRules(d.Rules, rules)
		case slices.Contains(d.Rules, rule.R4_4):
			// The pod lost some of its own items or fields: whatever the
			// scenario is about, that is the fault to name, and no
			// declaration excuses it.
			rules = mergeRules([]rule.ID{rule.R4_4}, mergeRules(rules, d.Rules))
		default:
			rules = mergeRules(rules, d.Rules)
		}
		s.model.reported = true
	}
	var lost *scenario.LostOwn
	if errors.As(err, &lost) {
		// A workload's pod lost what its template gave it, where no model
		// of its admission says so (the scenario submitted the workload).
		rules = mergeRules([]rule.ID{rule.R4_4}, rules)
	}
	reason, declared := s.declared(rules, spec)
	if len(v.explained) > 0 {
		var ds []string
		for _, d := range v.explained {
			ds = append(ds, d.String())
		}
		reason, declared = fmt.Sprintf("profile %s declares %s", s.profile().Metadata.Name, strings.Join(ds, "; ")), true
	}
	switch {
	case !declared:
	case v.err != nil:
		err = fmt.Errorf("%w\n%s, but the difference could not be checked against the model: %v", err, reason, v.err)
	case v.disagreement != nil:
		err = fmt.Errorf("%w\n%s, but the implementation did not do what the model does under that declaration: %s\n%s",
			err, reason, v.disagreement.Summary, v.disagreement.Detail)
	default:
		reason += "; " + v.verified
		s.record(outcome.Check{Rules: rules, Outcome: outcome.Differs, Err: err, Reason: reason})
		return skippedStep{fmt.Errorf("differs as declared: %s: %w", reason, err)}
	}
	err = withWebhookOutput(err, s.scenario.World().ModuleOutput())
	s.record(outcome.Check{Rules: rules, Outcome: outcome.Failed, Err: err})
	return err
}

// crdLacksField reports whether err is the API server's refusal of an
// object for a field its schema does not know (strict field validation, as
// kubectl asks for).
func crdLacksField(err error) bool {
	return strings.Contains(err.Error(), "strict decoding error: unknown field")
}

// withWebhookOutput adds to a failure whose cause is the webhook itself
// (the API server could not call it, or it answered with an error: a
// panic shows as a stream error) the last lines of the webhook's process
// and where all of its output is, when the harness started it.
func withWebhookOutput(err error, output string) error {
	if output == "" || !strings.Contains(err.Error(), "failed calling webhook") {
		return err
	}
	cause := "the API server could not get an answer from the webhook: its process may have failed"
	for _, phrase := range serverErrors {
		if strings.Contains(err.Error(), phrase) {
			cause = "the webhook answered the API server with a server error (HTTP 5xx), not an admission review"
			break
		}
	}
	return fmt.Errorf("%w\n%s; %s", err, cause, output)
}

// serverErrors are how client-go words an HTTP 5xx answer (apierrors'
// generic server responses), which the API server passes on as the cause
// of a failed webhook call.
var serverErrors = []string{
	"an error on the server", "the server is currently unable to handle the request",
	"the server was unable to return a response", "the server has received too many requests",
}

// AnsweredCheck names the check that every admission request of the
// scenario got a valid answer (R5.3).
const AnsweredCheck = "every admission request the implementation was sent got a valid answer"

// answered fails R5.3 when a request in the scenario's namespaces got no
// valid answer from the implementation, whatever the failure policy then
// did and whether a step failed for it or not: the failed request is the
// cause, so its check goes first and names the rule first.
func (s *state) answered() error {
	var failed []string
	for _, ns := range s.scenario.OwnNamespaces() {
		failed = append(failed, s.scenario.World().FailedRequests(ns)...)
	}
	if len(failed) == 0 {
		return nil
	}
	err := fmt.Errorf("%d admission requests got no valid answer from the implementation:\n  %s", len(failed), strings.Join(grouped(failed, 5), "\n  "))
	if out := s.scenario.World().ModuleOutput(); out != "" {
		err = fmt.Errorf("%w\n%s", err, out)
	}
	s.checks = append([]outcome.Check{{Step: AnsweredCheck, Rules: []rule.ID{rule.R5_3}, Outcome: outcome.Failed, Err: err}}, s.checks...)
	return err
}

// findings are what the implementation did with the requests of the
// scenario its registration does not send it (World.FindingsIn): shown
// and counted, failing nothing.
func (s *state) findings() []outcome.Finding {
	var out []outcome.Finding
	for _, ns := range s.scenario.OwnNamespaces() {
		out = append(out, s.scenario.World().FindingsIn(ns)...)
	}
	return out
}

// DeliveredCheck names the check that the implementation was sent the
// CREATE of every pod the scenario submitted (R5.4).
const DeliveredCheck = "the implementation was sent the creation of every pod the scenario submitted"

// delivered fails R5.4 when the API server admitted a pod the scenario
// submitted without sending its CREATE to the implementation: its
// registration (a namespaceSelector, objectSelector or matchConditions of
// its own) left it out, and every check after it only shows a pod left
// alone, so its check goes first. Pods the harness cannot tell about (a
// webhook it cannot stand in front of, an in-process module) are not
// judged.
//
// Pods a controller made carry no name when they are admitted, so they are
// judged by namespace: when the implementation's own registration was found
// to leave pods out (RegistrationFindings), a namespace of the scenario
// with pods a controller made, of which it was sent no creation at all,
// fails R5.4 too.
func (s *state) delivered(ctx context.Context) error {
	w := s.scenario.World()
	var unsent []string
	for _, a := range s.scenario.Admissions() {
		if a.Returned == nil {
			continue // refused: by the implementation, or before it
		}
		if a.Unsent {
			what := fmt.Sprintf("pod %q", a.Pod.Name)
			if a.DryRun {
				what += " (dry run)"
			}
			unsent = append(unsent, what)
		}
	}
	if len(w.RegistrationFindings()) > 0 {
		for _, ns := range s.scenario.OwnNamespaces() {
			if n, known := w.PodCreatesSent(ns); !known || n > 0 {
				continue
			}
			pods, err := s.scenario.PodsIn(ctx, ns)
			if err != nil {
				continue // the check is of what could be seen
			}
			made := slices.DeleteFunc(pods, func(p corev1.Pod) bool { return len(p.OwnerReferences) == 0 })
			if len(made) > 0 {
				unsent = append(unsent, fmt.Sprintf("the %s controllers made in namespace %s", words.Count(len(made), "pod"), ns))
			}
		}
	}
	if len(unsent) == 0 {
		return nil
	}
	err := fmt.Errorf("the API server admitted %s without sending its creation to the implementation: its registration leaves it out", strings.Join(unsent, ", "))
	if findings := w.RegistrationFindings(); len(findings) > 0 {
		err = fmt.Errorf("%w (%s)", err, strings.Join(findings, "; "))
	}
	s.checks = append([]outcome.Check{{Step: DeliveredCheck, Rules: []rule.ID{rule.R5_4}, Outcome: outcome.Failed, Err: err}}, s.checks...)
	return err
}

// grouped lists sentences once each, with how many times each came when
// more than once, at most limit of them and a line for the rest.
func grouped(sentences []string, limit int) []string {
	var order []string
	count := map[string]int{}
	for _, s := range sentences {
		if count[s] == 0 {
			order = append(order, s)
		}
		count[s]++
	}
	var out []string
	for i, s := range order {
		if i == limit {
			out = append(out, fmt.Sprintf("… and %d more kinds", len(order)-limit))
			break
		}
		if count[s] > 1 {
			s = fmt.Sprintf("%d×: %s", count[s], s)
		}
		out = append(out, s)
	}
	return out
}

// ModelCheck names the check the model makes after a scenario's last step.
const ModelCheck = "the pods the scenario submitted came out as the model makes them"

// finalVerdict is the model's verdict on a scenario whose steps all held:
// a pod that came out otherwise than the model makes it under the profile
// (something no step looked at) fails the scenario, credited to the rules
// its differences show.
func (s *state) finalVerdict(ctx context.Context) error {
	v := s.againstModel(ctx)
	var err error
	switch {
	case v.err != nil:
		err = v.err
	case v.disagreement != nil && !s.model.reported:
		s.model.reported = true
		err = fmt.Errorf("every step held, but a pod the scenario submitted came out otherwise than the model makes it under profile %s: %s\n%s",
			s.profile().Metadata.Name, v.disagreement.Summary, v.disagreement.Detail)
	default:
		return nil
	}
	var rules []rule.ID
	if v.disagreement != nil {
		rules = v.disagreement.Rules
	}
	s.checks = append(s.checks, outcome.Check{Step: ModelCheck, Rules: rules, Outcome: outcome.Failed, Err: err})
	return err
}

// verdict is what the model says of the scenario's pod admissions.
type verdict struct {
	// disagreement is the first admission the implementation made
	// differently from every outcome the model allows.
	disagreement *oracle.Disagreement
	// verified says what was checked when nothing disagreed.
	verified string
	// explained are the profile's declarations that change the model's
	// outcome for the scenario's admissions, when nothing disagreed.
	explained []profile.Difference
	err       error
}

// againstModel compares every pod the scenario's steps submitted with the
// model under the profile (internal/oracle.CheckAdmission); each admission
// is checked once, and the first that disagrees is kept.
func (s *state) againstModel(ctx context.Context) verdict {
	admissions := s.scenario.Admissions()
	if len(admissions) == 0 {
		return verdict{verified: "not verified: the scenario submitted no pod itself"}
	}
	for ; s.model.checked < len(admissions) && s.model.disagreement == nil; s.model.checked++ {
		d, err := oracle.CheckAdmission(ctx, s.scenario, admissions[s.model.checked])
		if err != nil {
			return verdict{err: fmt.Errorf("unable to compare a pod with the model: %w", err)}
		}
		s.model.disagreement = d
	}
	if s.model.disagreement != nil {
		return verdict{disagreement: s.model.disagreement}
	}
	return verdict{explained: oracle.Explain(s.scenario.World(), admissions), verified: fmt.Sprintf("verified: the %s the scenario submitted came out as the model makes them under the profile", words.Count(len(admissions), "pod"))}
}

// mergeRules is a ∪ b, in a's order, then b's.
func mergeRules(a, b []rule.ID) []rule.ID {
	out := slices.Clone(a)
	for _, r := range b {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
