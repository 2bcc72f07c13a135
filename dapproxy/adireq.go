package dapproxy

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/dap"
)

// ADI requests: a DAP request whose command is "adi/<name>" is answered by the proxy, never sent
// to debugpy. Each builds one adi.Command from its arguments (the same arguments, by the same
// names, as the WebSocket API's adi.* methods) and runs it with bridge.Session.Do, the one
// implementation every face uses. The response body is {text, result}.

// adiArgs are the arguments an adi/ request may carry; each command reads its own.
type adiArgs struct {
	Line   json.RawMessage `json:"line"` // run: the command line; exec: the line number
	Func   string          `json:"func"`
	Cond   string          `json:"cond"`
	Frame  string          `json:"frame"`
	Depth  int             `json:"depth"`
	Width  int             `json:"width"`
	Caller string          `json:"caller"`
	Limit  int             `json:"limit"`
	A      string          `json:"a"`
	B      string          `json:"b"`
	Stmt   string          `json:"stmt"`
	Visit  int             `json:"visit"`
	Budget int             `json:"budget"`
}

// adiCommands maps every adi/ name (DAP's camelCase and the CLI's spelling) to its builder.
var adiCommands = map[string]func(a *adiArgs) (adi.Command, error){
	"run":        buildRun,
	"break":      buildBreak,
	"clear":      buildClear,
	"continue":   func(*adiArgs) (adi.Command, error) { return adi.ContinueCmd{}, nil },
	"prev":       func(*adiArgs) (adi.Command, error) { return adi.PrevCmd{}, nil },
	"stepInto":   buildStepInto,
	"stepOut":    func(*adiArgs) (adi.Command, error) { return adi.StepOutCmd{}, nil },
	"callTree":   buildCallTree,
	"listFrames": buildListFrames,
	"diff":       buildDiff,
	"state":      func(*adiArgs) (adi.Command, error) { return adi.StateCmd{}, nil },
	"list":       func(*adiArgs) (adi.Command, error) { return adi.ListCmd{}, nil },
	"flt":        buildFLT,
	"exec":       buildExec,
}

// adiAliases are the other spellings accepted.
var adiAliases = map[string]string{
	"step-into": "stepInto", "step-in": "stepInto", "stepIn": "stepInto", "step-out": "stepOut",
	"call-tree": "callTree", "list-frames": "listFrames", "execute": "exec",
}

// adiNames lists the adi/ requests, for error messages.
func adiNames() string {
	var names []string
	for n := range adiCommands {
		names = append(names, "adi/"+n)
	}
	sort.Strings(names)
	return strings.Join(append(names, "adi/session"), ", ")
}

// adiCommand builds the command of an adi/<name> request and its text options.
func adiCommand(m *dap.Message) (adi.Command, adi.TextOptions, error) {
	name := strings.TrimPrefix(m.Command, "adi/")
	if alias, ok := adiAliases[name]; ok {
		name = alias
	}
	build, ok := adiCommands[name]
	if !ok {
		return nil, adi.TextOptions{}, adi.Errorf(errUnknownCommand, "adi: unknown request %q; use one of %s", m.Command, adiNames())
	}
	var a adiArgs
	if err := m.Body(&a); err != nil {
		return nil, adi.TextOptions{}, adi.BadInputf("the arguments of %s are not what it takes: %v", m.Command, err)
	}
	cmd, err := build(&a)
	if err != nil {
		return nil, adi.TextOptions{}, fmt.Errorf("%s: %w", m.Command, err)
	}
	return cmd, adi.TextOptions{Budget: a.Budget}, nil
}

var errUnknownCommand = fmt.Errorf("unknown adi request")

func need(name, v string) error {
	if strings.TrimSpace(v) == "" {
		return adi.BadInputf("argument %q is missing", name)
	}
	return nil
}

// ref parses a reference argument; frame says whether it must name a frame (FUNC#N).
func ref(name, v string, frame bool) (adi.Ref, error) {
	r, err := adi.ParseRef(v)
	if err != nil {
		return adi.Ref{}, fmt.Errorf("argument %q: %w", name, err)
	}
	if frame && !r.NamesFrame() {
		return adi.Ref{}, adi.BadInputf("argument %q: %s names a function; add the invocation index, e.g. %s#1", name, v, v)
	}
	return r, nil
}

func optRef(name, v string) (*adi.Ref, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	r, err := ref(name, v, true)
	return &r, err
}

func buildRun(a *adiArgs) (adi.Command, error) {
	var line string
	if len(a.Line) == 0 || json.Unmarshal(a.Line, &line) != nil {
		return nil, adi.BadInputf(`argument "line" must be a command line such as "break t:f x > 3"`)
	}
	return adi.ParseCommand(line)
}

func buildBreak(a *adiArgs) (adi.Command, error) {
	if err := need("func", a.Func); err != nil {
		return nil, err
	}
	r, err := adi.ParseRef(a.Func)
	if err != nil {
		return nil, err
	}
	return adi.BreakCmd{Func: r, Cond: a.Cond}, nil
}

func buildClear(a *adiArgs) (adi.Command, error) {
	if strings.TrimSpace(a.Func) == "" {
		if a.Cond != "" {
			return nil, adi.BadInputf(`argument "cond" needs "func": clear FUNC COND removes one conditional breakpoint`)
		}
		return adi.ClearCmd{}, nil
	}
	r, err := ref("func", a.Func, false)
	if err != nil {
		return nil, err
	}
	return adi.ClearCmd{Func: &r, Cond: a.Cond}, nil
}

func buildStepInto(a *adiArgs) (adi.Command, error) {
	if err := need("frame", a.Frame); err != nil {
		return nil, err
	}
	r, err := ref("frame", a.Frame, true)
	return adi.StepIntoCmd{Frame: r}, err
}

func buildCallTree(a *adiArgs) (adi.Command, error) {
	r, err := optRef("frame", a.Frame)
	return adi.CallTreeCmd{Frame: r, Options: adi.TreeOptions{Depth: a.Depth, Width: a.Width}}, err
}

func buildListFrames(a *adiArgs) (adi.Command, error) {
	if err := need("func", a.Func); err != nil {
		return nil, err
	}
	r, err := ref("func", a.Func, false)
	return adi.ListFramesCmd{Func: r, Filter: adi.FrameFilter{Caller: a.Caller, Limit: a.Limit}}, err
}

func buildDiff(a *adiArgs) (adi.Command, error) {
	if err := need("a", a.A); err != nil {
		return nil, err
	}
	if err := need("b", a.B); err != nil {
		return nil, err
	}
	ra, err := ref("a", a.A, true)
	if err != nil {
		return nil, err
	}
	rb, err := ref("b", a.B, true)
	return adi.DiffCmd{A: ra, B: rb}, err
}

func buildFLT(a *adiArgs) (adi.Command, error) {
	r, err := optRef("frame", a.Frame)
	return adi.FLTCmd{Frame: r}, err
}

func buildExec(a *adiArgs) (adi.Command, error) {
	if err := need("frame", a.Frame); err != nil {
		return nil, err
	}
	if err := need("stmt", a.Stmt); err != nil {
		return nil, err
	}
	r, err := ref("frame", a.Frame, true)
	if err != nil {
		return nil, err
	}
	line := 0
	if len(a.Line) > 0 && json.Unmarshal(a.Line, &line) != nil {
		return nil, adi.BadInputf(`argument "line" of exec is a line number`)
	}
	visit := a.Visit
	if visit == 0 {
		visit = 1
	}
	return adi.ExecCmd{Frame: r, Line: line, Visit: visit, Stmt: a.Stmt}, nil
}
