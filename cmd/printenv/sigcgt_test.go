package main

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

func TestCatchesSIGTERM(t *testing.T) {
	tests := []struct {
		name    string
		status  string
		want    bool
		wantErr bool
	}{
		{name: "a Go program with signal.Notify", status: "Name:\tprintenv\nSigBlk:\t0000000000000000\nSigCgt:\tfffffffe7fc1feff\n", want: true},
		{name: "only SIGINT caught", status: "SigCgt:\t0000000000000002\n", want: false},
		{name: "only SIGTERM caught", status: "SigCgt:\t0000000000004000\n", want: true},
		{name: "nothing caught", status: "SigCgt:\t0000000000000000\n", want: false},
		{name: "no SigCgt line", status: "Name:\tx\n", wantErr: true},
		{name: "a mask that is not hexadecimal", status: "SigCgt:\tzz\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := catchesSIGTERM([]byte(tt.status))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want an error: %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("catchesSIGTERM = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCatchesSIGTERMOfThisHost reads a real process's status: a sleeping
// shell's child catches no SIGTERM, this test binary (the Go runtime
// installs its handlers at start) does.
func TestCatchesSIGTERMOfThisHost(t *testing.T) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc on this host: %v", err)
	}
	if got, err := catchesSIGTERM(status); err != nil || !got {
		t.Errorf("a Go process: catchesSIGTERM = %v, %v; want true", got, err)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sleep: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	time.Sleep(50 * time.Millisecond)
	status, err = os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := catchesSIGTERM(status); err != nil || got {
		t.Errorf("sleep: catchesSIGTERM = %v, %v; want false", got, err)
	}
}
