// Package procs lets a run that was killed with SIGKILL be cleaned up by
// the next one: its processes stopped, its temporary directories removed.
//
// A run stops every process it started on success, failure, panic and the
// signals a program can catch. SIGKILL cannot be caught, and envtest starts
// etcd and kube-apiserver in process groups of their own, so they outlive a
// killed run. So a run records its child processes (Records.Save) in a file
// under the user's cache directory, deletes the file when it stops them
// (Records.Remove), and the next run stops what a dead run's file still
// lists (Records.Reap), checking each process's start time so that a pid
// reused since is never touched. The record also lists the temporary
// directories the run made (Records.Track: etcd data, certificates and
// keys, kubeconfigs; private, 0700, meanwhile), which Reap removes — only
// directories directly in the temporary directory named like a run's. It
// reads /proc, so it does nothing on systems without one.
package procs
