package pathlock

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Lock is a claimed path. Release removes the path and the lock file.
type Lock struct {
	path string
	file *os.File
}

// HeldError is the refusal of a path another process holds.
type HeldError struct {
	Path string
	// Pid is the holder's, or 0 when its lock file does not say.
	Pid int
}

func (e *HeldError) Error() string {
	holder := "another process"
	if e.Pid > 0 {
		holder = "process " + strconv.Itoa(e.Pid)
	}
	return fmt.Sprintf("%s is in use by %s", e.Path, holder)
}

// Claim claims path for this process, or returns a *HeldError when another
// process holds it.
func Claim(path string) (*Lock, error) {
	for {
		f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("unable to claim %s: %w", path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			pid := readPid(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &HeldError{Path: path, Pid: pid}
			}
			return nil, fmt.Errorf("unable to claim %s: %w", path, err)
		}
		// The holder before may have released (and removed) the lock file
		// between our open and our lock: then the lock is on a file no one
		// else will open, and the claim starts again.
		if same, err := isCurrent(f, path+".lock"); err != nil || !same {
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("unable to claim %s: %w", path, err)
			}
			continue
		}
		if err := writePid(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("unable to claim %s: %w", path, err)
		}
		return &Lock{path: path, file: f}, nil
	}
}

// Release removes the claimed path and the lock file, then gives up the
// claim. It is safe to call more than once.
func (l *Lock) Release() error {
	if l.file == nil {
		return nil
	}
	errs := []error{removeIfExists(l.path), removeIfExists(l.path + ".lock")}
	errs = append(errs, l.file.Close()) // closing drops the flock
	l.file = nil
	return errors.Join(errs...)
}

func isCurrent(f *os.File, name string) (bool, error) {
	held, err := f.Stat()
	if err != nil {
		return false, err
	}
	current, err := os.Stat(name)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(held, current), nil
}

func writePid(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

func readPid(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		return 0
	}
	return pid
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
