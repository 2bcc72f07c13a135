package live

import (
	"context"
	"fmt"
	"sort"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/faces"
)

// BreakpointResult is set_breakpoint's and clear's result.
type BreakpointResult struct {
	Set     *Breakpoint  `json:"set,omitempty"`
	Removed []Breakpoint `json:"removed,omitempty"`
	// Pending is set when the breakpoint only applies from the next restart.
	Pending bool `json:"pending,omitempty"`
}

// setBreakpoint adds (or replaces) the breakpoint at a FILE:LINE. While the program can still
// reach it, debugpy gets it now; in PostMortem and Done it applies from the next restart.
func (s *Session) setBreakpoint(ctx context.Context, c Cmd) (result, error) {
	script := ""
	if s.prog.Target.Mode == "script" {
		script = s.prog.Target.Path
	}
	file, line, src, err := parseLocation(s.prog.Dir, script, c.Location)
	if err != nil {
		return result{}, err
	}
	b := s.find(file, line)
	verb := "set"
	if b == nil {
		b = &breakpoint{File: file, Line: line}
		s.bps = append(s.bps, b)
	} else {
		verb = "replaced"
	}
	b.Condition, b.Keep, b.Source, b.Armed, b.Message = strings.TrimSpace(c.Condition), c.Keep, src, true, ""
	pending := s.state == PostMortem || s.state == Done
	if !pending {
		if err := s.sendBreakpoints(ctx, s.run.c, file); err != nil {
			return result{}, s.lost(err)
		}
	}
	var t strings.Builder
	fmt.Fprintf(&t, "Breakpoint %s at %s:%d: %s", verb, shortPath(s.prog.Dir, file), line, src)
	if b.Condition != "" {
		fmt.Fprintf(&t, "  (only when %s)", b.Condition)
	}
	if b.Keep {
		t.WriteString("\nIt stays after each hit (keep); " + cmdMark(CmdClear) + " removes it.")
	} else {
		t.WriteString("\nIt is removed once hit (pass " + faces.Param("live.set_breakpoint", "keep") + " to keep it); " + cmdMark(CmdRestart) + " sets it again.")
	}
	switch s.state {
	case PostMortem:
		t.WriteString("\nThe program is ending by an uncaught exception and runs none of its code again: the breakpoint applies from the next " + cmdMark(CmdRestart) + ".")
	case Done:
		t.WriteString("\nThe program has ended: the breakpoint applies from the next " + cmdMark(CmdRestart) + ".")
	}
	if b.Message != "" {
		fmt.Fprintf(&t, "\ndebugpy could not verify it: %s", b.Message)
	}
	info := b.info(s.prog.Dir)
	return result{text: t.String(), json: BreakpointResult{Set: &info, Pending: pending}}, nil
}

// clear removes the breakpoint at a FILE:LINE, or every breakpoint when loc is "".
func (s *Session) clear(ctx context.Context, loc string) (result, error) {
	var gone []*breakpoint
	if strings.TrimSpace(loc) == "" {
		gone, s.bps = s.bps, nil
	} else {
		script := ""
		if s.prog.Target.Mode == "script" {
			script = s.prog.Target.Path
		}
		file, line, _, err := parseLocation(s.prog.Dir, script, loc)
		if err != nil {
			return result{}, err
		}
		b := s.find(file, line)
		if b == nil {
			return result{}, adi.NotFoundf("no breakpoint at %s:%d; the breakpoints are: %s", shortPath(s.prog.Dir, file), line, s.locations())
		}
		gone = []*breakpoint{b}
		kept := s.bps[:0]
		for _, x := range s.bps {
			if x != b {
				kept = append(kept, x)
			}
		}
		s.bps = kept
	}
	if s.state != PostMortem && s.state != Done {
		files := map[string]bool{}
		for _, b := range gone {
			files[b.File] = true
		}
		for _, f := range sortedKeys(files) {
			if err := s.sendBreakpoints(ctx, s.run.c, f); err != nil {
				return result{}, s.lost(err)
			}
		}
	}
	res := BreakpointResult{}
	var names []string
	for _, b := range gone {
		res.Removed = append(res.Removed, b.info(s.prog.Dir))
		names = append(names, shortPath(s.prog.Dir, b.File)+fmt.Sprintf(":%d", b.Line))
	}
	text := "No breakpoint to remove."
	if len(names) > 0 {
		text = fmt.Sprintf("Removed %d breakpoint(s): %s.", len(names), strings.Join(names, ", "))
	}
	return result{text: text, json: res}, nil
}

func (s *Session) find(file string, line int) *breakpoint {
	for _, b := range s.bps {
		if b.File == file && b.Line == line {
			return b
		}
	}
	return nil
}

// locations lists the breakpoints for an error message.
func (s *Session) locations() string {
	if len(s.bps) == 0 {
		return "none"
	}
	var out []string
	for _, b := range s.bps {
		out = append(out, shortPath(s.prog.Dir, b.File)+fmt.Sprintf(":%d", b.Line))
	}
	return strings.Join(out, ", ")
}

// files lists the files that have breakpoints.
func (s *Session) files() []string {
	set := map[string]bool{}
	for _, b := range s.bps {
		set[b.File] = true
	}
	return sortedKeys(set)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sendBreakpoints gives debugpy the armed breakpoints of one file (replacing what it had there).
func (s *Session) sendBreakpoints(ctx context.Context, c *dap.Client, file string) error {
	var armed []*breakpoint
	sbs := []godap.SourceBreakpoint{}
	for _, b := range s.bps {
		if b.File == file && b.Armed {
			armed = append(armed, b)
			sbs = append(sbs, godap.SourceBreakpoint{Line: b.Line, Condition: b.Condition})
		}
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	// Not dap.Client.SetBreakpoints: go-dap omits an empty breakpoints list, and pydevd fails
	// (and drops the connection) on a request without one.
	var body godap.SetBreakpointsResponseBody
	err := c.Do(ctx, "setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": sbs}, &body)
	got := body.Breakpoints
	if err != nil {
		return fmt.Errorf("set the breakpoints of %s in debugpy: %w", file, err)
	}
	for i, b := range armed {
		if i < len(got) && !got[i].Verified {
			b.Message = got[i].Message
		}
	}
	return nil
}
