// Package attribution decides which rules of the specification
// (docs/specification.md) a check's outcome is credited to: the rule groups
// the step table uses, a scenario's rule tags, and, for a failed pod
// comparison, the rules each difference points at (an applied annotation
// missing with its items means the pod was not selected; an item missing
// means it was not injected; ...). A failure is blamed on the failing
// check's rules, narrowed by the scenario's tags.
package attribution
