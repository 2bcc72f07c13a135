package bridge

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/privdir"
	"github.com/adi-bridge/adi/probe"
)

// Watching in an editor's run: the run is a full recording whose probe serves the control
// protocol on a unix socket (probe config "control"; PROTOCOL.md, "Watching in an editor's run").
// A watch added while it runs makes the probe record the FLT of every following invocation of the
// function as it runs; Refresh adopts those FLTs with T, so they answer without a re-run.

// newControl makes the directory of an editor run's control socket (short: a unix socket's path
// is limited to about 100 bytes, a session directory's may be longer; mode 0700 whatever the
// umask, and the probe makes the socket 0600) and returns its path.
func newControl() (dir, socket string, err error) {
	dir, err = privdir.MkdirTemp("adi-ctl-")
	if err != nil {
		return "", "", err
	}
	return dir, filepath.Join(dir, "c.sock"), nil
}

// errRunEnded is the answer to a watch change once the editor's run ended.
var errRunEnded = adi.BadInputf("the program's run has ended: watches apply to a running program; launch it again to watch")

// Watch adds a watch to the running program: the FLT of every following invocation of fn (as
// the probe reads a name: module:qualname, or a qualname or a trailing part of one) whose cond
// (Python, evaluated at entry; "" none) holds is recorded, at most max of them (0: no limit).
// It returns the watch's id and the loaded functions fn names now.
func (x *External) Watch(ctx context.Context, fn, cond string, max int) (int, []string, error) {
	if x.finishedNow() {
		return 0, nil, errRunEnded
	}
	params := map[string]any{"func": fn}
	if cond != "" {
		params["cond"] = cond
	}
	if max > 0 {
		params["max"] = max
	}
	var res struct {
		Watch   int      `json:"watch"`
		Matches []string `json:"matches"`
	}
	if err := x.control.Call(ctx, "add", params, &res); err != nil {
		return 0, nil, err
	}
	return res.Watch, res.Matches, nil
}

// Unwatch removes the watches of fn (as it was given to Watch; "": every watch) and returns the
// removed ones. What they caught stays.
func (x *External) Unwatch(ctx context.Context, fn string) ([]probe.RunWatch, error) {
	if x.finishedNow() {
		return nil, errRunEnded
	}
	ws, err := x.listWatches(ctx)
	if err != nil {
		return nil, err
	}
	var out []probe.RunWatch
	for _, w := range ws {
		if w.Removed || fn != "" && w.Func != fn {
			continue
		}
		var res struct {
			Removed []int `json:"removed"`
		}
		if err := x.control.Call(ctx, "remove", map[string]any{"watch": w.ID}, &res); err != nil {
			return out, err
		}
		if len(res.Removed) > 0 {
			w.Removed, w.Active = true, false
			out = append(out, w)
		}
	}
	return out, nil
}

// Watches returns the watches of the run and what each caught so far (every watch since the run
// started, removed ones included), and brings T and the FLTs up to date with what they caught.
// After the run ended it answers from the run's result.
func (x *External) Watches(ctx context.Context) ([]probe.RunWatch, error) {
	if !x.finishedNow() {
		ws, err := x.listWatches(ctx)
		if err == nil {
			if err := x.Refresh(); err != nil {
				return nil, err
			}
			return ws, nil
		}
		if !x.finishedNow() {
			return nil, err
		}
	}
	<-x.done
	if r := x.s.Base().Rec.Result; r != nil {
		return r.Watches, nil
	}
	return nil, nil
}

// FlushRunning asks the running program to write what it recorded so far (without pausing it);
// false when it cannot (it is not running, or has no control server).
func (x *External) FlushRunning(ctx context.Context) bool {
	if x.finishedNow() {
		return false
	}
	return x.control.Call(ctx, "flush", nil, nil) == nil
}

// listWatches flushes the program's records and returns its watches.
func (x *External) listWatches(ctx context.Context) ([]probe.RunWatch, error) {
	var res struct {
		Watches []probe.RunWatch `json:"watches"`
	}
	if err := x.control.Call(ctx, "list", nil, &res); err != nil {
		return nil, err
	}
	return res.Watches, nil
}

func (x *External) finishedNow() bool {
	select {
	case <-x.done:
		return true
	default:
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.finished
}

// closeControl drops the connection to the run's control server and its socket's directory.
func (x *External) closeControl() {
	x.control.Close()
	if x.ctlDir != "" {
		if err := os.RemoveAll(x.ctlDir); err != nil && !errors.Is(err, os.ErrNotExist) {
			x.s.log.Debug("cannot remove the control socket's directory", "dir", x.ctlDir, "error", err)
		}
	}
}
