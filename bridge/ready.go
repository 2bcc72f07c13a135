package bridge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/adi-bridge/adi/probe"
)

// A run kept ready is a probe process started ahead of the session's next run under the probe
// alone (a re-run for FLTs or values, an exec, conditions): `python adi_probe_run.py --standby
// FIFO` with the program's interpreter, flags, environment and directory, which has started the
// interpreter and imported the probe's modules and waits on the FIFO for the path of its config.
// Taking it saves what every run spends before the target starts (the interpreter's start with
// site, then the probe's modules), most of a small program's re-run.
// Nothing of the target has run before it takes its config, so the run is the same as a cold
// one. (standby.go keeps a debug run ready the same way, for exec --then-continue.)
//
// A runner keeps at most one, started once its session has been idle for readyIdle after a run
// under the probe alone answered (Session.record), and ends it after readyTTL unused, when its session drops the runs it keeps
// ready (Session.DropStandby) and when it closes (runner.close); a daemon keeps at most maxReady,
// for the sessions that ran last. Its processes are
// killed with the daemon, as every run's are (Pdeathsig).

// readyTTL is how long an unused run kept ready is kept.
const readyTTL = 2 * time.Minute

// readyIdle is how long a session stays idle before it starts its run kept ready: the start (the
// interpreter's and the probe's CPU) then never competes with a command of the session, which on
// a machine of few cores a shorter delay let it do (a command that followed another's answer
// closely ran beside the start, and took about twice as long); an agent thinks for longer than
// that between two commands.
const readyIdle = 2 * time.Second

// maxReady bounds the runs kept ready in one daemon: an idle interpreter with the probe imported
// holds megabytes for nothing until it is taken, and of many open sessions the ones used last are
// the ones used next. A runner that keeps one ready when maxReady others already do ends the one
// kept longest.
const maxReady = 4

// kept lists the runners that keep a run ready (or are starting one), oldest first.
var kept struct {
	mu      sync.Mutex
	runners []*runner
}

// keeping records that rn keeps a run ready and returns the runner whose run kept ready is now
// one too many, or nil.
func keeping(rn *runner) *runner {
	kept.mu.Lock()
	defer kept.mu.Unlock()
	kept.runners = slices.DeleteFunc(kept.runners, func(r *runner) bool { return r == rn })
	kept.runners = append(kept.runners, rn)
	if len(kept.runners) <= maxReady {
		return nil
	}
	oldest := kept.runners[0]
	kept.runners = kept.runners[1:]
	return oldest
}

// notKeeping records that rn keeps no run ready any more.
func notKeeping(rn *runner) {
	kept.mu.Lock()
	defer kept.mu.Unlock()
	kept.runners = slices.DeleteFunc(kept.runners, func(r *runner) bool { return r == rn })
}

// readyRun is the process kept ready and the FIFO it reads its config's path from.
type readyRun struct {
	pr    *proc
	fifo  string
	timer *time.Timer
}

// release ends the process (not taken) and removes the FIFO.
func (r *readyRun) release() {
	r.pr.killIdle()
	_ = os.Remove(r.fifo)
}

// wantReady notes that the session runs its program under the probe alone (a run answered): it
// keeps a run ready once idle.
func (rn *runner) wantReady() {
	rn.mu.Lock()
	rn.want = true
	rn.mu.Unlock()
}

// busy notes that a command started: the run kept ready is not started meanwhile.
func (rn *runner) busy() {
	rn.mu.Lock()
	if rn.idle != nil {
		rn.idle.Stop()
	}
	rn.mu.Unlock()
}

// idleNow notes that a command ended (or the session was created): readyIdle later, unless another
// has started, keepReady starts the run kept ready, if the session wants one and has none.
func (rn *runner) idleNow() {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if !rn.want || rn.ready != nil || rn.readying != nil || rn.closed {
		return
	}
	if rn.idle == nil {
		rn.idle = time.AfterFunc(readyIdle, rn.keepReady)
	} else {
		rn.idle.Reset(readyIdle)
	}
}

// keepReady starts a run kept ready in the background unless the runner has one (or is starting
// one) or is closed.
func (rn *runner) keepReady() {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if rn.ready != nil || rn.readying != nil || rn.closed {
		return
	}
	started := make(chan struct{})
	rn.readying = started
	rn.readySeq++
	fifo := filepath.Join(filepath.Dir(rn.dir), fmt.Sprintf("ready-%d.fifo", rn.readySeq))
	go func() {
		if old := keeping(rn); old != nil {
			old.dropReady(nil) // (another session's: its next re-run starts cold)
		}
		defer close(started)
		r, err := rn.startReady(fifo)
		if err != nil {
			rn.log.Debug("no run kept ready for the next re-run", "error", err)
		}
		rn.mu.Lock()
		rn.readying = nil
		keep := err == nil && !rn.closed
		if keep {
			rn.ready = r
			r.timer = time.AfterFunc(readyTTL, func() { rn.dropReady(r) })
		}
		rn.mu.Unlock()
		releaseSoon() // what starting it allocated: the session is idle
		if !keep {
			notKeeping(rn)
		}
		if err == nil && !keep {
			r.release() // its session closed meanwhile
		}
	}()
}

// newFIFO installs the probe and creates a new FIFO at path, from which a run started ahead of
// need (here, and standby.go) reads its config's path; it returns the probe's directory.
func newFIFO(path string) (string, error) {
	probeDir, err := probe.Install()
	if err != nil {
		return "", err
	}
	_ = os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		return "", fmt.Errorf("create the FIFO of a run kept ready: %w", err)
	}
	return probeDir, nil
}

// startReady starts the probe waiting on a new FIFO at fifo.
func (rn *runner) startReady(fifo string) (*readyRun, error) {
	probeDir, err := newFIFO(fifo)
	if err != nil {
		return nil, err
	}
	pr, err := rn.spawn([]string{probe.Script(probeDir), "--standby", fifo})
	if err != nil {
		_ = os.Remove(fifo)
		return nil, err
	}
	return &readyRun{pr: pr, fifo: fifo}, nil
}

// dropReady ends r if it is still the runner's run kept ready; nil: whichever it is, after the
// start of one in flight has ended.
func (rn *runner) dropReady(r *readyRun) {
	rn.mu.Lock()
	if started := rn.readying; r == nil && started != nil {
		rn.mu.Unlock()
		<-started
		rn.mu.Lock()
	}
	cur := rn.ready
	if cur != nil && (r == nil || cur == r) {
		rn.ready = nil
	} else {
		cur = nil
	}
	rn.mu.Unlock()
	if cur != nil {
		if cur.timer != nil {
			cur.timer.Stop()
		}
		cur.release()
		notKeeping(rn)
	}
}

// takeReady hands the run kept ready the config at cfgPath and returns its process, now that
// run; nil when there is none, or it could not take it (then it is ended).
func (rn *runner) takeReady(ctx context.Context, cfgPath string) *proc {
	rn.mu.Lock()
	r := rn.ready
	rn.ready = nil
	rn.mu.Unlock()
	if r == nil {
		return nil
	}
	notKeeping(rn)
	r.timer.Stop()
	if err := writeFIFO(ctx, r.fifo, cfgPath+"\n", r.pr.alive); err != nil {
		rn.log.Debug("the run kept ready could not take its config; starting one", "error", err)
		r.release()
		return nil
	}
	_ = os.Remove(r.fifo)
	r.pr.start()
	return r.pr
}
