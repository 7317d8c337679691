package procs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// sleeper starts a process that would run for a minute, in a process group
// of its own as envtest starts etcd, and stops it when the test ends.
func sleeper(t *testing.T) (*exec.Cmd, Process) {
	t.Helper()
	return sleeperFor(t, "60")
}

// sleeperFor is sleeper with the seconds it sleeps, its only argument.
func sleeperFor(t *testing.T, seconds string) (*exec.Cmd, Process) {
	t.Helper()
	cmd := exec.Command("sleep", seconds)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	st, ok := read(cmd.Process.Pid)
	if !ok {
		t.Skip("no /proc here: package procs records nothing")
	}
	return cmd, named(st.Process)
}

func writeRecord(t *testing.T, dir string, name string, rec record) {
	t.Helper()
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReap(t *testing.T) {
	self, ok := read(os.Getpid())
	if !ok {
		t.Skip("no /proc here: package procs records nothing")
	}
	// A run that is gone: no process has this pid and start time.
	gone := Process{PID: 1<<22 + 12345, Start: 1, Command: "presetsim"}
	tests := []struct {
		name string
		// owner of the record; child is the live sleeper, with its start
		// time changed when reused is set (the pid given to another process).
		owner      Process
		reused     bool
		wantReaped bool
		wantFile   bool
	}{
		{name: "a killed run's process is stopped", owner: gone, wantReaped: true},
		{name: "a running run's process is left alone", owner: self.Process, wantFile: true},
		{name: "a reused pid is left alone", owner: gone, reused: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, real := sleeper(t)
			child := real
			if tc.reused {
				child.Start--
			}
			writeRecord(t, dir, "run.json", record{Owner: tc.owner, Children: []Process{child}})

			reaped, err := Records{Dir: dir}.Reap()
			stopped := reaped.Processes
			if err != nil {
				t.Fatalf("Reap() error: %v", err)
			}

			if alive := running(real); alive == tc.wantReaped {
				t.Errorf("child running = %v after Reap(), want %v", alive, !tc.wantReaped)
			}
			if got := len(stopped) == 1; got != tc.wantReaped {
				t.Errorf("Reap() stopped %v", stopped)
			}
			if _, err := os.Stat(filepath.Join(dir, "run.json")); (err == nil) != tc.wantFile {
				t.Errorf("record kept = %v, want %v", err == nil, tc.wantFile)
			}
		})
	}
}

func TestSaveRecordsChildren(t *testing.T) {
	dir := t.TempDir()
	ownRecord := strconv.Itoa(os.Getpid()) + ".json"
	_, child := sleeper(t)
	r := Records{Dir: dir}
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	var rec record
	data, err := os.ReadFile(filepath.Join(dir, ownRecord))
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rec.Owner.PID != os.Getpid() {
		t.Errorf("owner pid %d, want %d", rec.Owner.PID, os.Getpid())
	}
	found := false
	for _, c := range rec.Children {
		found = found || c == child
	}
	if !found {
		t.Errorf("children %v lack the sleeper %v", rec.Children, child)
	}
	// The run is alive: a Reap leaves it and its child alone.
	if reaped, err := r.Reap(); err != nil || len(reaped.Processes) > 0 {
		t.Errorf("Reap() of a live run's record = %v, %v", reaped, err)
	}
	if err := r.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ownRecord)); err == nil {
		t.Errorf("Remove() left the record")
	}
	if err := r.Remove(); err != nil {
		t.Errorf("a second Remove() = %v, want nil", err)
	}
}

func TestUnreadableRecordIsReported(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Records{Dir: dir}).Reap(); err == nil {
		t.Errorf("Reap() of an unreadable record gave no error")
	}
}

// TestReapRemovesDirs: the temporary directories of a dead run are removed
// with its record; those of a live run stay; a recorded path that is not a
// run's temporary directory is never removed, and the record says so.
func TestReapRemovesDirs(t *testing.T) {
	self, _ := read(os.Getpid())
	dead := Process{PID: self.PID, Start: self.Start - 1, Command: "presetsim"}
	mkdir := func(pattern string) string {
		d, err := os.MkdirTemp("", pattern)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	stale, live, foreign := mkdir("presetsim-test-"), mkdir("presetsim-test-"), t.TempDir()
	dir := t.TempDir()
	writeRecord(t, dir, "dead.json", record{Owner: dead, Dirs: []string{stale, foreign, stale + "/../" + filepath.Base(live)}})
	writeRecord(t, dir, "live.json", record{Owner: self.Process, Dirs: []string{live}})

	reaped, err := Records{Dir: dir}.Reap()
	if err == nil || !strings.Contains(err.Error(), "not removing "+foreign) {
		t.Errorf("Reap() error %v, want it to name %s as not removed", err, foreign)
	}
	if len(reaped.Dirs) != 1 || reaped.Dirs[0] != stale {
		t.Errorf("Reap() removed %v, want [%s]", reaped.Dirs, stale)
	}
	for _, c := range []struct {
		dir  string
		want bool
	}{{stale, false}, {live, true}, {foreign, true}} {
		if _, err := os.Stat(c.dir); (err == nil) != c.want {
			t.Errorf("%s exists = %v after Reap(), want %v", c.dir, err == nil, c.want)
		}
	}
}

// TestTrackSaves: a tracked directory is in the run's record at once.
func TestTrackSaves(t *testing.T) {
	dir := t.TempDir()
	r := &Records{Dir: dir, Run: "abc"}
	if err := r.Track("/tmp/presetsim-x"); err != nil {
		t.Fatal(err)
	}
	var rec record
	data, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(os.Getpid())+"-abc.json"))
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil || len(rec.Dirs) != 1 || rec.Dirs[0] != "/tmp/presetsim-x" {
		t.Errorf("record %+v (%v), want the tracked directory", rec, err)
	}
}

// TestReapReturnsResources: the resources a dead run recorded are handed
// back for their backends to remove; a live run's are not.
func TestReapReturnsResources(t *testing.T) {
	self, _ := read(os.Getpid())
	dead := Process{PID: self.PID, Start: self.Start - 1, Command: "presetsim"}
	dir := t.TempDir()
	writeRecord(t, dir, "dead.json", record{Owner: dead, Resources: []Resource{{Backend: "kind", Name: "presetsim-x"}}})
	writeRecord(t, dir, "live.json", record{Owner: self.Process, Resources: []Resource{{Backend: "kind", Name: "presetsim-live"}}})
	reaped, err := Records{Dir: dir}.Reap()
	if err != nil {
		t.Fatal(err)
	}
	if len(reaped.Resources) != 1 || reaped.Resources[0] != (Resource{Backend: "kind", Name: "presetsim-x"}) {
		t.Errorf("Reap() resources %v, want the dead run's kind cluster only", reaped.Resources)
	}
	r := &Records{Dir: dir, Run: "r"}
	if err := r.TrackResource(Resource{Backend: "kind", Name: "c"}); err != nil {
		t.Fatal(err)
	}
	var rec record
	data, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(os.Getpid())+"-r.json"))
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil || len(rec.Resources) != 1 {
		t.Errorf("record %+v (%v), want the tracked resource", rec, err)
	}
}

// TestChildWithAndKill: ChildWith finds the child that has an argument,
// and none when no child has it; Kill leaves a process whose start time
// differs from the one recorded (a pid reused) alone, kills the child,
// and then, the child gone, does nothing.
func TestChildWithAndKill(t *testing.T) {
	_, first := sleeperFor(t, "61")
	_, second := sleeperFor(t, "62")
	if got, ok := ChildWith("62"); !ok || got.PID != second.PID {
		t.Errorf("ChildWith(62) = %v, %v; want %v", got, ok, second)
	}
	if got, ok := ChildWith("63"); ok {
		t.Errorf("ChildWith(63) = %v, want none", got)
	}
	reused := first
	reused.Start++
	if err := Kill(reused); err != nil || !running(first) {
		t.Errorf("Kill of a reused pid: %v, and the process running %v; want nil and running", err, running(first))
	}
	if err := Kill(first); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if running(first) {
		t.Errorf("%v still runs after Kill", first)
	}
	if err := Kill(first); err != nil {
		t.Errorf("a second Kill: %v, want nil", err)
	}
	if !running(second) {
		t.Errorf("Kill of %v stopped %v too", first, second)
	}
}

// TestReapAcrossTMPDIR: a killed run's directories are removed by a next
// run whose TMPDIR is another: the record names the killed run's.
func TestReapAcrossTMPDIR(t *testing.T) {
	self, _ := read(os.Getpid())
	dead := Process{PID: self.PID, Start: self.Start - 1, Command: "presetsim"}
	killedTmp := t.TempDir()
	left := filepath.Join(killedTmp, "presetsim-certs-1")
	if err := os.Mkdir(left, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeRecord(t, dir, "dead.json", record{Owner: dead, Dirs: []string{left}, TempDir: killedTmp})
	t.Setenv("TMPDIR", t.TempDir()) // the next run's is another
	reaped, err := Records{Dir: dir}.Reap()
	if err != nil {
		t.Fatalf("Reap: %v", err)
	}
	if _, err := os.Stat(left); err == nil || len(reaped.Dirs) != 1 {
		t.Errorf("the killed run's %s is still there (reaped %v)", left, reaped.Dirs)
	}
}
