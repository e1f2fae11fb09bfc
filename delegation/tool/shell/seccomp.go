package shell

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter bwrap loads before it runs the command (--seccomp
// FD). Without the shell.network grant a command may not create a unix
// socket, so it cannot reach a host service listening on one (the Docker
// socket, PostgreSQL's, an SSH agent) wherever its socket file sits;
// socketpair, which connects only the caller's own ends, stays allowed.
// Always refused: io_uring, whose requests can open sockets without a
// socket system call, and the kernel keyring calls, whose keyrings no
// namespace separates. A system call of another architecture (32-bit
// code on a 64-bit kernel), which a filter written for this one would not
// see, kills the process. Refused calls fail with EPERM.

// filterProgram is the filter in the form the kernel reads (an array of
// struct sock_filter), one for each value of the network grant.
var filterProgram = sync.OnceValues(func() (map[bool][]byte, error) {
	out := map[bool][]byte{}
	for _, network := range []bool{false, true} {
		b, err := assemble(network)
		if err != nil {
			return nil, fmt.Errorf("seccomp filter: %w", err)
		}
		out[network] = b
	}
	return out, nil
})

// assemble builds the filter: go-seccomp-bpf's program for the policy,
// behind a check that kills a call of any other architecture.
func assemble(network bool) ([]byte, error) {
	refused := []string{"io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key", "request_key"}
	groups := []seccomp.SyscallGroup{{Action: seccomp.ActionErrno, Names: refused}}
	if !network {
		groups = append(groups, seccomp.SyscallGroup{Action: seccomp.ActionErrno, NamesWithCondtions: []seccomp.NameWithConditions{{
			Name: "socket", Conditions: []seccomp.Condition{{Argument: 0, Operation: seccomp.Equal, Value: unix.AF_UNIX}},
		}}})
	}
	policy := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups}
	prog, err := policy.Assemble()
	if err != nil {
		return nil, err
	}
	native, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	const archOffset = 4 // of struct seccomp_data
	prog = append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: archOffset, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionKillProcess)},
	}, prog...)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 8*len(raw))
	for _, in := range raw {
		b = binary.NativeEndian.AppendUint16(b, in.Op)
		b = append(b, in.Jt, in.Jf)
		b = binary.NativeEndian.AppendUint32(b, in.K)
	}
	return b, nil
}

// filterFile returns a pipe from which bwrap reads the filter; the caller
// hands it to the command and closes it once the command started.
func filterFile(network bool) (*os.File, error) {
	progs, err := filterProgram()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if _, err := w.Write(progs[network]); err != nil { // a few hundred bytes: within the pipe's buffer
		r.Close()
		return nil, err
	}
	return r, nil
}
