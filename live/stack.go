package live

import (
	"context"
	"fmt"
	"strings"

	"github.com/adi-bridge/adi/dap"
)

// Frame is one frame of the paused thread. Index 0 is the innermost frame.
type Frame struct {
	Index    int    `json:"index"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function"`
	// Current marks the frame the thread is paused in; on an exception that is leaving the
	// program's code it is an outer frame of the traceback.
	Current bool `json:"current,omitempty"`
	id      int  // debugpy's frame id, valid while this stop lasts
}

// currentMark is how pydevd marks the frame it is paused in when it shows a traceback.
const currentMark = " (Current frame)"

// fetchStack reads the frames of the paused thread, innermost first.
func fetchStack(ctx context.Context, c *dap.Client, threadID int) ([]Frame, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	frames, err := c.StackTrace(ctx, threadID, 0)
	if err != nil {
		return nil, fmt.Errorf("read the paused thread's stack: %w", err)
	}
	out := make([]Frame, 0, len(frames))
	marked := false
	for i, f := range frames {
		name, cur := strings.CutSuffix(f.Name, currentMark)
		marked = marked || cur
		out = append(out, Frame{Index: i, File: f.Source.Path, Line: f.Line, Function: name, Current: cur, id: f.Id})
	}
	if !marked && len(out) > 0 {
		out[0].Current = true
	}
	return out, nil
}

// maxSummaryFrames bounds the frames a summary shows (the innermost ones).
const maxSummaryFrames = 8

// stackLines renders frames innermost last, as tracebacks do.
func stackLines(dir string, frames []Frame, max int) []string {
	var lines []string
	start := len(frames) - 1
	if max > 0 && len(frames) > max {
		lines = append(lines, fmt.Sprintf("  … %d outer frame(s) (stack shows all)", len(frames)-max))
		start = max - 1
	}
	for i := start; i >= 0; i-- {
		f := frames[i]
		mark := ""
		if f.Current && i != 0 {
			mark = "   ← paused here"
		}
		lines = append(lines, fmt.Sprintf("  #%d %s:%d in %s%s", f.Index, shortPath(dir, f.File), f.Line, f.Function, mark))
	}
	return lines
}

// sourceAround renders the lines around line of file, with an arrow at line.
func sourceAround(file string, line, radius int) []string {
	src, err := sourceLines(file)
	if err != nil || line < 1 || line > len(src) {
		return []string{fmt.Sprintf("  (the source of %s is not available)", file)}
	}
	from, to := max(1, line-radius), min(len(src), line+radius)
	width := len(fmt.Sprint(to))
	var out []string
	for n := from; n <= to; n++ {
		mark := "  "
		if n == line {
			mark = "> "
		}
		out = append(out, fmt.Sprintf("%s%*d | %s", mark, width, n, strings.TrimRight(src[n-1], " \t")))
	}
	return out
}
