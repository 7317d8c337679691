package valuediff

import "fmt"

// Absent stands for a value present on one side only, as Difference.Want
// or Got.
const Absent = "<absent>"

// Difference is one place where the expected and the actual value differ.
type Difference struct {
	// Path names the field, with list items named by key or index, e.g.
	// spec.containers[website].env[DB_PORT].value.
	Path string
	// Want and Got are the values rendered compactly: strings quoted,
	// numbers and booleans plain, maps and lists as compact JSON, and
	// "<absent>" for a value present on the other side only. For a list
	// whose items are the same but in another order, they are the item keys
	// in order, e.g. [A B].
	Want, Got string

	// order marks a difference in the order of a keyed list's items.
	order bool
}

// Order reports whether the difference is in the order of a keyed list's
// items rather than in the items themselves.
func (d Difference) Order() bool { return d.order }

// String renders the difference on one line, e.g.
// spec.containers[website].env[DB_PORT].value: want "6379", got "6380".
func (d Difference) String() string {
	if d.order {
		return fmt.Sprintf("%s: order: want %s, got %s", d.Path, d.Want, d.Got)
	}
	return fmt.Sprintf("%s: want %s, got %s", d.Path, d.Want, d.Got)
}
