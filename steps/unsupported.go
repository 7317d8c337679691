package steps

import (
	"reflect"

	"github.com/cucumber/godog"

	"presetsim.dev/presetsim/harness"
)

// unsupportedStep is a step's harness.UnsupportedError that godog reports
// as skipped: errors.Is(err, godog.ErrSkip) holds, and the reason stays
// reachable with harness.IsUnsupported.
type unsupportedStep struct{ *harness.UnsupportedError }

func (e unsupportedStep) Unwrap() []error { return []error{e.UnsupportedError, godog.ErrSkip} }

var errorType = reflect.TypeFor[error]()

// registrar registers step definitions whose UnsupportedErrors are turned
// into skips: a backend that cannot honour a step says so, and the scenario
// neither passes nor fails.
type registrar struct{ sc *godog.ScenarioContext }

// Step registers handler for expr. The handler's last result must be an
// error, as godog requires.
func (r registrar) Step(expr string, handler any) {
	v := reflect.ValueOf(handler)
	wrapped := reflect.MakeFunc(v.Type(), func(args []reflect.Value) []reflect.Value {
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
