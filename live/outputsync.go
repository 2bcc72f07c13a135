package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/adi-bridge/adi/dap"
)

// syncTimeout bounds how long outputSync waits for its markers to come back.
const syncTimeout = time.Second

// outputSync makes sure the output the program wrote before it stopped (or finished) has arrived:
// the program's stdout and stderr reach adi through debugpy's launcher, on another path than the
// stopped event, so they may come after it. adi writes a sync marker into each of the program's
// two pipes itself (through /proc/PID/fd/N, when that is still the pipe debugpy's launcher reads)
// and waits until both come back. When the program is gone it waits for the run's end instead
// (the launcher sends all the output before it says the program exited). Every wait is bounded.
func (r *run) outputSync(ctx context.Context) {
	pid := r.debuggeePid()
	if pid <= 0 || r.attached { // an attached program's output is its owner's: adi writes nothing into it
		return
	}
	var waits []chan struct{}
	for fd := 1; fd <= 2; fd++ {
		if ch := r.syncPipe(pid, fd); ch != nil {
			waits = append(waits, ch)
		}
	}
	t := time.NewTimer(syncTimeout)
	defer t.Stop()
	if len(waits) == 0 {
		if dap.ProcessEnded(pid) {
			select {
			case <-r.ended:
			case <-t.C:
			case <-ctx.Done():
			}
		}
		return
	}
	for _, ch := range waits {
		select {
		case <-ch:
		case <-r.ended:
			return
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// syncPipe writes a sync marker into the program's fd (1 or 2) and returns the channel closed when
// it comes back; nil when the fd is not (or no longer) the pipe debugpy's launcher reads.
func (r *run) syncPipe(pid, fd int) chan struct{} {
	if !capturedByParent(pid, fd) {
		return nil
	}
	r.syncMu.Lock()
	r.syncN++
	id := strconv.Itoa(r.syncN)
	ch := make(chan struct{})
	r.waiters[id] = ch
	r.syncMu.Unlock()
	drop := func() chan struct{} {
		r.syncMu.Lock()
		delete(r.waiters, id)
		r.syncMu.Unlock()
		return nil
	}
	// O_NONBLOCK: opening a pipe's write end never waits, and a full pipe does not block adi.
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return drop()
	}
	defer f.Close()
	msg := []byte(markerText(r.token, "sync", id))
	deadline := time.Now().Add(100 * time.Millisecond)
	for {
		_, err := f.Write(msg) // shorter than PIPE_BUF: all or nothing
		if err == nil {
			return ch
		}
		if !errors.Is(err, syscall.EAGAIN) || time.Now().After(deadline) {
			return drop()
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// capturedByParent reports whether the program's fd is a pipe its parent (debugpy's launcher)
// holds too: the program did not redirect it (to a file adi must not write into).
func capturedByParent(pid, fd int) bool {
	link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
	if err != nil || !strings.HasPrefix(link, "pipe:") {
		return false
	}
	ppid := parentPid(pid)
	if ppid <= 1 {
		return false
	}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", ppid))
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", ppid, e.Name())); err == nil && l == link {
			return true
		}
	}
	return false
}

// parentPid reads a process's parent from /proc (0 when it is gone).
func parentPid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}
