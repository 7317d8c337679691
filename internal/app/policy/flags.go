package policy

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"presetsim.dev/presetsim/internal/app/cli"
	compiled "presetsim.dev/presetsim/presets/policy"
)

// optionFlags adds the flags of compiled.Options to fs; the function it
// returns reads them, with a usage error for a value the API server does
// not know.
func optionFlags(fs *pflag.FlagSet) func(cmd *cobra.Command) (compiled.Options, error) {
	failure := fs.String("failure-policy", string(admissionregistrationv1.Fail), "what the API server does when a policy cannot be evaluated: Fail (refuse the pod) or Ignore (admit it unmutated)")
	reinvocation := fs.String("reinvocation-policy", string(admissionregistrationv1.IfNeededReinvocationPolicy),
		"IfNeeded (presets also reach containers a later webhook adds; the API server then evaluates the policy twice per mutated pod) or Never")
	return func(cmd *cobra.Command) (compiled.Options, error) {
		o := compiled.Options{
			FailurePolicy: admissionregistrationv1.FailurePolicyType(*failure),
			Reinvocation:  admissionregistrationv1.ReinvocationPolicyType(*reinvocation),
		}
		if o.FailurePolicy != admissionregistrationv1.Fail && o.FailurePolicy != admissionregistrationv1.Ignore {
			return o, cli.UsageError(cmd, fmt.Sprintf("--failure-policy must be Fail or Ignore, not %q", *failure))
		}
		if o.Reinvocation != admissionregistrationv1.IfNeededReinvocationPolicy && o.Reinvocation != admissionregistrationv1.NeverReinvocationPolicy {
			return o, cli.UsageError(cmd, fmt.Sprintf("--reinvocation-policy must be IfNeeded or Never, not %q", *reinvocation))
		}
		return o, nil
	}
}
