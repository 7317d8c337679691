// Command runcshim makes `docker run --privileged` work on a host whose
// capability bounding set lacks capabilities that the kernel knows, such as
// the Firecracker VM of this project's machines, which has no
// CAP_SYS_RESOURCE.
//
// Docker 20.10 gives a privileged container every capability up to the
// kernel's last one. runc cannot raise a capability that is not in its own
// bounding set, so it fails with "unable to apply caps: operation not
// permitted". kind starts every node, and runs every command in it, with
// --privileged, so no kind cluster can start on such a host.
//
// As an OCI runtime, registered with the Docker daemon (install), runcshim
// removes from the container's or exec'd process's configuration the
// capabilities that its own bounding set does not hold, changes nothing
// else, and execs runc with the same arguments. Containers that ask for no
// missing capability are passed through untouched.
//
//	runcshim install [--path /usr/local/libexec/presetsim/runcshim]
//	    copies itself to --path, registers it in /etc/docker/daemon.json as
//	    the runtime "presetsim-runc" and the default runtime, and reloads
//	    the daemon (SIGHUP).
//	runcshim probe
//	    exits 0; the probe image of hack/kind/docker-privileged.sh runs it.
package main
