package dap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// sZOMB is a zombie's p_stat (sys/proc.h).
const sZOMB = 5

func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// listProcs reads every process's parent and group from the kernel's process table.
func listProcs() []procInfo {
	ps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]procInfo, 0, len(ps))
	for i := range ps {
		out = append(out, procInfo{pid: int(ps[i].Proc.P_pid), ppid: int(ps[i].Eproc.Ppid), pgid: int(ps[i].Eproc.Pgid)})
	}
	return out
}

// hasTag reports whether process pid's environment holds the run's tag. kern.procargs2 is argc
// (4 bytes), the executable's path, then argv and the environment, each NUL-terminated; it is
// readable for the processes of this user.
func hasTag(pid int, tag string) bool {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil || len(b) < 4 {
		return false
	}
	argc := int(binary.LittleEndian.Uint32(b))
	want := []byte(RunTagVar + "=" + tag)
	strs := bytes.Split(b[4:], []byte{0})
	n := 0 // the strings after the path and its padding: argv, then the environment
	for i, s := range strs {
		if i == 0 || len(s) == 0 && n == 0 {
			continue
		}
		n++
		if n > argc && bytes.Equal(s, want) {
			return true
		}
	}
	return false
}

// ProcessEnded reports whether process pid has exited: gone, or a zombie waiting to be reaped.
func ProcessEnded(pid int) bool {
	p, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return !errors.Is(err, unix.EPERM)
	}
	return p.Proc.P_pid != int32(pid) || p.Proc.P_stat == sZOMB
}

// processExists reports whether process pid exists (a zombie too).
func processExists(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
