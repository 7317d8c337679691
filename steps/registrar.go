package steps

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/cucumber/godog"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/steps/attribution"
	"presetsim.dev/presetsim/steps/result"
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
//   - turns a failure that the profile declares (profile.Differences) into a
//     skip recorded as "differs as declared".
type registrar struct {
	sc      *godog.ScenarioContext
	timeout time.Duration
}

// Step registers handler for expr. The handler's first argument must be
// the context and its last result an error, as godog requires.
func (r registrar) Step(expr string, spec checkSpec, handler any) {
	v := reflect.ValueOf(handler)
	wrapped := reflect.MakeFunc(v.Type(), func(args []reflect.Value) []reflect.Value {
		ctx := args[0].Interface().(context.Context)
		if r.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, r.timeout)
			defer cancel()
			args = append([]reflect.Value{reflect.ValueOf(ctx)}, args[1:]...)
		}
		s := from(ctx)
		if s == nil {
			return v.Call(args)
		}
		if spec.needs != "" && !s.profile().Claims(spec.needs) {
			s.record(result.Check{Rules: attribution.Attribute(nil, spec.rules, s.tags), Outcome: result.CheckNotClaimed,
				Reason: fmt.Sprintf("needs %s, which profile %s does not claim", spec.needs, s.profile().Metadata.Name)})
			return zeroResults(v.Type())
		}
		out := v.Call(args)
		last := out[len(out)-1]
		err, _ := last.Interface().(error)
		if result := s.judge(spec, err); result != err {
			set := reflect.New(errorType).Elem()
			if result != nil {
				set.Set(reflect.ValueOf(result))
			}
			out[len(out)-1] = set
		}
		return out
	})
	r.sc.Step(expr, wrapped.Interface())
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
func (s *state) judge(spec checkSpec, err error) error {
	if u, ok := backend.IsUnsupported(err); ok {
		return skippedStep{u}
	}
	if err == nil {
		if !spec.setup {
			s.record(result.Check{Rules: attribution.Attribute(nil, spec.rules, s.tags), Outcome: result.CheckPassed})
		}
		return nil
	}
	var narrowed []string
	if spec.narrow != nil {
		narrowed = spec.narrow(err, s.profile().AnnotationPrefix())
	}
	rules := attribution.Attribute(narrowed, spec.rules, s.tags)
	if reason, ok := s.declared(rules, spec); ok {
		s.record(result.Check{Rules: rules, Outcome: result.CheckDeclared, Err: err, Reason: reason})
		return skippedStep{fmt.Errorf("differs as declared: %s: %w", reason, err)}
	}
	s.record(result.Check{Rules: rules, Outcome: result.CheckFailed, Err: err})
	return err
}
