// Package shell is the built-in shell.run tool: `bash -c COMMAND` in the
// workspace, inside a bubblewrap sandbox (Debian's bubblewrap, the bwrap
// binary). The sandbox sees the whole filesystem read-only, the workspace
// writable, an empty tmpfs over $HOME, /tmp and /var/tmp (so ~/.ssh and the
// like are not visible), a minimal environment (no API keys), its own PID
// and IPC namespaces, no network unless the call's permission chain grants
// the capability shell.network, and a new session (no terminal to inject
// into).
//
// It holds for root, which is how containers and CI run agentry (DESIGN
// §12, docs/tools-builtin.md has the threat model): the command runs in a
// user namespace of its own with every capability dropped (--unshare-user,
// --cap-drop ALL), so it cannot remount, unmount or enter another
// namespace, and may not create a further user namespace
// (--disable-userns). Without shell.network a seccomp filter
// (seccomp.go) refuses unix sockets, so no host service is reachable
// through its socket file, and /run is an empty tmpfs. agentry's own state
// (Config.Protected: the trace database, agents, workflows, the config) is
// mounted read-only or hidden wherever it sits (protect.go).
//
// Limits, each reported in the result rather than as a failure:
//
//   - A timeout (Config.Timeout, default 2 minutes; the call may ask for
//     less or more with timeout_s, up to Config.MaxTimeout). On timeout or
//     cancellation every process of the command gets SIGTERM, and after
//     Config.Grace the sandbox is killed with SIGKILL; since the command
//     runs in its own PID namespace, that ends every process it started,
//     one that ignores SIGTERM included.
//   - An output cap per stream (Config.OutputLimit, default 64 KiB);
//     truncated is set when more was written. Output past the cap is read
//     and thrown away so a chatty build still finishes, up to DrainLimit per
//     stream; past that the stream is closed and a writer gets SIGPIPE, as
//     with `| head`, so an endless flood ends at once instead of burning a
//     core until the timeout.
//   - A process cap (Config.MaxProcs, default 256), enforced by the kernel
//     where possible, since a fork bomb's thousands of runnable processes
//     starve any watchdog (measured here: a bomb reached the machine's PID
//     limit before a 10 ms poll ran). As root, where RLIMIT_NPROC does not
//     bind, each command runs in a pids cgroup of its own (cgroup.go) when
//     agentry may create one; as another user, RLIMIT_NPROC is set inside
//     bwrap's user namespace, where it counts the sandbox's processes only.
//     A watchdog polls every PollInterval as well: it kills the command once
//     the kernel refused a fork, and is the only cap where neither applies
//     (root without a writable cgroup), counting the sandbox's processes by
//     listing its own /proc (bwrap's --info-fd names its first process,
//     whose root shows the procfs of the sandbox's PID namespace).
//
// Where bwrap is missing or cannot create its namespaces, New reports the
// tool unavailable with the reason; it never falls back to running
// unsandboxed. Only Config.Sandbox "none" (shell: {sandbox: none} in
// agentry.yaml) runs commands directly, in their own process group, with
// the same timeout and output cap.
package shell
