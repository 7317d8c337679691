package envprint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The lines around the variables printed by cmd/printenv. The version in the
// header changes when the format does.
const (
	printedHeader = "presetsim-printenv v1"
	printedEnd    = "presetsim-printenv end"
)

// Format renders environ (NAME=VALUE entries, as os.Environ returns
// them) the way cmd/printenv prints it: a header line, one NAME=<quoted
// value> line per variable sorted by name, and an end line. Quoting keeps
// values with newlines on one line.
func Format(environ []string) string {
	lines := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		lines = append(lines, name+"="+strconv.Quote(value))
	}
	slices.Sort(lines)
	var b strings.Builder
	b.WriteString(printedHeader + "\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString(printedEnd + "\n")
	return b.String()
}

// Parse reads the environment that cmd/printenv printed into a
// container's log. It fails, naming the line, when the log holds no complete
// printout (the container has not printed yet, or was cut off) or a line is
// not NAME="value".
func Parse(log string) (map[string]string, error) {
	lines := strings.Split(log, "\n")
	start := slices.Index(lines, printedHeader)
	if start < 0 {
		return nil, fmt.Errorf("no %q line in the container's log", printedHeader)
	}
	env := map[string]string{}
	for i := start + 1; i < len(lines); i++ {
		line := lines[i]
		if line == printedEnd {
			return env, nil
		}
		if line == "" { // the end of a log that was cut off
			continue
		}
		name, quoted, ok := strings.Cut(line, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("log line %d: %q is not NAME=\"value\"", i+1, line)
		}
		value, err := strconv.Unquote(quoted)
		if err != nil {
			return nil, fmt.Errorf("log line %d: value of %s: %w", i+1, name, err)
		}
		env[name] = value
	}
	return nil, fmt.Errorf("the printout that starts on log line %d has no %q line", start+1, printedEnd)
}
