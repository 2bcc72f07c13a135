package dapproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/probe"
)

// Watching the editor's run (bridge/editorwatch.go): adi/watch {func, cond?, max?} makes the
// running program record the FLT of every following invocation of func as it runs, without
// pausing it; adi/unwatch {func?} stops that (every watch without func); adi/caught lists what
// each watch caught, as fids of T, which every other adi/ request (adi/flt, adi/callTree, ...)
// then answers about from the run's own FLTs. They are answered here rather than by the server's
// method table: they act on the launch's running program, which only the link has.

// runRequest is one of the adi/ requests about the running program: it answers {text, result}.
type runRequest func(ctx context.Context, r *recorder, args runArgs) (string, any, error)

// runRequests are the adi/ requests answered by runRequest, by command.
var runRequests = map[string]runRequest{"adi/watch": watchReq, "adi/unwatch": unwatchReq, "adi/caught": caughtReq}

// runArgs are the arguments of a runRequest.
type runArgs struct {
	Func      string `json:"func"`
	Cond      string `json:"cond"`
	Condition string `json:"condition"` // (the JSON-RPC live.watch's name of it)
	Max       int    `json:"max"`
}

// answerRun answers the runRequest of m; ok is false when m is not one.
func (l *link) answerRun(m *dap.Message, r *recorder) (body any, ok bool, err error) {
	h, ok := runRequests[m.Command]
	if !ok {
		return nil, false, nil
	}
	if r == nil {
		return nil, true, l.notRecording()
	}
	var env struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	var args runArgs
	if err := json.Unmarshal(m.Raw, &env); err != nil {
		return nil, true, adi.Errorf(errkind.InvalidParams, "the arguments of %s cannot be read: %w", m.Command, err)
	}
	if a := strings.TrimSpace(string(env.Arguments)); a != "" && a != "null" {
		if err := json.Unmarshal(env.Arguments, &args); err != nil {
			return nil, true, adi.Errorf(errkind.InvalidParams, "the arguments of %s must be an object {func, cond?, max?}: %v", m.Command, err)
		}
	}
	if args.Cond == "" {
		args.Cond = args.Condition
	}
	text, result, err := h(l.ctx, r, args)
	if err != nil {
		return nil, true, err
	}
	return map[string]any{"text": text, "result": result}, true, nil
}

func watchReq(ctx context.Context, r *recorder, a runArgs) (string, any, error) {
	if strings.TrimSpace(a.Func) == "" {
		return "", nil, adi.Errorf(errkind.InvalidParams, "adi/watch needs func: the function to watch (module:qualname, or a qualname like Class.method or name)")
	}
	if a.Max < 0 {
		return "", nil, adi.Errorf(errkind.InvalidParams, "adi/watch's max must be a positive number (0 or absent: no limit)")
	}
	id, matches, err := r.x.Watch(ctx, a.Func, a.Cond, a.Max)
	if err != nil {
		return "", nil, err
	}
	if matches == nil {
		matches = []string{}
	}
	what := a.Func
	if len(matches) > 0 {
		what = strings.Join(matches, ", ")
	}
	text := fmt.Sprintf("Watching %s (watch %d): the FLT of each following call is recorded as the program runs.",
		probe.WatchText(what, a.Cond, a.Max), id)
	if len(matches) == 0 {
		text += " No loaded function is named so yet: it applies to functions so named when they load."
	}
	text += " adi/caught lists what it caught; adi/flt with a fid shows one."
	return text, map[string]any{"watch": id, "func": a.Func, "cond": a.Cond, "max": a.Max, "matches": matches}, nil
}

func unwatchReq(ctx context.Context, r *recorder, a runArgs) (string, any, error) {
	removed, err := r.x.Unwatch(ctx, a.Func)
	if err != nil {
		return "", nil, err
	}
	if len(removed) == 0 {
		if a.Func == "" {
			return "No function is watched.", map[string]any{"removed": []probe.RunWatch{}}, nil
		}
		return "", nil, adi.NotFoundf("%s is not watched (adi/caught lists the watches)", a.Func)
	}
	var names []string
	for _, w := range removed {
		names = append(names, w.Func)
	}
	return fmt.Sprintf("No longer watching %s; what was caught stays (adi/caught).", strings.Join(names, ", ")),
		map[string]any{"removed": removed}, nil
}

func caughtReq(ctx context.Context, r *recorder, _ runArgs) (string, any, error) {
	ws, err := r.x.Watches(ctx)
	if err != nil {
		return "", nil, err
	}
	if ws == nil {
		ws = []probe.RunWatch{}
	}
	if len(ws) == 0 {
		return "No function is watched; adi/watch {func} watches one.", map[string]any{"watches": ws}, nil
	}
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "watch %d %s: ", w.ID, probe.WatchText(w.Func, w.Cond, w.Max))
		if len(w.FIDs) == 0 {
			b.WriteString("nothing caught")
		} else {
			fmt.Fprintf(&b, "%d caught: %s", len(w.FIDs), strings.Join(w.FIDs, ", "))
		}
		switch {
		case w.Removed:
			b.WriteString(" (no longer watched)")
		case !w.Active:
			b.WriteString(" (done: it caught its max)")
		}
		for _, e := range w.CondErrors {
			fmt.Fprintf(&b, "\n  cond error: %s", e)
		}
	}
	return b.String(), map[string]any{"watches": ws}, nil
}
