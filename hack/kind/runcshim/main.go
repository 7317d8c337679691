package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "probe":
			return
		case "install":
			if err := install(os.Args[2:]); err != nil {
				fmt.Fprintln(os.Stderr, "runcshim install:", err)
				os.Exit(1)
			}
			return
		}
	}
	if err := runRuntime(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "runcshim:", err)
		os.Exit(1)
	}
}

// runRuntime trims the configuration named by args, if any, and replaces the
// process with runc.
func runRuntime(args []string) error {
	bounding, err := boundingSet()
	if err != nil {
		return err
	}
	if file := configFile(args); file != "" {
		if err := trimFile(file, bounding); err != nil {
			return err
		}
	}
	runc, err := exec.LookPath("runc")
	if err != nil {
		return fmt.Errorf("finding runc: %w", err)
	}
	return syscall.Exec(runc, append([]string{"runc"}, args...), os.Environ())
}
