package bridge

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/probe"
)

// A run's answer does not wait for its process to end: once the probe has written result.json
// (after its last record and after flushing the target's sys.stdout and sys.stderr), everything an
// answer reads is on disk, and the interpreter's own teardown (freeing every module and object:
// 20-150 ms on the real repositories, more than the target's own run on small ones) goes on in the
// background. What the target prints during its teardown and its final exit status are taken when
// the process ends (pipe.rest, runner.finish); a session waits for its runs' processes to end when
// it closes, so that none is left behind.

// resultPoll is how often a running probe's result.json is looked for.
const resultPoll = 2 * time.Millisecond

// pipe copies a child's output from the read end of its pipe into a capture, on one goroutine
// (copy). drain makes it take, before it returns, every byte written into the pipe until then:
// what the probe flushed before it wrote result.json.
type pipe struct {
	f       *os.File
	c       *capture
	drainMu sync.Mutex
	drained chan struct{} // closed by copy when a drain asked for it has taken what was in the pipe
	eof     chan struct{} // closed by copy at the end of the stream (every writer closed it)
}

// newPipe returns a pipe whose write end is the child's stream; the caller closes w once the
// child has started.
func newPipe(c *capture) (*pipe, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	p := &pipe{f: r, c: c, eof: make(chan struct{})}
	return p, w, nil
}

// copy reads the pipe until the end of the stream. A read deadline set by drain interrupts a
// blocked read: then what the pipe holds is read without blocking, and drained is closed.
func (p *pipe) copy() {
	defer close(p.eof)
	defer p.f.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := p.f.Read(buf)
		if n > 0 {
			_, _ = p.c.Write(buf[:n])
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			p.takeBuffered(buf)
			_ = p.f.SetReadDeadline(time.Time{})
			p.drainMu.Lock()
			if p.drained != nil {
				close(p.drained)
				p.drained = nil
			}
			p.drainMu.Unlock()
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				_, _ = io.Copy(io.Discard, p.f)
			}
			return
		}
	}
}

// takeBuffered reads what the pipe holds now, without waiting for more.
func (p *pipe) takeBuffered(buf []byte) {
	rc, err := p.f.SyscallConn()
	if err != nil {
		return
	}
	for {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), buf)
			return true // never wait: EAGAIN means the pipe is empty
		}); err != nil {
			return
		}
		if n <= 0 || rerr != nil {
			return
		}
		_, _ = p.c.Write(buf[:n])
	}
}

// drain returns once the copier has taken every byte written into the pipe before drain was
// called, or at the end of the stream, or after limit.
func (p *pipe) drain(limit time.Duration) {
	ch := make(chan struct{})
	p.drainMu.Lock()
	p.drained = ch
	p.drainMu.Unlock()
	_ = p.f.SetReadDeadline(time.Now())
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-ch:
	case <-p.eof:
	case <-t.C:
	}
}

// rest waits for the end of the stream (the child and what it left behind have closed it).
func (p *pipe) rest(limit time.Duration) {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-p.eof:
	case <-t.C:
	}
}

// probeEnded reports whether the probe of the run in dir has written its result.json for a target
// that ran to its end (not a run it stopped: an exec's stop, a time limit), and the exit status
// it gives.
func probeEnded(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, probe.ResultFile))
	if err != nil {
		return 0, false
	}
	var res struct {
		Exit    probe.Exit `json:"exit"`
		Stopped string     `json:"stopped"`
	}
	if json.Unmarshal(b, &res) != nil || res.Stopped != "" {
		return 0, false
	}
	switch res.Exit.Kind {
	case "exit", "exception", "os_exit":
		return res.Exit.Code, res.Exit.Code >= 0
	}
	return 0, false
}

// finish follows a run answered before its process ended: it waits for the process (ending it
// and what it left behind when the run's time, limit, is up), then saves the output the target
// printed during its teardown and its exit status, when they add to what the answer saved, into
// the run's directory unless the session deleted it.
func (rn *runner) finish(run *Run, cmd *exec.Cmd, tag string, done <-chan error, limit time.Duration,
	outP, errP *pipe, stdout, stderr *capture) {
	saved := [2]int{stdout.len(), stderr.len()}
	t := time.NewTimer(max(limit, stopGrace))
	defer t.Stop()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-t.C:
		rn.log.Warn("a run's process did not end after it wrote its result; ending it", "dir", run.Dir)
		dap.KillRun(cmd.Process.Pid, tag)
		waitErr = <-done
	}
	outP.rest(stopGrace)
	errP.rest(stopGrace)
	code := exitCode(cmd.ProcessState, waitErr)
	if code != run.ExitCode {
		rn.log.Warn("a run's exit status differs from its probe's", "dir", run.Dir, "probe", run.ExitCode, "process", code)
	}
	if code == run.ExitCode && stdout.len() == saved[0] && stderr.len() == saved[1] {
		return
	}
	run.files.Lock()
	defer run.files.Unlock()
	if run.gone {
		return
	}
	final := Run{Dir: run.Dir, Debug: run.Debug, ExitCode: code, TimedOut: run.TimedOut, TimeLimit: run.TimeLimit,
		Elapsed: run.Elapsed, Stdout: stdout.bytes(), Stderr: stderr.bytes()}
	if err := saveOutput(&final); err != nil {
		rn.log.Debug("cannot save a run's last output", "dir", run.Dir, "error", err)
	}
}
