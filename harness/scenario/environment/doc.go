// Package environment holds the checks on what a container sees: its
// environment as the kubelet would give it (computed by containerenv, and
// checked against what a real kubelet printed where there is one), the
// variables it must not see, a container that fails to start, and a pod
// that becomes ready. Values that come from Secrets are masked in messages
// unless the run shows secrets.
package environment
