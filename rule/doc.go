// Package rule is the catalogue of the specification's rules
// (docs/specification.md): each rule's id as a typed constant, its title
// and its section. Every verdict presetsim makes names rules by these ids —
// the steps' checks, the oracle's disagreements, the reports, `presetsim
// rules` — and feature files tag scenarios with them ("@R4.3"). Outside
// this package and the feature files no rule id is written as a string.
//
// The ids are the founding specification's and never change; a test keeps
// the catalogue equal to the document, rule by rule and in order.
package rule
