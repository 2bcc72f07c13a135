package dapproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/target"
)

// launch rewrites a launch request so the probe runs the program and records it into a new
// session. A launch adi cannot record is forwarded unchanged, and the editor's debug console says
// why.
func (l *link) launch(m *dap.Message, raw []byte) []byte {
	l.mu.Lock()
	l.kind = "launch"
	b := l.be
	l.mu.Unlock()
	mgr := l.srv.cfg.Manager
	if mgr == nil || b == nil || b.ad == nil {
		return raw
	}
	args, err := getMember(raw, "arguments")
	if err != nil {
		return raw
	}
	nodelay, err := dap.InstallNoDelay()
	if err != nil {
		l.notice(fmt.Sprintf("not recording this run: %v", err))
		return raw
	}
	wd, _ := os.Getwd()
	plan, err := planLaunch(args, launchEnv{
		python: l.srv.cfg.Python.Path, environ: os.Environ(), nodelay: nodelay, tag: b.ad.Tag, wd: wd,
		session: l.srv.cfg.Session,
	})
	if err == nil && plan.skip != "" {
		err = fmt.Errorf("%s", plan.skip)
	}
	if err != nil {
		l.notice(fmt.Sprintf("not recording this run: %v", err))
		return raw
	}
	ctx, cancel := context.WithTimeout(l.ctx, 30*time.Second)
	defer cancel()
	x, err := mgr.StartExternal(ctx, "", plan.opts)
	if err != nil {
		l.notice(fmt.Sprintf("not recording this run: %s", faces.WebSocket.Render(err.Error())))
		return raw
	}
	newArgs, err := rewriteLaunch(args, plan, x)
	if err == nil {
		raw, err = setMember(raw, "arguments", newArgs)
	}
	if err != nil {
		l.notice(fmt.Sprintf("not recording this run: cannot rewrite the launch: %v", err))
		_ = x.Finish(-1)
		return raw
	}
	r := newRecorder(l, x, plan.processName)
	l.mu.Lock()
	l.rec = r
	l.mu.Unlock()
	s := x.Session()
	l.log.Info("recording the editor's run", "session", s.ID, "command", s.Opts.Command)
	if fn := l.srv.cfg.OnSession; fn != nil {
		fn(s.ID, s.Dir)
	}
	return raw
}

// needDebugpy checks, before a launch reaches debugpy, that the interpreter it names (the
// "python" or "pythonPath" member) has debugpy; the check is cached per interpreter. Without
// one, debugpy runs the adapter's own interpreter, which FindPython chose for its debugpy. It
// returns the one line that says it has not and how to install it, or "". Without the check,
// debugpy's adapter waits 15 s for a debuggee that cannot start.
func (l *link) needDebugpy(raw []byte) string {
	args, err := getMember(raw, "arguments")
	if err != nil {
		return ""
	}
	py := debuggeePython(args)
	if py == "" || py == l.srv.cfg.Python.Path {
		return ""
	}
	ctx, cancel := context.WithTimeout(l.ctx, 30*time.Second)
	defer cancel()
	if err := dap.NeedDebugpy(ctx, py, "the editor's debug session"); err != nil {
		return errkind.Unprefixed(err.Error())
	}
	return ""
}

// launchArgs are the parts of debugpy's launch arguments the proxy reads. Everything else passes
// through as the editor sent it.
type launchArgs struct {
	Program    *string            `json:"program"`
	Module     *string            `json:"module"`
	Code       json.RawMessage    `json:"code"` // a string, or lines to join
	Args       json.RawMessage    `json:"args"`
	Cwd        string             `json:"cwd"`
	Env        map[string]*string `json:"env"`
	Python     json.RawMessage    `json:"python"`
	PythonArgs []string           `json:"pythonArgs"`
	// Stdin is adi's own addition: a file whose content becomes the program's standard input.
	Stdin string `json:"stdin"`
	// ADI holds adi's options; debugpy ignores the member.
	ADI *struct {
		Root    string   `json:"root"`
		Include []string `json:"include"`
		Exclude []string `json:"exclude"`
		Record  *bool    `json:"record"`
	} `json:"adi"`
}

// launchEnv is what the rewrite needs to know about the proxy's side of the run.
type launchEnv struct {
	python  string         // the adapter's interpreter (debugpy's default for the debuggee)
	environ []string       // the adapter's environment (what the debuggee inherits)
	nodelay string         // the TCP_NODELAY sitecustomize directory
	tag     string         // the run tag of the adapter's processes
	wd      string         // the proxy's working directory (debugpy's default cwd)
	session bridge.Options // defaults: Limits, Timeout, ReprLimit
}

// launchPlan is a launch request the proxy can record: the session's options and the
// environment the debuggee must get.
type launchPlan struct {
	opts bridge.Options
	// envAdd are the variables the proxy adds to (or changes in) the launch's env member.
	envAdd map[string]string
	// processName is what debugpy names the process for the launch as the editor sent it (its
	// process event then names the probe's script instead).
	processName string
	// skip says why the run is not recorded ("" when it is).
	skip string
}

// planLaunch reads a launch request's arguments. A launch adi cannot record (args given as one
// string, no program) returns a plan with skip set: it is then forwarded unchanged.
func planLaunch(raw json.RawMessage, le launchEnv) (*launchPlan, error) {
	var a launchArgs
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("the launch arguments are not what debugpy reads: %w", err)
	}
	p := &launchPlan{}
	if a.ADI != nil && a.ADI.Record != nil && !*a.ADI.Record {
		p.skip = `the launch configuration sets "adi": {"record": false}`
		return p, nil
	}
	tg := target.Target{Python: "python"}
	hasCode := len(a.Code) > 0 && string(a.Code) != "null"
	switch {
	case a.Program != nil && a.Module == nil && !hasCode:
		tg.Mode, tg.Path = target.Script, *a.Program
		p.processName = *a.Program
	case a.Module != nil && a.Program == nil && !hasCode:
		tg.Mode, tg.Module = target.Module, *a.Module
		p.processName = *a.Module
	case hasCode && a.Program == nil && a.Module == nil:
		code, err := codeOf(a.Code)
		if err != nil {
			p.skip = err.Error()
			return p, nil
		}
		tg.Mode, tg.Code = target.Code, code
		p.processName = "-c"
	default:
		p.skip = "the launch names no single program, module or code to run"
		return p, nil
	}
	if len(a.Args) > 0 && string(a.Args) != "null" {
		if err := json.Unmarshal(a.Args, &tg.Args); err != nil {
			p.skip = `"args" is not a list of strings (adi records launches whose arguments are a list)`
			return p, nil
		}
	}
	py, flags, err := pythonOf(a.Python)
	if err != nil {
		p.skip = err.Error()
		return p, nil
	}
	if py != "" {
		tg.Python = py
	}
	tg.PyFlags = append(flags, a.PythonArgs...)
	cwd := a.Cwd
	if cwd == "" {
		cwd = le.wd
	}
	if tg.Mode == target.Script && !filepath.IsAbs(tg.Path) {
		tg.Path = filepath.Join(cwd, tg.Path)
	}
	if a.Stdin != "" {
		tg.Stdin = a.Stdin
		if !filepath.IsAbs(tg.Stdin) {
			tg.Stdin = filepath.Join(cwd, tg.Stdin)
		}
	}

	add := map[string]string{}
	var optEnv []string
	for _, k := range sortedKeys(a.Env) {
		if v := a.Env[k]; v != nil { // null unsets it for debugpy; a re-run inherits adi's value
			optEnv = append(optEnv, k+"="+*v)
		}
	}
	// Every run of the session must hash the same way as the editor's run.
	if _, ok := a.Env["PYTHONHASHSEED"]; !ok {
		seed := lookupEnv(le.environ, "PYTHONHASHSEED")
		if seed == "" {
			seed = "0"
		}
		add["PYTHONHASHSEED"] = seed
		optEnv = append(optEnv, "PYTHONHASHSEED="+seed)
	}
	// The user's PYTHONPATH replaces the one the debuggee would inherit: keep the user's entries
	// first and add the TCP_NODELAY directory after them.
	if pp := a.Env["PYTHONPATH"]; pp != nil && le.nodelay != "" && !dap.PathHas(*pp, le.nodelay) {
		if *pp == "" {
			add["PYTHONPATH"] = le.nodelay
		} else {
			add["PYTHONPATH"] = *pp + string(os.PathListSeparator) + le.nodelay
		}
	}
	// The run tag finds the debuggee even when the editor's terminal started it.
	if le.tag != "" {
		add[dap.RunTagVar] = le.tag
	}
	p.envAdd = add

	root := cwd
	o := le.session
	if a.ADI != nil {
		if a.ADI.Root != "" {
			root = a.ADI.Root
			if !filepath.IsAbs(root) {
				root = filepath.Join(cwd, root)
			}
		}
		o.Include, o.Exclude = a.ADI.Include, a.ADI.Exclude
	}
	if tg.Mode == target.Script && !under(tg.Path, root) {
		root = filepath.Dir(tg.Path) // the program is user code, wherever it is
	}
	o.Command = tg.String()
	o.Dir = cwd
	o.Root = root
	o.Env = optEnv
	o.Python = le.python
	p.opts = o
	return p, nil
}

// codeOf reads debugpy's "code" member: a string, or lines joined with newlines.
func codeOf(raw json.RawMessage) (string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return "", fmt.Errorf(`"code" is neither a string nor a list of lines`)
	}
	return strings.Join(lines, "\n"), nil
}

// pythonOf reads debugpy's "python" member: a path, or a list of the path and its options.
func pythonOf(raw json.RawMessage) (string, []string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one, nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return "", nil, fmt.Errorf(`"python" is neither a path nor a list of strings`)
	}
	return list[0], append([]string(nil), list[1:]...), nil
}

// debuggeePython returns the interpreter a launch's arguments name for the debuggee: debugpy's
// "python" member, or its legacy spelling "pythonPath" (a path, or a list of the path and its
// options); "" when neither names one (debugpy then uses the adapter's interpreter).
func debuggeePython(raw json.RawMessage) string {
	var a struct {
		Python     json.RawMessage `json:"python"`
		PythonPath json.RawMessage `json:"pythonPath"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return ""
	}
	for _, m := range []json.RawMessage{a.Python, a.PythonPath} {
		if py, _, err := pythonOf(m); err == nil && py != "" {
			return py
		}
	}
	return ""
}

// under reports whether path is inside dir.
func under(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func lookupEnv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			v = kv[len(key)+1:]
		}
	}
	return v
}

// rewriteLaunch returns the launch arguments that run the program through the probe: program is
// the probe's script with the run's config as its one argument (the config names what the editor
// asked to run), module/code are dropped, the probe's directory is excluded from debugging ahead
// of the user's own rules, and env gets the plan's additions. Every other member passes as sent.
func rewriteLaunch(raw json.RawMessage, p *launchPlan, x *bridge.External) (json.RawMessage, error) {
	out := []byte(raw)
	if len(out) == 0 {
		out = []byte("{}")
	}
	set := func(key string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		out, err = setMember(out, key, b)
		return err
	}
	var err error
	for _, k := range []string{"module", "code"} {
		if out, err = deleteMember(out, k); err != nil {
			return nil, err
		}
	}
	if err := set("program", x.Script); err != nil {
		return nil, err
	}
	if err := set("args", []string{x.ConfigPath}); err != nil {
		return nil, err
	}
	rule, _ := json.Marshal(map[string]any{"path": filepath.Join(x.ProbeDir, "**"), "include": false})
	rules := append(append([]byte("["), rule...), ']')
	if cur, err := getMember(out, "rules"); err != nil {
		return nil, err
	} else if len(cur) > 0 && string(cur) != "null" {
		var user []json.RawMessage
		if err := json.Unmarshal(cur, &user); err != nil {
			return nil, fmt.Errorf(`"rules" is not a list: %w`, err)
		}
		if len(user) > 0 { // the probe's rule first (the first matching rule wins), then the user's as sent
			inner := bytes.TrimSpace(cur)[1:]
			rules = append(append(append([]byte("["), rule...), ','), inner...)
		}
	}
	if out, err = setMember(out, "rules", rules); err != nil {
		return nil, err
	}
	envRaw, err := getMember(out, "env")
	if err != nil {
		return nil, err
	}
	if len(envRaw) == 0 || string(envRaw) == "null" {
		envRaw = []byte("{}")
	}
	for _, k := range sortedKeys(p.envAdd) {
		v, _ := json.Marshal(p.envAdd[k])
		if envRaw, err = setMember(envRaw, k, v); err != nil {
			return nil, fmt.Errorf(`"env": %w`, err)
		}
	}
	if out, err = setMember(out, "env", envRaw); err != nil {
		return nil, err
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
