package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/internal/wire"
)

// Exit codes of a CLI command.
const (
	ExitOK     = 0 // answered
	ExitFailed = 1 // the target failed (the answer is still printed) or the command failed
	ExitUsage  = 2 // adi was called wrongly
	// ExitInterrupted is a command interrupted by SIGINT (Ctrl-C), as a shell reports one.
	ExitInterrupted = 130
)

// Env is what a CLI command needs from its process.
type Env struct {
	// StateDir holds the daemon's files and sessions ($ADI_STATE_DIR).
	StateDir string
	// Server returns the binary that runs the daemon (`adi-server serve`); it is called only
	// when a daemon has to be started.
	Server func() (string, error)
	// Dir is the working directory the target runs in.
	Dir string
	// Environ is the environment the daemon starts with; targets run with the daemon's
	// environment plus the assignments in front of the target command (FOO=1 python t.py).
	Environ []string
	// Python is the --python choice, LogLevel the daemon's log level.
	Python   string
	LogLevel string
	// IdleTimeout closes sessions unused for that long; DaemonIdle stops the daemon once no
	// session is open and nothing happened for that long.
	IdleTimeout time.Duration
	DaemonIdle  time.Duration
	Stdout      io.Writer
	Stderr      io.Writer
}

// Call is one JSON-RPC call of a command; "session" is added to Params.
type Call struct {
	Method string
	Params map[string]any
}

// Invocation is one CLI command, parsed.
type Invocation struct {
	// Name is the command as typed ("break"), for messages.
	Name string
	// Target is the target command line ("python t.py"); "" uses the session chosen by Session,
	// else the last one used in this state directory.
	Target string
	// Session is --session or $ADI_SESSION ("" derives it from Target and Dir).
	Session string
	// Timeout bounds one run of the target when the session is created (0: the default).
	Timeout time.Duration
	// NoSeed leaves random's unseeded generators unseeded in the session's runs (--no-seed).
	NoSeed bool
	// Values is --values: how the program's types with their own __repr__ are shown.
	Values string
	// Include lists files recorded although they are not user code (--allow-external): the
	// session is recorded again when its recording does not include them yet.
	Include []string
	Calls   []Call
	// JSON prints the JSON results instead of the texts.
	JSON bool
}

// lastFile records the session the last command used, for commands given without a target.
const lastFile = "cli-last-session"

// SessionID derives the session of a target command run in dir: the same command in the same
// directory reuses its recording.
func SessionID(dir, target string) string { return derivedID("cli-", "", dir, target) }

// derivedID names the session of a target command in dir: prefix and a hash of salt, dir and
// the command with its spacing normalised.
func derivedID(prefix, salt, dir, target string) string {
	sum := sha256.Sum256([]byte(salt + dir + "\x00" + strings.Join(strings.Fields(target), " ")))
	return prefix + hex.EncodeToString(sum[:6])
}

// readLast returns the id recorded in the state directory's file name ("" when none).
func readLast(env *Env, name string) string {
	b, err := os.ReadFile(filepath.Join(env.StateDir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// writeLast records id in the state directory's file name, unless the file holds it already: a
// command of the session used last (most are) reads the file instead of writing it. On ext4 the
// close of a file truncated and written again starts writing its data back (auto_da_alloc), a
// measurable share of a command that answers from the recording in milliseconds.
func writeLast(env *Env, name, id string) {
	if readLast(env, name) == id {
		return
	}
	_ = os.WriteFile(filepath.Join(env.StateDir, name), []byte(id+"\n"), 0o600)
}

// printText prints an answer's text, ending it with a newline.
func printText(env *Env, text string) {
	fmt.Fprint(env.Stdout, text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(env.Stdout)
	}
}

// Run runs one invocation and returns the exit code. It prints the answers' text on stdout and
// errors as one line on stderr.
func Run(ctx context.Context, env *Env, inv Invocation) int {
	id, fromLast, code := chooseSession(env, inv)
	if code != ExitOK {
		return code
	}
	rpc, err := daemonRPC(ctx, env)
	if err != nil {
		return fail(env, err)
	}
	defer rpc.close()
	exitCode := -1
	params := make([]map[string]any, len(inv.Calls))
	for i, c := range inv.Calls {
		params[i] = map[string]any{"session": id}
		for k, v := range c.Params {
			params[i][k] = v
		}
		if !inv.JSON {
			params[i][textOnlyParam] = true
		}
	}
	raws := make([]json.RawMessage, len(inv.Calls))
	errs := make([]error, len(inv.Calls))
	sent := 0 // calls answered in session.create's message
	if inv.Target != "" {
		var with []rpcCall
		if len(inv.Calls) > 0 {
			with = append(with, rpcCall{Method: inv.Calls[0].Method, Params: params[0], Out: &raws[0]})
		}
		created, werrs, err := openSession(ctx, env, rpc, id, inv, with...)
		if err != nil {
			return fail(env, err)
		}
		exitCode = created.Run.ExitCode
		sent = copy(errs, werrs)
	}
	if !fromLast { // a command naming no session goes on with the last one: nothing to write
		writeLast(env, lastFile, id)
	}

	var results []json.RawMessage // --json: the results as they came
	var texts []string            // otherwise: their texts
	failed := false
	for i, c := range inv.Calls {
		if i >= sent {
			errs[i] = rpc.call(ctx, c.Method, params[i], &raws[i])
		}
		if textOnlyRefused(errs[i]) {
			// a daemon older than textOnlyParam refuses it before running anything: call again
			// without it, and that daemon answers as it always did
			delete(params[i], textOnlyParam)
			raws[i] = nil
			errs[i] = rpc.call(ctx, c.Method, params[i], &raws[i])
		}
		if errs[i] != nil {
			flush(env, inv, results, texts)
			return fail(env, errs[i])
		}
		var ans answer
		if err := json.Unmarshal(raws[i], &ans); err != nil && !inv.JSON {
			flush(env, inv, results, texts)
			return fail(env, fmt.Errorf("adi: the daemon's answer to %s is not an ADI answer: %w", c.Method, err))
		}
		results = append(results, raws[i])
		texts = append(texts, ans.Text)
		failed = failed || ans.TargetFailed
	}
	flush(env, inv, results, texts)
	if failed {
		if exitCode < 0 {
			var got struct {
				Run wire.RunInfo `json:"run"`
			}
			if rpc.call(ctx, "session.get", map[string]any{"session": id}, &got) == nil {
				exitCode = got.Run.ExitCode
			}
		}
		fmt.Fprintf(env.Stderr, "adi: the target command failed (exit status %d); the answer above is still valid\n", exitCode)
		return ExitFailed
	}
	return ExitOK
}

// textOnlyParam asks an ADI method for its answer's text alone (server.TextOnlyParam): the
// daemon then neither encodes nor sends the structured result, which the text mode never prints.
const textOnlyParam = "text_only"

// textOnlyRefused reports whether err is a daemon's refusal of textOnlyParam as an unknown param
// (a daemon older than it, which refuses it before running anything).
func textOnlyRefused(err error) bool {
	var we *wire.Error
	return errors.As(err, &we) && we.Code == errkind.InvalidParams.RPC() && we.Data != nil && len(we.Data.Valid) > 0 &&
		!slices.Contains(we.Data.Valid, textOnlyParam) && strings.Contains(we.Message, strconv.Quote(textOnlyParam))
}

// chooseSession picks the session: --session/$ADI_SESSION ("live": the last live session started
// here, whose watches' recording every ADI command reads), else one derived from the target, else
// the last one used (fromLast).
func chooseSession(env *Env, inv Invocation) (id string, fromLast bool, code int) {
	switch {
	case inv.Session == "live": // the live session the last `adi live start` opened here
		if id := readLast(env, lastLiveFile); id != "" {
			return id, false, ExitOK
		}
		fmt.Fprintf(env.Stderr, "adi: %s: --session live names the last live session started in %s, and there is none; start one with adi live start \"python t.py\"\n", inv.Name, env.StateDir)
		return "", false, ExitUsage
	case inv.Session != "":
		return inv.Session, false, ExitOK
	case inv.Target != "":
		return SessionID(env.Dir, inv.Target), false, ExitOK
	}
	if id := readLast(env, lastFile); id != "" {
		return id, true, ExitOK
	}
	fmt.Fprintf(env.Stderr, "adi: %s: no session yet in %s; give the target command first, e.g. adi %s \"python t.py\" ...\n",
		inv.Name, env.StateDir, inv.Name)
	return "", false, ExitUsage
}

// created is what the CLI reads of session.create's answer (server.CreateResult).
type created struct {
	Run    wire.RunInfo `json:"run"`
	Reused bool         `json:"reused"`
}

// openSession makes sure the session records the target, reusing its recording when it is
// still current, and says so on stderr when it had to record. The calls with (on that session)
// go in the same message, after session.create, which the daemon runs first (and does not run
// them when it fails); errs are their errors.
func openSession(ctx context.Context, env *Env, rpc *rpcClient, id string, inv Invocation, with ...rpcCall) (*created, []error, error) {
	params := map[string]any{"id": id, "command": inv.Target, "dir": env.Dir, "reuse": true}
	if inv.Timeout > 0 {
		params["timeout_ms"] = inv.Timeout.Milliseconds()
	}
	if inv.NoSeed {
		params["no_seed"] = true
	}
	if inv.Values != "" {
		params["values"] = inv.Values
	}
	if len(inv.Include) > 0 {
		params["include"] = inv.Include
	}
	if env.Python != "" {
		params["python"] = env.Python
	}
	if focus := focusOf(inv.Calls); len(focus) > 0 {
		params["focus"] = focus
	}
	var res created
	errs, err := rpc.calls(ctx, append([]rpcCall{{Method: "session.create", Params: params, Out: &res}}, with...)...)
	if err == nil {
		err = errs[0]
	}
	if err != nil {
		return nil, nil, err
	}
	if !res.Reused {
		tests := ""
		if c := res.Run.Tests; c != nil {
			tests = "; tests: " + c.String()
		}
		fmt.Fprintf(env.Stderr, "adi: recorded `%s`: %d call(s) in %d ms, exit status %d%s (session %s)\n",
			inv.Target, res.Run.Frames, res.Run.ElapsedMS, res.Run.ExitCode, tests, id)
		if res.Run.TimedOut && res.Run.TimeLimitMS > 0 {
			fmt.Fprintf(env.Stderr, "adi: %s\n", faces.CLI.Render(adi.TimeLimitNote(res.Run.TimeLimitMS, res.Run.Frames)))
		}
	}
	return &res, errs[1:], nil
}

// focusOf lists the frames whose FLTs the calls show, for session.create's focus: a first run
// that records them answers the command without a second run. A conditional breakpoint's first
// hit is not known before the run, so it names none.
func focusOf(calls []Call) []string {
	var refs []string
	add := func(v any) {
		if s, ok := v.(string); ok && s != "" {
			refs = append(refs, s)
		}
	}
	for _, c := range calls {
		switch c.Method {
		case "adi.break":
			if _, cond := c.Params["cond"]; !cond {
				add(c.Params["func"])
			}
		case "adi.step_into", "adi.flt":
			add(c.Params["frame"])
		case "adi.diff":
			add(c.Params["a"])
			add(c.Params["b"])
		}
	}
	return refs
}

// answer is what the CLI reads of an ADI method's answer (bridge.Answer) to print its text.
type answer struct {
	Text         string `json:"text"`
	TargetFailed bool   `json:"target_failed"`
}

// flush prints the answers: the JSON results with --json, else their texts.
func flush(env *Env, inv Invocation, results []json.RawMessage, texts []string) {
	if inv.JSON {
		var v any = results
		if len(results) == 1 {
			v = results[0]
		}
		if len(results) == 0 {
			return
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return
	}
	for i, text := range texts {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		printText(env, text)
	}
}

// fail prints an error as one line beginning with "adi: " and returns the exit status of its
// kind (errkind's table: ExitFailed, or ExitInterrupted for Ctrl-C).
func fail(env *Env, err error) int {
	msg, kind := err.Error(), errkind.Of(err)
	var re *wire.Error
	if errors.As(err, &re) {
		msg, kind = re.Message, errkind.ByRPC(re.Code)
	}
	if errors.Is(err, ErrInterrupted) {
		kind = errkind.Cancelled
	}
	fmt.Fprintln(env.Stderr, errkind.Prefixed(msg))
	return kind.Exit()
}

// Sessions lists the daemon's sessions.
func Sessions(ctx context.Context, env *Env, asJSON bool) int {
	rpc, err := daemonRPC(ctx, env)
	if err != nil {
		return fail(env, err)
	}
	defer rpc.close()
	var raw json.RawMessage
	if err := rpc.call(ctx, "session.list", nil, &raw); err != nil {
		return fail(env, err)
	}
	if asJSON {
		fmt.Fprintf(env.Stdout, "%s\n", raw)
		return ExitOK
	}
	var list struct {
		Sessions []struct {
			ID       string `json:"id"`
			Command  string `json:"command"`
			Dir      string `json:"dir"`
			Frames   int    `json:"frames"`
			Current  string `json:"current"`
			ExitCode int    `json:"exit_code"`
			Closed   bool   `json:"closed"`
			Live     *struct {
				State string `json:"state"`
			} `json:"live"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return fail(env, err)
	}
	if len(list.Sessions) == 0 {
		fmt.Fprintln(env.Stdout, "No sessions. The first command on a target records it, e.g. adi call-tree \"python t.py\"")
		return ExitOK
	}
	fmt.Fprintf(env.Stdout, "Sessions (%d):\n", len(list.Sessions))
	for _, s := range list.Sessions {
		state := "open"
		if s.Closed {
			state = "on disk"
		}
		// how the program ended: a live session's state (its program runs under the debugger, or
		// ran there: no exit status of a run adi made); a run that has none does not say "exit -1"
		ended := fmt.Sprintf(", exit %d", s.ExitCode)
		switch {
		case s.Live != nil:
			state += ", live: " + s.Live.State
			ended = ""
		case s.ExitCode < 0:
			ended = ", no exit status"
		}
		cur := ""
		if s.Current != "" {
			cur = ", at " + s.Current
		}
		fmt.Fprintf(env.Stdout, "  %s  %s  (%s; %d calls%s%s) in %s\n", s.ID, s.Command, state, s.Frames, ended, cur, s.Dir)
	}
	return ExitOK
}

// Stop stops the daemon of the state directory.
func Stop(ctx context.Context, env *Env) int {
	pid, err := stopDaemon(ctx, env)
	if err != nil {
		return fail(env, err)
	}
	if pid == 0 {
		fmt.Fprintf(env.Stdout, "adi: no daemon is running for %s\n", env.StateDir)
		return ExitOK
	}
	fmt.Fprintf(env.Stdout, "adi: stopped the daemon (pid %d); sessions stay on disk in %s\n", pid, env.StateDir)
	return ExitOK
}
