package policy_test

import (
	"fmt"
	"strings"
	"testing"

	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/environment"
)

// checkerExpression is an expression of n identical terms, each a string
// concatenation wrapped in dyn(): calls of overloaded functions, as the
// compiled policy's appends are made of.
func checkerExpression(n int) string {
	terms := make([]string, n)
	for i := range terms {
		terms[i] = `dyn("/spec/containers/" + string(i) + "/env")`
	}
	return "[1].map(i, [" + strings.Join(terms, ", ") + "])"
}

// BenchmarkCheckerCalls: compiling an expression with the API server's
// compiler, as its policy plug-ins do when a policy is written, for n = 25
// to 200 terms of the same three calls. cel-go's type checker copies its
// table of type substitutions for every overload it tries, and the table
// grows with every generic call checked before, so doubling the terms
// about quadruples the time (docs/policy.md, Upstream).
func BenchmarkCheckerCalls(b *testing.B) {
	for _, n := range []int{25, 50, 100, 200} {
		expr := checkerExpression(n)
		b.Run(fmt.Sprintf("terms=%d", n), func(b *testing.B) {
			compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
			if err != nil {
				b.Fatal(err)
			}
			opts := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
			for b.Loop() {
				r := compiler.CompileCELExpression(&validating.Variable{Name: "v", Expression: expr}, opts, environment.StoredExpressions)
				if r.Error != nil {
					b.Fatal(r.Error)
				}
			}
		})
	}
}
