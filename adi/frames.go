package adi

import (
	"fmt"
	"strings"

	"github.com/adi-bridge/adi/internal/faces"
)

// DefaultFrameLimit is how many frames list-frames shows when FrameFilter.Limit is 0.
const DefaultFrameLimit = 50

// FrameFilter selects and limits the frames list-frames shows.
type FrameFilter struct {
	// Caller keeps the frames whose caller's fid or file contains it ("" keeps all).
	Caller string `json:"caller,omitempty"`
	// Limit is how many frames are listed, the first ones in T; 0 means DefaultFrameLimit.
	Limit int `json:"limit,omitempty"`
}

// FrameList answers list-frames: the invocations of one function.
type FrameList struct {
	Func      string         `json:"func"`
	Total     int            `json:"total"` // invocations of Func
	Caller    string         `json:"caller_filter,omitempty"`
	Matched   int            `json:"matched"` // invocations that pass the filter
	Frames    []FrameSummary `json:"frames"`  // the first Limit of them
	Recording Coverage       `json:"recording"`
}

// ListFrames lists the invocations of fn (a full function name) that pass f.
func (t *Trace) ListFrames(fn string, f FrameFilter) *FrameList {
	if f.Limit <= 0 {
		f.Limit = DefaultFrameLimit
	}
	inv := t.Invocations(fn)
	l := &FrameList{Func: fn, Total: len(inv), Caller: f.Caller, Frames: []FrameSummary{}, Recording: t.Coverage()}
	for _, j := range inv {
		if f.Caller != "" {
			c := t.Frame(int(t.Frames[j].Caller))
			if c == nil || !(strings.Contains(c.FID().String(), f.Caller) || strings.Contains(c.File, f.Caller)) {
				continue
			}
		}
		l.Matched++
		if len(l.Frames) < f.Limit {
			l.Frames = append(l.Frames, t.FrameSummary(int(j)))
		}
	}
	return l
}

// Text renders one line per frame with its fid, arguments, outcome, the forms to address it
// (target, line-target) and its caller.
func (l *FrameList) Text(o TextOptions) string {
	return fitText(o, []shrink{shrinkValues}, func(d detail) doc {
		dc := doc{unit: "row", total: len(l.Frames), indent: "  "}
		what := fmt.Sprintf("%d total", l.Total)
		if l.Caller != "" {
			what = fmt.Sprintf("%d of %d with a caller matching %q", l.Matched, l.Total, l.Caller)
		}
		if len(l.Frames) < l.Matched {
			what += fmt.Sprintf("; showing the first %d, narrow with --caller or raise --limit", len(l.Frames))
		}
		dc.head = append([]string{fmt.Sprintf("Frames (%s):", what)}, l.Recording.notes()...)
		for i, f := range l.Frames {
			_, n, _ := cutLast(f.FID, '#')
			line := fmt.Sprintf("  #%s  %s  args: %s  → %s   target: %s", n, f.FID,
				d.argsText(f.Args), d.frameOutcome(f.Status, f.Return, f.Exception, Yielded{f.Kind, f.Yields, f.LastYield}), f.Target)
			if f.LineTarget != "" {
				line += "  line-target: " + f.LineTarget
			}
			if f.Caller != "" {
				line += fmt.Sprintf("  <- %s line %d", f.Caller, f.CallLine)
			} else {
				line += "  <- (entry frame)"
			}
			dc.add(chunk{lines: []string{line}, first: i + 1, last: i + 1})
		}
		if l.Matched == 0 {
			dc.add(chunk{lines: []string{"  (none; run " + faces.Cmd("adi.list_frames") + " without " + faces.Param("adi.list_frames", "caller") + " to see them all)"}})
		}
		return dc
	})
}
