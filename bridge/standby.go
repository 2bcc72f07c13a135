package bridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/adi-bridge/adi/dap"
)

// A standby is a debug run started ahead of the next exec --then-continue (a plain exec runs under
// the probe alone and needs none: execHere). Starting a run under debugpy costs about half a second
// here, most of it the debuggee importing pydevd; a standby has done all of that: the adapter is
// up, the launch is configured, and the probe waits on a FIFO for the config of the run it is to
// become (adi_probe_run.py --standby). Taking it costs a few milliseconds: write the run's config,
// set the breakpoints, write the config's path into the FIFO. Nothing of the target has run before
// that, so the run is the same as a cold one.
//
// A session keeps at most one, started after an exec --then-continue that answered (an agent that
// checks one hypothesis usually checks another), dropped after standbyTTL unused, and when the
// session closes. Its processes are the run's: they end with it, like any run's.

// standbyTTL is how long an unused standby is kept.
const standbyTTL = 2 * time.Minute

// standbyWait bounds how long an exec waits for a standby still starting (a start takes about
// half a second here).
const standbyWait = 3 * time.Second

// standby is one debug run waiting for its config. ready is closed when its start finished: then
// d is set, or err says why it could not start.
type standby struct {
	fifo   string
	cancel context.CancelFunc
	ready  chan struct{}
	d      *debugRun
	err    error
	timer  *time.Timer
}

// release ends the standby's processes (waiting for its start to finish) and removes its FIFO.
func (sb *standby) release() {
	sb.cancel()
	<-sb.ready
	if sb.timer != nil {
		sb.timer.Stop()
	}
	if sb.d != nil {
		sb.d.close()
	}
	_ = os.Remove(sb.fifo)
}

// startStandby starts a standby in the background unless the session has one or is closed.
func (s *Session) startStandby() {
	if s.rn.needDebugpy(context.Background()) != nil {
		return
	}
	s.sbMu.Lock()
	defer s.sbMu.Unlock()
	if s.sb != nil || s.sbClosed {
		return
	}
	s.sbSeq++
	// ctx is the run's life (debugpy's adapter ends with it); its start is bounded separately
	ctx, cancel := context.WithCancel(context.Background())
	sb := &standby{
		fifo:   filepath.Join(s.Dir, fmt.Sprintf("standby-%d.fifo", s.sbSeq)),
		cancel: cancel,
		ready:  make(chan struct{}),
	}
	s.sb = sb
	go func() {
		slow := time.AfterFunc(s.prog.Timeout, cancel)
		sb.d, sb.err = s.rn.startStandby(ctx, sb.fifo)
		slow.Stop()
		close(sb.ready)
		if sb.err != nil {
			s.log.Debug("no standby run for the next exec", "error", sb.err)
			s.dropStandby(sb)
			return
		}
		s.sbMu.Lock()
		if s.sb == sb {
			sb.timer = time.AfterFunc(standbyTTL, func() { s.dropStandby(sb) })
		}
		s.sbMu.Unlock()
	}()
}

// dropStandby releases sb if it is still the session's standby.
func (s *Session) dropStandby(sb *standby) {
	s.sbMu.Lock()
	mine := s.sb == sb
	if mine {
		s.sb = nil
	}
	s.sbMu.Unlock()
	if mine {
		sb.release()
	}
}

// DropStandby ends the runs the session keeps ready: its standby run, if it has one (also one
// still starting), and the probe process kept ready for its next re-run (ready.go); their
// processes are gone when it returns. The next exec or re-run starts cold.
func (s *Session) DropStandby() {
	if s.rn != nil {
		s.rn.dropReady(nil)
	}
	s.sbMu.Lock()
	sb := s.sb
	s.sb = nil
	s.sbMu.Unlock()
	if sb != nil {
		sb.release()
	}
}

// takeStandby hands over the session's standby, waiting for one still starting; nil when there is
// none ready and alive.
func (s *Session) takeStandby(ctx context.Context) *standby {
	s.sbMu.Lock()
	sb := s.sb
	s.sb = nil
	s.sbMu.Unlock()
	if sb == nil {
		return nil
	}
	select {
	case <-sb.ready:
	case <-ctx.Done():
		go sb.release()
		return nil
	case <-time.After(standbyWait):
		go sb.release() // a start this slow is stuck: a cold run is as quick
		return nil
	}
	if sb.err != nil || !sb.d.alive() {
		sb.release()
		return nil
	}
	if sb.timer != nil {
		sb.timer.Stop()
	}
	return sb
}

// startStandby launches a debug run whose probe waits on the FIFO fifo for its config.
func (rn *runner) startStandby(ctx context.Context, fifo string) (*debugRun, error) {
	probeDir, err := newFIFO(fifo)
	if err != nil {
		return nil, err
	}
	d, err := rn.launchDebug(ctx, probeDir, []string{"--standby", fifo}, nil, nil)
	if err != nil {
		_ = os.Remove(fifo)
		return nil, err
	}
	return d, nil
}

// useStandby makes sb the run req asks for: it writes the run's config into a new run directory,
// runs configure (breakpoints: debugpy takes them while the program runs), and hands the probe
// the config's path. The run is then sb.d, as startDebug would have returned it. On error the
// standby is released.
func (rn *runner) useStandby(ctx context.Context, sb *standby, req RunRequest, configure func(context.Context, *dap.Client) error) (*debugRun, error) {
	d := sb.d
	_, dir, cfgPath, err := rn.prepare(req)
	if err == nil && configure != nil {
		err = configure(ctx, d.dr.Client)
	}
	if err == nil {
		err = writeFIFO(ctx, sb.fifo, cfgPath+"\n", d.alive)
	}
	if err != nil {
		sb.release()
		return nil, err
	}
	_ = os.Remove(sb.fifo)
	d.run.Dir = dir
	d.start = time.Now()
	return d, nil
}

// writeFIFO writes text into the FIFO path once its reader, the probe of a run kept ready, has
// opened it (right after the start it may not have yet); alive reports whether that run still
// runs.
func writeFIFO(ctx context.Context, path, text string, alive func() bool) error {
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			_, err = f.WriteString(text) // shorter than PIPE_BUF: one write, whole
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
		if !errors.Is(err, syscall.ENXIO) { // ENXIO: no reader yet
			return fmt.Errorf("hand the standby run its config: %w", err)
		}
		if !alive() {
			return errors.New("the run kept ready ended before it took its config")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}
