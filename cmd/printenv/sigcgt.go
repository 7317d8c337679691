package main

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"syscall"
)

// catchesSIGTERM reads a /proc/PID/status and says whether the process has
// a handler for SIGTERM: its SigCgt line is a hexadecimal mask in which
// signal n is bit n-1.
func catchesSIGTERM(status []byte) (bool, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		mask, ok := strings.CutPrefix(sc.Text(), "SigCgt:")
		if !ok {
			continue
		}
		bits, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
		if err != nil {
			return false, fmt.Errorf("reading SigCgt %q: %w", mask, err)
		}
		return bits&(1<<(uint(syscall.SIGTERM)-1)) != 0, nil
	}
	return false, fmt.Errorf("no SigCgt line in /proc/1/status")
}
