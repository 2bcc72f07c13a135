package dap

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
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

type procInfo struct {
	pid, ppid, pgid int
}

// listProcs reads every process's parent and group from /proc.
func listProcs() []procInfo {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]procInfo, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ... ; comm may contain spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		out = append(out, procInfo{pid: pid, ppid: ppid, pgid: pgid})
	}
	return out
}

func hasTag(pid int, tag string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte(RunTagVar + "=" + tag)
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}

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
		if _, err := os.Stat("/proc/" + strconv.Itoa(root)); err == nil {
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

// ProcessEnded reports whether process pid has exited: gone, or a zombie waiting to be reaped.
func ProcessEnded(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
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
