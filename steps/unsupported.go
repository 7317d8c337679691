package steps

import (
	"context"
	"reflect"
	"time"

	"github.com/cucumber/godog"

	"presetsim.dev/presetsim/harness"
)

// unsupportedStep is a step's harness.UnsupportedError that godog reports
// as skipped: errors.Is(err, godog.ErrSkip) holds, and the reason stays
// reachable with harness.IsUnsupported.
type unsupportedStep struct{ *harness.UnsupportedError }

func (e unsupportedStep) Unwrap() []error { return []error{e.UnsupportedError, godog.ErrSkip} }

var (
	errorType   = reflect.TypeFor[error]()
	contextType = reflect.TypeFor[context.Context]()
)

// registrar registers step definitions whose UnsupportedErrors are turned
// into skips: a backend that cannot honour a step says so, and the scenario
// neither passes nor fails. Each step's context is bounded by timeout, so a
// backend that stops answering fails the step instead of hanging the run.
type registrar struct {
	sc      *godog.ScenarioContext
	timeout time.Duration
}

// Step registers handler for expr. The handler's last result must be an
// error, as godog requires.
func (r registrar) Step(expr string, handler any) {
	v := reflect.ValueOf(handler)
	wrapped := reflect.MakeFunc(v.Type(), func(args []reflect.Value) []reflect.Value {
		if len(args) > 0 && args[0].Type() == contextType && r.timeout > 0 {
			ctx, cancel := context.WithTimeout(args[0].Interface().(context.Context), r.timeout)
			defer cancel()
			args = append([]reflect.Value{reflect.ValueOf(ctx)}, args[1:]...)
		}
		out := v.Call(args)
		last := out[len(out)-1]
		if err, ok := last.Interface().(error); ok && err != nil {
			if u, ok := harness.IsUnsupported(err); ok {
				skip := reflect.New(errorType).Elem()
				skip.Set(reflect.ValueOf(unsupportedStep{u}))
				out[len(out)-1] = skip
			}
		}
		return out
	})
	r.sc.Step(expr, wrapped.Interface())
}
