package procs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is a process as the record keeps it: its start time (in clock
// ticks since boot) tells it apart from a later process given the same pid.
type Process struct {
	PID     int    `json:"pid"`
	Start   uint64 `json:"start"`
	Command string `json:"command"`
}

func (p Process) String() string { return fmt.Sprintf("%s (pid %d)", p.Command, p.PID) }

// record is the file one run keeps: itself, the processes it started and
// the temporary directories it made (certificates and keys, etcd data).
type record struct {
	Owner    Process   `json:"owner"`
	Children []Process `json:"children"`
	Dirs     []string  `json:"dirs,omitempty"`
	// TempDir is the temporary directory the run made Dirs in (its
	// TMPDIR), so that a next run with another TMPDIR still removes them.
	TempDir string `json:"tempDir,omitempty"`
	// Resources are what the run made outside this host's files and
	// processes (a kind cluster), for their backend to remove.
	Resources []Resource `json:"resources,omitempty"`
}

// Resource is something a run made that its backend knows how to remove:
// Backend names the backend, Name the thing (a kind cluster's name).
type Resource struct {
	Backend string `json:"backend"`
	Name    string `json:"name"`
}

// Records keeps the record of one run in Dir: one file per run, named
// after the process and the run (a process may hold several runs, as
// tests do).
type Records struct {
	// Dir holds the records; Dir() when empty.
	Dir string
	// Run names this run's record among its process's; "" for one run per
	// process.
	Run string

	dirs      []string
	resources []Resource
}

// Reaped is what Reap removed, and the resources of killed runs for their
// backends to remove.
type Reaped struct {
	Processes []Process
	Dirs      []string
	Resources []Resource
}

// Dir is where runs keep their records by default: presetsim/runs under
// the user's cache directory (or the temporary directory without one).
func Dir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "presetsim", "runs")
}

func (r Records) dir() string {
	if r.Dir != "" {
		return r.Dir
	}
	return Dir()
}

// Track adds a temporary directory the run made to its record, and saves
// it, so that the next run removes the directory if this one is killed.
// Only a directory made by os.MkdirTemp with a "presetsim-" pattern (or
// envtest's) is ever removed by Reap.
func (r *Records) Track(dir string) error {
	r.dirs = append(r.dirs, dir)
	return r.Save()
}

// TrackResource adds a resource the run made to its record, and saves it,
// so that the next run has its backend remove it if this one is killed.
func (r *Records) TrackResource(res Resource) error {
	r.resources = append(r.resources, res)
	return r.Save()
}

// Save records this process and its children as they are now, and the
// tracked directories and resources, replacing what it recorded before. Without /proc
// (not Linux) it records nothing.
func (r *Records) Save() error {
	self, ok := read(os.Getpid())
	if !ok {
		return nil
	}
	self.Process = named(self.Process)
	children, err := childrenOf(os.Getpid())
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(record{Owner: self.Process, Children: children, Dirs: r.dirs, TempDir: filepath.Clean(os.TempDir()), Resources: r.resources}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(r.dir(), 0o700); err != nil {
		return fmt.Errorf("unable to keep the run's process record: %w", err)
	}
	path := r.path()
	if err := os.WriteFile(path+".tmp", data, 0o600); err != nil {
		return fmt.Errorf("unable to keep the run's process record: %w", err)
	}
	return os.Rename(path+".tmp", path)
}

// Remove deletes this process's record, as a run does when it has stopped
// everything it started.
func (r *Records) Remove() error {
	err := os.Remove(r.path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// path is this run's record.
func (r *Records) path() string {
	name := strconv.Itoa(os.Getpid())
	if r.Run != "" {
		name += "-" + r.Run
	}
	return filepath.Join(r.dir(), name+".json")
}

// Reap stops the processes that runs which are gone (killed, say, with
// SIGKILL, which no program can catch) left running, and deletes their
// records, then removes the temporary directories they made. It returns
// what it stopped and removed. A recorded process is stopped only if it
// still runs with the same pid and start time, so a pid the system has
// given to another process since is left alone; records of runs still
// running are left alone too.
func (r Records) Reap() (Reaped, error) {
	files, err := filepath.Glob(filepath.Join(r.dir(), "*.json"))
	if err != nil {
		return Reaped{}, err
	}
	var (
		reaped Reaped
		errs   []error
	)
	for _, file := range files {
		var rec record
		data, err := os.ReadFile(file)
		if err == nil {
			err = json.Unmarshal(data, &rec)
		}
		if err != nil {
			// Not one of ours, or half written: leave it, say so.
			errs = append(errs, fmt.Errorf("process record %s: %w", file, err))
			continue
		}
		if running(rec.Owner) {
			continue
		}
		for _, p := range rec.Children {
			if !running(p) {
				continue
			}
			if err := kill(p); err != nil {
				errs = append(errs, fmt.Errorf("unable to stop %s, left by an earlier run: %w", p, err))
				continue
			}
			reaped.Processes = append(reaped.Processes, p)
		}
		root := rec.TempDir
		if root == "" || !filepath.IsAbs(root) {
			root = os.TempDir()
		}
		for _, dir := range rec.Dirs {
			if !temporary(dir, root) {
				errs = append(errs, fmt.Errorf("process record %s: not removing %s, which is not a temporary directory of a run", file, dir))
				continue
			}
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err := os.RemoveAll(dir); err != nil {
				errs = append(errs, fmt.Errorf("unable to remove %s, left by an earlier run: %w", dir, err))
				continue
			}
			reaped.Dirs = append(reaped.Dirs, dir)
		}
		reaped.Resources = append(reaped.Resources, rec.Resources...)
		if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return reaped, errors.Join(errs...)
}

// temporaryPrefixes begin the names of the directories a record may list:
// the run's own, and the one envtest makes for its webhook certificates.
var temporaryPrefixes = []string{"presetsim-", "envtest-serving-certs-"}

// temporary reports whether dir is one a run may have made: directly in
// the run's temporary directory (root), with one of temporaryPrefixes. A record that
// says otherwise is not trusted with a RemoveAll.
func temporary(dir, root string) bool {
	if !filepath.IsAbs(dir) || filepath.Clean(dir) != dir || filepath.Dir(dir) != filepath.Clean(root) {
		return false
	}
	base := filepath.Base(dir)
	for _, p := range temporaryPrefixes {
		if strings.HasPrefix(base, p) && len(base) > len(p) {
			return true
		}
	}
	return false
}

// kill sends SIGKILL to the process (and to its process group when it leads
// one, as envtest's processes do) and waits up to 5 s for it to be gone.
func kill(p Process) error {
	target := p.PID
	if pgid, err := syscall.Getpgid(p.PID); err == nil && pgid == p.PID {
		target = -p.PID
	}
	if err := syscall.Kill(target, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	deadline := time.Now().Add(5 * time.Second)
	for running(p) {
		if time.Now().After(deadline) {
			return errors.New("still running 5s after SIGKILL")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// ChildWith returns the live child of this process that has arg among its
// command-line arguments, the first found; ok is false when none has (or
// there is no /proc).
func ChildWith(arg string) (p Process, ok bool) {
	children, err := childrenOf(os.Getpid())
	if err != nil {
		return Process{}, false
	}
	for _, c := range children {
		if slices.Contains(commandLine(c.PID), arg) {
			return c, true
		}
	}
	return Process{}, false
}

// Kill sends SIGKILL to p (and to its process group when it leads one) and
// waits up to 5 s for it to be gone. A process that has ended already, or
// whose pid now names another process (its start time differs), is left
// alone.
func Kill(p Process) error {
	if !running(p) {
		return nil
	}
	return kill(p)
}

// running reports whether p still runs: a live process with its pid and
// start time (a zombie is not running).
func running(p Process) bool {
	now, ok := read(p.PID)
	return ok && now.Start == p.Start && now.state != 'Z'
}

// status is what /proc/<pid>/stat says of a process.
type status struct {
	Process
	ppid  int
	state byte
}

// read reads /proc/<pid>/stat; ok is false when the process does not exist
// (or there is no /proc). Command is the kernel's short name; named gives
// the full one.
func read(pid int) (status, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return status{}, false
	}
	// "pid (comm) state ppid ..."; comm may hold spaces and parentheses,
	// so the fields are counted from the last ')'.
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	open := strings.IndexByte(s, '(')
	if end < 0 || open < 0 {
		return status{}, false
	}
	fields := strings.Fields(s[end+1:])
	// fields[0] is the state (field 3); the start time is field 22.
	if len(fields) < 20 {
		return status{}, false
	}
	ppid, err1 := strconv.Atoi(fields[1])
	start, err2 := strconv.ParseUint(fields[19], 10, 64)
	if err1 != nil || err2 != nil {
		return status{}, false
	}
	return status{Process: Process{PID: pid, Start: start, Command: s[open+1 : end]}, ppid: ppid, state: fields[0][0]}, true
}

// named returns p with the base name of its executable, from
// /proc/<pid>/cmdline, as its command (the kernel keeps only 15 bytes of
// the short name): what a user reads in "stopped etcd (pid 123)".
func named(p Process) Process {
	if args := commandLine(p.PID); len(args) > 0 {
		p.Command = filepath.Base(args[0])
	}
	return p
}

// commandLine is a process's executable and arguments, from
// /proc/<pid>/cmdline; nil when it cannot be read.
func commandLine(pid int) []string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

// childrenOf lists the live children of pid.
func childrenOf(pid int) ([]Process, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var children []Process
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := read(child); ok && st.ppid == pid && st.state != 'Z' {
			children = append(children, named(st.Process))
		}
	}
	return children, nil
}
