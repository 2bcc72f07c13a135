package live

import (
	"context"
	"fmt"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/adi-bridge/adi/internal/faces"
)

// Locals shown per frame by stack, and the width of a value.
const (
	maxLocalsFrames = 8
	maxLocals       = 12
	maxValue        = 120
)

// StackFrame is one frame of stack's result, with its local variables.
type StackFrame struct {
	Frame
	Locals []Variable `json:"locals,omitempty"`
	// More counts the locals left out.
	More int `json:"more_locals,omitempty"`
}

// Variable is a local variable and the repr debugpy gives of its value.
type Variable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Type  string `json:"type,omitempty"`
}

// stackResult lists every frame with its local variables (the innermost frames first get them).
func (s *Session) stackResult(ctx context.Context) (result, error) {
	frames := make([]StackFrame, len(s.stack))
	for i, f := range s.stack {
		frames[i].Frame = f
		if i >= maxLocalsFrames {
			continue
		}
		vars, err := s.locals(ctx, f)
		if err != nil {
			return result{}, s.lost(err)
		}
		if len(vars) > maxLocals {
			frames[i].More = len(vars) - maxLocals
			vars = vars[:maxLocals]
		}
		frames[i].Locals = vars
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Stack of the paused program (%d frame(s), innermost last; %s runs in #0 unless given a %s):\n", len(frames), cmdMark(CmdInteract), faces.Param("live.interact", "frame"))
	for i := len(frames) - 1; i >= 0; i-- {
		f := frames[i]
		mark := ""
		if f.Current && i != 0 {
			mark = "   ← paused here"
		}
		fmt.Fprintf(&b, "#%d %s%s\n", f.Index, s.frameText(f.Frame), mark)
		if src, err := sourceLines(f.File); err == nil && f.Line >= 1 && f.Line <= len(src) {
			fmt.Fprintf(&b, "   %s\n", strings.TrimSpace(src[f.Line-1]))
		}
		for _, v := range f.Locals {
			fmt.Fprintf(&b, "     %s = %s\n", v.Name, v.Value)
		}
		if f.More > 0 {
			fmt.Fprintf(&b, "     … %d more local(s); %s can print them\n", f.More, cmdMark(CmdInteract))
		}
		if i >= maxLocalsFrames {
			b.WriteString("     (locals not read for outer frames; " + cmdMark(CmdInteract) + " with " + faces.Param("live.interact", "frame") + " can print them)\n")
		}
	}
	return result{text: b.String(), json: frames}, nil
}

// locals reads a frame's local variables (its "Locals" scope), skipping dunder names.
func (s *Session) locals(ctx context.Context, f Frame) ([]Variable, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	scopes, err := s.run.c.Scopes(ctx, f.id)
	if err != nil {
		return nil, fmt.Errorf("read the scopes of %s: %w", s.frameText(f), err)
	}
	var scope *godap.Scope
	for i := range scopes {
		if scopes[i].Name == "Locals" {
			scope = &scopes[i]
		}
	}
	if scope == nil || scope.VariablesReference == 0 {
		return nil, nil
	}
	vars, err := s.run.c.Variables(ctx, scope.VariablesReference)
	if err != nil {
		return nil, fmt.Errorf("read the locals of %s: %w", s.frameText(f), err)
	}
	var out []Variable
	for _, v := range vars {
		switch {
		case strings.HasPrefix(v.Name, "__"), v.Name == "special variables", v.Name == "function variables", v.Name == "class variables":
			continue
		}
		val := v.Value
		if r := []rune(val); len(r) > maxValue {
			val = string(r[:maxValue-1]) + "…"
		}
		out = append(out, Variable{Name: v.Name, Value: val, Type: v.Type})
	}
	return out, nil
}

// WhereResult is where's result: the innermost frame and the source around its line.
type WhereResult struct {
	Frame  Frame    `json:"frame"`
	Source []string `json:"source"`
	// Paused is the frame the program is paused in when it is not the innermost one (an
	// exception leaving the program's code).
	Paused *Frame `json:"paused,omitempty"`
}

// whereRadius is how many lines where shows on each side of the current line.
const whereRadius = 3

// where shows the current line of the innermost frame with the source around it.
func (s *Session) where() (result, error) {
	if len(s.stack) == 0 {
		return result{text: "The program is paused with no frame of its own code.", json: WhereResult{}}, nil
	}
	f := s.stack[0]
	src := sourceAround(f.File, f.Line, whereRadius)
	var b strings.Builder
	fmt.Fprintf(&b, "At %s:\n%s\n", s.frameText(f), strings.Join(src, "\n"))
	res := WhereResult{Frame: f, Source: src}
	if cur := s.current(); cur.Index != 0 {
		res.Paused = &cur
		fmt.Fprintf(&b, "(the exception was raised here; the program is paused where it leaves the program's code, %s)\n", s.frameText(cur))
	}
	return result{text: b.String(), json: res}, nil
}
