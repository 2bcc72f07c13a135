package dap

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"syscall"
	"time"
)

// RunTagVar is the environment variable that marks every process of one run. debugpy starts the
// debuggee in a process group of its own, and a program may start more, so a run's processes are
// found by descent from the adapter and by this mark (which survives re-parenting).
const RunTagVar = "ADI_RUN"

// NewRunTag returns a fresh random run tag.
func NewRunTag() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// procInfo is a process, its parent and its group, as listProcs reads them (proc_linux.go: from
// /proc; proc_darwin.go: from the kernel's process table, sysctl kern.proc.all).
type procInfo struct {
	pid, ppid, pgid int
}

// NewGroupAttr returns the attributes of a process adi starts for a run: in a process group of its
// own (KillRun ends it whole) and, on Linux, killed when adi's thread that started it exits
// (Pdeathsig; macOS has no such thing: there a process outlives a killed adi).
func NewGroupAttr() *syscall.SysProcAttr { return groupAttr() }

// RunProcs returns the live processes of a run: root and its descendants, and every process whose
// environment carries tag (tag may be empty to skip that search).
func RunProcs(root int, tag string) []int {
	procs := listProcs()
	children := map[int][]int{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	self := os.Getpid()
	found := map[int]bool{}
	var walk func(int)
	walk = func(pid int) {
		if found[pid] || pid == self {
			return
		}
		found[pid] = true
		for _, c := range children[pid] {
			walk(c)
		}
	}
	if root > 0 {
		if processExists(root) {
			walk(root)
		}
	}
	if tag != "" {
		for _, p := range procs {
			if !found[p.pid] && p.pid != self && hasTag(p.pid, tag) {
				walk(p.pid)
			}
		}
	}
	out := make([]int, 0, len(found))
	for _, p := range procs {
		if found[p.pid] && !ProcessEnded(p.pid) {
			out = append(out, p.pid)
		}
	}
	return out
}

// KillRun sends SIGKILL to every process of a run (see RunProcs) and to their process groups,
// repeating until none is left or a second has passed, so a process forked during the sweep is
// caught too. adi's own process group is never signalled.
func KillRun(root int, tag string) {
	ownGroup := syscall.Getpgrp()
	deadline := time.Now().Add(time.Second)
	for {
		pids := RunProcs(root, tag)
		if len(pids) == 0 || time.Now().After(deadline) {
			return
		}
		for _, pid := range pids {
			if pgid, err := syscall.Getpgid(pid); err == nil && pgid != ownGroup && pgid > 1 {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
