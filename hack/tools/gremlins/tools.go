//go:build tools

// Package tools pins gremlins, the mutation-testing tool of make mutation.
package tools

import _ "github.com/go-gremlins/gremlins/cmd/gremlins"
