package external

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// assignment is a leading NAME=value word of a command line.
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// ParseCommand splits a command line as a POSIX shell would split a simple
// command, without expanding anything: words are separated by blanks;
// 'single quotes' keep everything literally; "double quotes" keep
// everything but \", \\, \$ and \` (unescaped); a backslash outside quotes
// escapes the next character. Leading NAME=value words are environment
// variables for the command, as in `LOG=debug ./webhook --port 9443`.
func ParseCommand(line string) (env, args []string, err error) {
	var (
		words   []string
		word    strings.Builder
		inWord  bool
		quote   rune // 0, '\'' or '"'
		escaped bool
	)
	for _, r := range line {
		switch {
		case escaped:
			if quote == '"' && !strings.ContainsRune("\"\\$`", r) {
				word.WriteRune('\\')
			}
			word.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	switch {
	case escaped:
		return nil, nil, errors.New("the command ends with a lone backslash")
	case quote != 0:
		return nil, nil, fmt.Errorf("the command has an unterminated %c quote", quote)
	}
	if inWord {
		words = append(words, word.String())
	}
	for len(words) > 0 && assignment.MatchString(words[0]) {
		env, words = append(env, words[0]), words[1:]
	}
	if len(words) == 0 {
		return nil, nil, errors.New("the command names no program")
	}
	return env, words, nil
}
