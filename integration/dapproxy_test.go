package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	godap "github.com/google/go-dap"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/dapproxy"
	"github.com/adi-bridge/adi/daptest"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/probe"
	"github.com/adi-bridge/adi/server"
)

// These tests run `adi dap`'s proxy (package dapproxy) in-process in front of the real debugpy,
// with a plain DAP client playing the editor. The VS Code client itself runs in
// TestVSCodeDebugClient (integration/vscode).

// vscodeFixture returns a program of the VS Code suite's fixtures.
func vscodeFixture(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("vscode", "fixtures", name))
	require.NoError(t, err)
	return p
}

// wiretap keeps every message the proxy saw, per connection and stream.
type wiretap struct {
	mu   sync.Mutex
	msgs map[int64]map[dapproxy.Direction][][]byte
}

func (w *wiretap) record(conn int64, dir dapproxy.Direction, raw []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.msgs[conn] == nil {
		w.msgs[conn] = map[dapproxy.Direction][][]byte{}
	}
	w.msgs[conn][dir] = append(w.msgs[conn][dir], append([]byte(nil), raw...))
}

func (w *wiretap) stream(conn int64, dir dapproxy.Direction) [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([][]byte(nil), w.msgs[conn][dir]...)
}

// proxy is an in-process `adi dap --listen 127.0.0.1:0` with its sessions in a temporary
// state directory.
type proxy struct {
	addr string
	srv  *dapproxy.Server
	mgr  *bridge.Manager
	tap  *wiretap
	stop func()
}

// proxyOptions vary the proxy of a test.
type proxyOptions struct {
	record      bool          // record launches into sessions
	bodyTimeout time.Duration // 0: the default
	rerun       time.Duration // limit of the re-runs that record FLTs; 0: 60s
}

func startProxy(t *testing.T, o proxyOptions) *proxy {
	t.Helper()
	py := needPython(t)
	p := &proxy{tap: &wiretap{msgs: map[int64]map[dapproxy.Direction][][]byte{}}}
	if o.rerun == 0 {
		o.rerun = 60 * time.Second
	}
	cfg := dapproxy.Config{Python: py, Log: testLogger(t), BodyTimeout: o.bodyTimeout, Wiretap: p.tap.record,
		Session: bridge.Options{Timeout: o.rerun}}
	if o.record {
		mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir(), Log: testLogger(t)})
		require.NoError(t, err)
		p.mgr, cfg.Manager = mgr, mgr
	}
	srv, err := dapproxy.NewServer(cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ctx, ln)
	}()
	p.addr, p.srv = ln.Addr().String(), srv
	var once sync.Once
	p.stop = func() {
		once.Do(func() {
			cancel()
			<-served
			srv.Close(90 * time.Second)
			if p.mgr != nil {
				p.mgr.Shutdown()
			}
		})
	}
	t.Cleanup(p.stop)
	return p
}

// dialEditor connects a DAP client playing the editor (daptest.Client) to addr.
func dialEditor(t testing.TB, addr string) *daptest.Client {
	t.Helper()
	return daptest.Dial(t, addr)
}

func body[T any](t testing.TB, m *dap.Message) T {
	t.Helper()
	var v T
	require.NoError(t, m.Body(&v))
	return v
}

func appLaunch(t testing.TB, program string) map[string]any {
	return map[string]any{
		"name": "adi test", "type": "debugpy", "request": "launch", "program": program,
		"cwd": filepath.Dir(program), "console": "internalConsole", "justMyCode": true, "subProcess": false,
		"futureField": map[string]any{"kept": []any{1, "two"}},
	}
}

// TestDAPProxyStreamMatchesDebugpy records a whole debug session through the proxy and checks,
// message by message, that the editor received the bytes debugpy sent, and debugpy the bytes the
// editor sent, except for the documented rewrites: seq renumbered on both sides, request_seq
// mapped back, the launch rewritten to run the probe, the process event's name, the probe's
// module events, and the proxy's own requests and their responses (never forwarded). It then
// checks that the session recorded the FLTs of the frames the editor stopped in.
func TestDAPProxyStreamMatchesDebugpy(t *testing.T) {
	p := startProxy(t, proxyOptions{record: true})
	e := dialEditor(t, p.addr)
	prog := vscodeFixture(t, "app.py")

	e.Call("initialize", map[string]any{"clientID": "vscode", "adapterID": "debugpy", "linesStartAt1": true,
		"columnsStartAt1": true, "pathFormat": "path", "supportsRunInTerminalRequest": true})
	launch := e.Send("launch", appLaunch(t, prog))
	e.Event("initialized")
	bps := e.Call("setBreakpoints", map[string]any{"source": map[string]any{"path": prog}, "breakpoints": []any{map[string]any{"line": 5}}})
	assert.Contains(t, string(bps.Raw), `"verified": true`)
	e.Call("setExceptionBreakpoints", map[string]any{"filters": []string{}})
	e.Call("configurationDone", nil)
	require.True(t, e.Response(launch).Success)

	stopped := body[godap.StoppedEventBody](t, e.Event("stopped"))
	e.Call("threads", nil)
	frames := body[godap.StackTraceResponseBody](t, e.Call("stackTrace", map[string]any{"threadId": stopped.ThreadId}))
	require.Equal(t, "add", frames.StackFrames[0].Name)
	scopes := body[godap.ScopesResponseBody](t, e.Call("scopes", map[string]any{"frameId": frames.StackFrames[0].Id}))
	e.Call("variables", map[string]any{"variablesReference": scopes.Scopes[0].VariablesReference})
	ev := body[godap.EvaluateResponseBody](t, e.Call("evaluate", map[string]any{"expression": "a + b * 10", "frameId": frames.StackFrames[0].Id, "context": "repl"}))
	assert.Equal(t, "10", ev.Result)
	flt := e.Call("adi/flt", nil) // answered by the proxy, never sent to debugpy
	assert.Contains(t, string(flt.Raw), `Frame: app:add#1`)
	e.Call("next", map[string]any{"threadId": stopped.ThreadId})
	e.Event("stopped")
	e.Call("continue", map[string]any{"threadId": stopped.ThreadId})
	e.Event("stopped")
	e.Call("setBreakpoints", map[string]any{"source": map[string]any{"path": prog}, "breakpoints": []any{}})
	e.Call("continue", map[string]any{"threadId": stopped.ThreadId})
	assert.Equal(t, 3, body[godap.ExitedEventBody](t, e.Event("exited")).ExitCode)
	e.Event("terminated")
	e.Call("disconnect", nil)
	require.NoError(t, ignoreEOF(e.WaitClosed(20*time.Second)))

	fromEditor, toAdapter := p.tap.stream(1, dapproxy.FromEditor), p.tap.stream(1, dapproxy.ToAdapter)
	fromAdapter, toEditor := p.tap.stream(1, dapproxy.FromAdapter), p.tap.stream(1, dapproxy.ToEditor)
	require.NotEmpty(t, fromAdapter)

	// What the editor read is exactly what the proxy wrote, and each peer's seq counts 1, 2, 3, ….
	received := splitMessages(t, e.Received())
	assert.Equal(t, strs(toEditor), strs(received))
	assertGapFree(t, "proxy->editor", toEditor)
	assertGapFree(t, "proxy->adapter", toAdapter)

	// Editor → debugpy: every editor request but adi/ reaches debugpy, in order, with only its
	// seq changed (the launch also rewritten); the rest of what debugpy got are the proxy's own
	// requests, which ask the probe where a stop is.
	probeDir, err := probe.Install()
	require.NoError(t, err)
	toEditorSeq := map[int]int{} // adapter seq of a forwarded request → the editor's seq
	own := map[int]bool{}        // adapter seqs of the proxy's own requests
	adiSeqs := map[int]bool{}
	k := 0
	var forwarded [][]byte
	for _, raw := range fromEditor {
		m := decode(t, raw)
		if strings.HasPrefix(m.Command, "adi/") {
			adiSeqs[m.Seq] = true
			continue
		}
		forwarded = append(forwarded, raw)
	}
	for _, raw := range toAdapter {
		m := decode(t, raw)
		if k < len(forwarded) {
			want := decode(t, forwarded[k])
			if want.Command == m.Command && want.Command == "launch" {
				assertLaunchRewrite(t, forwarded[k], raw, probeDir)
				toEditorSeq[m.Seq] = want.Seq
				k++
				continue
			}
			if string(splice(t, forwarded[k], "seq", m.Seq)) == string(raw) {
				toEditorSeq[m.Seq] = want.Seq
				k++
				continue
			}
		}
		own[m.Seq] = true
		switch m.Command {
		case "stackTrace", "disconnect":
		case "evaluate":
			assert.Contains(t, string(raw), "adi_probe.editor", "the proxy evaluates only the probe's helpers")
		default:
			t.Errorf("the proxy sent debugpy a request of its own that it should not: %s", raw)
		}
	}
	assert.Equal(t, len(forwarded), k, "every editor request reached debugpy, in order")
	assert.NotEmpty(t, own, "the proxy asked the probe where the stops were")

	// Debugpy → editor: every message reaches the editor in order, byte for byte but for the
	// documented rewrites; the responses to the proxy's own requests and the probe's module
	// events do not.
	j := 0
	nextToEditor := func() []byte {
		for j < len(toEditor) {
			m := decode(t, toEditor[j])
			j++
			if m.Type == "response" && adiSeqs[m.RequestSeq] {
				continue // the proxy's answer to an adi/ request
			}
			return toEditor[j-1]
		}
		t.Fatalf("the editor got fewer messages than debugpy sent")
		return nil
	}
	dropped := 0
	for _, raw := range fromAdapter {
		m := decode(t, raw)
		if m.Type == "response" && own[m.RequestSeq] {
			dropped++
			continue
		}
		if m.Type == "event" && m.Event == "module" && strings.Contains(string(raw), probeDir) {
			dropped++
			continue
		}
		got := nextToEditor()
		gm := decode(t, got)
		want := splice(t, raw, "seq", gm.Seq)
		if m.Type == "response" {
			want = splice(t, want, "request_seq", toEditorSeq[m.RequestSeq])
		}
		if m.Type == "event" && m.Event == "process" {
			want = bytes.Replace(want, jsonString(probe.Script(probeDir)), jsonString(prog), 1)
		}
		assert.Equal(t, string(want), string(got), "debugpy sent %s", raw)
	}
	assert.Positive(t, dropped)

	// The session: T complete, the three stops (add#1 at the breakpoint, add#1 after the step,
	// add#2) recorded as two FLTs by one re-run after the run ended.
	p.stop()
	infos := p.mgr.List()
	require.Len(t, infos, 1)
	s, err := p.mgr.Get(context.Background(), infos[0].ID)
	require.NoError(t, err)
	assert.Equal(t, "python "+prog, s.Opts.Command)
	assert.Equal(t, 5, s.Trace().Len())
	assert.Equal(t, 3, s.Base().ExitCode)
	assert.Equal(t, "result 9\n", string(s.Base().Stdout))
	assert.Equal(t, 2, s.Info().FLTs, "the FLTs of add#1 and add#2")
	runs, _ := os.ReadDir(filepath.Join(s.Dir, "runs"))
	assert.Len(t, runs, 3, "the editor's run, adi/flt's re-run for add#1, the re-run for add#2")
}

// assertLaunchRewrite checks that the launch debugpy got runs the probe and keeps every other
// member the editor sent as its bytes.
func assertLaunchRewrite(t *testing.T, sent, got []byte, probeDir string) {
	t.Helper()
	var a, b struct {
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	require.NoError(t, json.Unmarshal(sent, &a))
	require.NoError(t, json.Unmarshal(got, &b))
	for k, v := range a.Arguments {
		switch k {
		case "program", "args", "rules", "env":
		default:
			assert.Equal(t, string(v), string(b.Arguments[k]), "launch member %s", k)
		}
	}
	assert.Equal(t, string(jsonString(probe.Script(probeDir))), string(b.Arguments["program"]))
	var args []string
	require.NoError(t, json.Unmarshal(b.Arguments["args"], &args))
	require.Len(t, args, 1)
	assert.True(t, strings.HasSuffix(args[0], filepath.Join("runs", "0000", "config.json")), args[0])
	assert.JSONEq(t, fmt.Sprintf(`[{"path": %q, "include": false}]`, filepath.Join(probeDir, "**")), string(b.Arguments["rules"]))
	var env map[string]string
	require.NoError(t, json.Unmarshal(b.Arguments["env"], &env))
	assert.Equal(t, "0", env["PYTHONHASHSEED"])
	assert.NotEmpty(t, env[dap.RunTagVar])
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

func decode(t testing.TB, raw []byte) *dap.Message {
	t.Helper()
	m, err := dap.DecodeEnvelope(raw)
	require.NoError(t, err, string(raw))
	return m
}

func splitMessages(t testing.TB, b []byte) [][]byte {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(b))
	var out [][]byte
	for {
		m, err := godap.ReadBaseMessage(r)
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, m)
	}
}

func strs(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

func assertGapFree(t *testing.T, stream string, msgs [][]byte) {
	t.Helper()
	for i, raw := range msgs {
		if m := decode(t, raw); m.Seq != i+1 {
			t.Errorf("%s: message %d has seq %d: %s", stream, i+1, m.Seq, raw)
			return
		}
	}
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// splice sets the top-level integer member key of raw, keeping every other byte: what the
// proxy's renumbering may change, done independently of its own code.
func splice(t testing.TB, raw []byte, key string, n int) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		before := dec.InputOffset()
		var v json.RawMessage
		require.NoError(t, dec.Decode(&v))
		after := dec.InputOffset()
		if k != key {
			continue
		}
		start := before + int64(bytes.Index(raw[before:after], v))
		out := append([]byte(nil), raw[:start]...)
		out = strconv.AppendInt(out, int64(n), 10)
		return append(out, raw[start+int64(len(v)):]...)
	}
	t.Fatalf("no %q in %s", key, raw)
	return nil
}

// TestDAPProxyMalformedInput sends the proxy what no editor should: a request it can identify
// gets an error response and the connection goes on; anything else gets one output event saying
// what was wrong, and the connection ends. Nothing hangs.
func TestDAPProxyMalformedInput(t *testing.T) {
	p := startProxy(t, proxyOptions{bodyTimeout: 300 * time.Millisecond})
	for _, tc := range []struct{ name, in, output string }{
		{"Content-Length is not a number", "Content-Length: abc\r\n\r\n{}",
			"adi: malformed DAP message: Content-Length \"abc\" is not a byte count; closing the connection\n"},
		{"Content-Length over the limit", "Content-Length: 99999999999\r\n\r\n{}",
			"adi: malformed DAP message: Content-Length 99999999999 is over the limit of 4194304 bytes; closing the connection\n"},
		{"no CRLF", "Content-Length: 2\n\n{}",
			"adi: malformed DAP message: header line \"Content-Length: 2\" does not end in CRLF; closing the connection\n"},
		{"Content-Length longer than the message", "Content-Length: 80\r\n\r\n{\"seq\":1,\"type\":\"request\",\"command\":\"threads\"}",
			"adi: malformed DAP message: the message did not arrive completely within 300ms (is its Content-Length right?); closing the connection\n"},
		{"Content-Length shorter than the message", "Content-Length: 20\r\n\r\n{\"seq\":1,\"type\":\"request\",\"command\":\"threads\"}",
			"adi: malformed DAP message: unexpected end of JSON input; closing the connection\n"},
		{"not JSON", "Content-Length: 9\r\n\r\n{seq: 1,}",
			"adi: malformed DAP message: invalid character 's' looking for beginning of object key string; closing the connection\n"},
		{"a response to nothing without its command", "Content-Length: 36\r\n\r\n{\"seq\":1,\"type\":\"response\",\"x\":true}",
			"adi: malformed DAP message: response without a command; closing the connection\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := dialEditor(t, p.addr)
			start := time.Now()
			e.SendRaw([]byte(tc.in))
			out := body[godap.OutputEventBody](t, e.Expect("adi's output", func(m *dap.Message) bool {
				return m.Type == "event" && m.Event == "output" && strings.Contains(string(m.Raw), `"console"`)
			}))
			assert.Equal(t, tc.output, out.Output)
			require.NoError(t, ignoreEOF(e.WaitClosed(10*time.Second)))
			assert.Less(t, time.Since(start), 10*time.Second)
		})
	}
	t.Run("a request without a command", func(t *testing.T) {
		e := dialEditor(t, p.addr)
		e.SendRaw([]byte("Content-Length: 26\r\n\r\n{\"seq\":1,\"type\":\"request\"}"))
		r := e.Response(1)
		assert.False(t, r.Success)
		assert.Equal(t, "adi: the request is not a valid DAP request (request without a command); fix the client", r.ErrMessage)
		assert.JSONEq(t, `{"id": 3001, "format": "adi: the request is not a valid DAP request (request without a command); fix the client", "showUser": true}`,
			string(mustGet(t, r.Raw, "body", "error")))
		// the connection goes on
		e.SetSeq(1)
		caps := e.Call("initialize", map[string]any{"adapterID": "debugpy"})
		assert.Contains(t, string(caps.Raw), "supportsConfigurationDoneRequest")
	})
}

func mustGet(t testing.TB, raw []byte, path ...string) json.RawMessage {
	t.Helper()
	cur := json.RawMessage(raw)
	for _, k := range path {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(cur, &m))
		cur = m[k]
	}
	return cur
}

// launchSleeper starts the sleeping fixture through the proxy and returns its process id once
// it runs.
func launchSleeper(t *testing.T, e *daptest.Client) int {
	t.Helper()
	e.Call("initialize", map[string]any{"adapterID": "debugpy"})
	launch := e.Send("launch", appLaunch(t, vscodeFixture(t, "sleeper.py")))
	e.Event("initialized")
	e.Call("configurationDone", nil)
	require.True(t, e.Response(launch).Success)
	pid := body[godap.ProcessEventBody](t, e.Event("process")).SystemProcessId
	require.Positive(t, pid)
	require.True(t, alive(pid))
	return pid
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}

func waitGone(t *testing.T, pid int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running %v after the editor left", pid, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A launch in the editor's terminal: debugpy asks the editor to start its launcher with a
// runInTerminal reverse request, which the proxy numbers in the editor's sequence and whose
// response it maps back to debugpy's. The test plays the editor's terminal.
func TestDAPProxyRunInTerminal(t *testing.T) {
	p := startProxy(t, proxyOptions{record: true})
	e := dialEditor(t, p.addr)
	prog := vscodeFixture(t, "app.py")
	e.Call("initialize", map[string]any{"adapterID": "debugpy", "supportsRunInTerminalRequest": true})
	args := appLaunch(t, prog)
	args["console"] = "integratedTerminal"
	launch := e.Send("launch", args)

	rit := e.Expect("runInTerminal", func(m *dap.Message) bool { return m.Type == "request" && m.Command == "runInTerminal" })
	var ra struct {
		Cwd  string             `json:"cwd"`
		Args []string           `json:"args"`
		Env  map[string]*string `json:"env"`
	}
	require.NoError(t, rit.Body(&ra))
	term := exec.Command(ra.Args[0], ra.Args[1:]...)
	term.Dir = ra.Cwd
	term.Env = os.Environ()
	for k, v := range ra.Env {
		if v != nil {
			term.Env = append(term.Env, k+"="+*v)
		}
	}
	var termOut bytes.Buffer
	term.Stdout = &termOut
	require.NoError(t, term.Start())
	t.Cleanup(func() { _ = term.Process.Kill(); _ = term.Wait() })
	e.Respond(rit, map[string]any{"processId": term.Process.Pid})

	e.Event("initialized")
	e.Call("setBreakpoints", map[string]any{"source": map[string]any{"path": prog}, "breakpoints": []any{map[string]any{"line": 5}}})
	e.Call("configurationDone", nil)
	require.True(t, e.Response(launch).Success, "debugpy got the terminal's answer under its own number")
	stopped := body[godap.StoppedEventBody](t, e.Event("stopped"))
	flt := e.Call("adi/flt", nil)
	assert.Contains(t, string(flt.Raw), "Frame: app:add#1")
	e.Call("setBreakpoints", map[string]any{"source": map[string]any{"path": prog}, "breakpoints": []any{}})
	e.Call("continue", map[string]any{"threadId": stopped.ThreadId})
	assert.Equal(t, 3, body[godap.ExitedEventBody](t, e.Event("exited")).ExitCode)
	e.Event("terminated")
	e.Call("disconnect", nil)
	_ = term.Wait()
	assert.Equal(t, "result 9\n", termOut.String(), "the program ran in the editor's terminal")
}

// The session's T follows the live run: at a stop it is current, and after the first stop the
// probe keeps it current while the program runs on.
func TestDAPProxyLiveTrace(t *testing.T) {
	p := startProxy(t, proxyOptions{record: true, rerun: 3 * time.Second})
	e := dialEditor(t, p.addr)
	prog := vscodeFixture(t, "ticker.py")
	e.Call("initialize", map[string]any{"adapterID": "debugpy"})
	launch := e.Send("launch", appLaunch(t, prog))
	e.Event("initialized")
	e.Call("setBreakpoints", map[string]any{"source": map[string]any{"path": prog}, "breakpoints": []any{map[string]any{"line": 9}}})
	e.Call("configurationDone", nil)
	require.True(t, e.Response(launch).Success)
	stopped := body[godap.StoppedEventBody](t, e.Event("stopped"))

	state := e.Call("adi/state", nil)
	assert.Contains(t, string(state.Raw), `"current":"ticker:main#1"`, "the frame the editor stopped in is under inspection")
	r := e.Response(e.Send("adi/listFrames", map[string]any{"func": "tick"}))
	assert.False(t, r.Success, "tick has not run yet")
	assert.Contains(t, r.ErrMessage, `no function "tick"`)

	e.Call("continue", map[string]any{"threadId": stopped.ThreadId})
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := e.Response(e.Send("adi/listFrames", map[string]any{"func": "tick"}))
		if r.Success && strings.Contains(string(r.Raw), "ticker:tick#4") {
			break
		}
		require.True(t, time.Now().Before(deadline), "T did not grow while the program ran: %s", r.Raw)
		time.Sleep(100 * time.Millisecond)
	}
	info := e.Call("adi/session", nil)
	assert.Contains(t, string(info.Raw), `"live":true`, "the program sleeps 20s after its calls")
	assert.Contains(t, string(info.Raw), `"frames":6`, "<module>, main and four ticks")
	e.Call("disconnect", map[string]any{"terminateDebuggee": true})
}

// An editor that goes away without disconnect gets DAP's default: a launched debuggee ends.
func TestDAPProxyEditorLeavesLaunch(t *testing.T) {
	p := startProxy(t, proxyOptions{record: true})
	e := dialEditor(t, p.addr)
	pid := launchSleeper(t, e)
	require.NoError(t, e.Close())
	waitGone(t, pid, 15*time.Second)
}

// A disconnect with terminateDebuggee false does to a launched debuggee through the proxy what it
// does with debugpy alone (debugpy 1.6 ends it all the same; the proxy must not decide otherwise).
func TestDAPProxyDisconnectKeepDebuggee(t *testing.T) {
	py := needPython(t)
	ctx := testContext(t, 60*time.Second)
	outcome := func(pid int) bool {
		time.Sleep(2 * time.Second)
		defer syscall.Kill(pid, syscall.SIGKILL)
		return alive(pid)
	}

	ad, err := dap.StartAdapter(ctx, dap.AdapterOptions{Python: py, Log: testLogger(t)})
	require.NoError(t, err)
	defer ad.Close()
	c := ad.Client
	_, err = c.Initialize(ctx)
	require.NoError(t, err)
	events := c.Subscribe("process")
	require.NoError(t, c.Launch(ctx, appLaunch(t, vscodeFixture(t, "sleeper.py")), nil))
	m, err := events.Next(ctx)
	require.NoError(t, err)
	direct := body[godap.ProcessEventBody](t, m).SystemProcessId
	require.NoError(t, c.Do(ctx, "disconnect", map[string]any{"terminateDebuggee": false}, nil))
	directAlive := outcome(direct)

	p := startProxy(t, proxyOptions{record: true})
	e := dialEditor(t, p.addr)
	pid := launchSleeper(t, e)
	e.Call("disconnect", map[string]any{"terminateDebuggee": false})
	require.NoError(t, ignoreEOF(e.WaitClosed(10*time.Second)))
	assert.Equal(t, directAlive, outcome(pid), "through the proxy as with debugpy alone")
}

// An editor that goes away without disconnect leaves an attached debuggee running.
func TestDAPProxyEditorLeavesAttach(t *testing.T) {
	py := needPython(t)
	p := startProxy(t, proxyOptions{record: true})
	port := freePort(t)
	code := fmt.Sprintf("import debugpy, time\ndebugpy.listen(('127.0.0.1', %d))\nprint('listening', flush=True)\ntime.sleep(120)\n", port)
	cmd := exec.Command(py.Path, "-c", code)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "listening\n", line)

	e := dialEditor(t, p.addr)
	e.Call("initialize", map[string]any{"adapterID": "debugpy"})
	attach := e.Send("attach", map[string]any{"name": "attach", "type": "debugpy", "request": "attach",
		"connect": map[string]any{"host": "127.0.0.1", "port": port}, "justMyCode": true})
	e.Event("initialized")
	e.Call("configurationDone", nil)
	require.True(t, e.Response(attach).Success)
	assert.Equal(t, cmd.Process.Pid, body[godap.ProcessEventBody](t, e.Event("process")).SystemProcessId)
	r := e.Response(e.Send("adi/state", nil))
	assert.False(t, r.Success)
	assert.Equal(t, "adi: this session attached to a running program, which adi does not record; launch the program through adi dap to record it", r.ErrMessage)

	require.NoError(t, e.Close())
	time.Sleep(3 * time.Second) // the proxy disconnects on the editor's behalf, then closes
	assert.True(t, alive(cmd.Process.Pid), "the attached program must keep running")
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// When debugpy dies mid-session, the editor hears it as the end of the session (exited and
// terminated), the requests debugpy never answered fail, and later ones are refused.
func TestDAPProxyAdapterDies(t *testing.T) {
	p := startProxy(t, proxyOptions{record: true})
	e := dialEditor(t, p.addr)
	pid := launchSleeper(t, e)
	adapter := adapterOf(t, pid)
	require.NoError(t, syscall.Kill(adapter, syscall.SIGKILL))

	out := body[godap.OutputEventBody](t, e.Expect("adi's output", func(m *dap.Message) bool {
		return m.Type == "event" && m.Event == "output" && strings.Contains(string(m.Raw), "adi: the debugpy adapter ended unexpectedly")
	}))
	assert.Equal(t, "console", out.Category)
	assert.Equal(t, 137, body[godap.ExitedEventBody](t, e.Event("exited")).ExitCode)
	e.Event("terminated")
	waitGone(t, pid, 15*time.Second)

	r := e.Response(e.Send("threads", nil))
	assert.False(t, r.Success)
	assert.Equal(t, "adi: the debugpy adapter has ended; restart the debug session", r.ErrMessage)
	d := e.Response(e.Send("disconnect", nil))
	assert.True(t, d.Success)
	require.NoError(t, ignoreEOF(e.WaitClosed(10*time.Second)))

	p.stop()
	infos := p.mgr.List()
	require.Len(t, infos, 1)
	assert.Equal(t, -1, infos[0].ExitCode, "the run was killed before the probe could say how it ended")
}

// adapterOf finds the debugpy adapter that launched the debuggee pid (its ancestor).
func adapterOf(t *testing.T, pid int) int {
	t.Helper()
	for cur := pid; cur > 1; {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cur))
		if bytes.Contains(cmdline, []byte("debugpy.adapter")) {
			return cur
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cur))
		require.NoError(t, err)
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		cur, _ = strconv.Atoi(f[1])
	}
	t.Fatalf("no debugpy adapter above process %d", pid)
	return 0
}

// TestExternalSession drives the bridge's hook for runs launched by someone else (what the proxy
// does with an editor's launch) with the probe started by the test itself.
func TestExternalSession(t *testing.T) {
	py := needPython(t)
	ctx := testContext(t, 120*time.Second)
	state := t.TempDir()
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: state, Log: testLogger(t)})
	require.NoError(t, err)
	defer mgr.Shutdown()
	var mu sync.Mutex
	var kinds []string
	defer mgr.Subscribe(func(ev bridge.Event) {
		mu.Lock()
		kinds = append(kinds, ev.Kind)
		mu.Unlock()
	})()

	dir := filepath.Dir(vscodeFixture(t, "app.py"))
	x, err := mgr.StartExternal(ctx, "ext1", bridge.Options{Command: "python app.py", Dir: dir, Python: py.Path})
	require.NoError(t, err)
	s := x.Session()
	got, err := mgr.Get(ctx, "ext1")
	require.NoError(t, err)
	require.Same(t, s, got, "the run is a session of the manager from the start")
	info := s.Info()
	assert.Equal(t, -1, info.ExitCode)
	assert.True(t, info.Partial)
	assert.Equal(t, 0, info.Frames)
	assert.Equal(t, filepath.Join(state, "sessions", "ext1", "runs", "0000", "config.json"), x.ConfigPath)

	cmd := exec.Command(py.Path, x.Script, x.ConfigPath)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONHASHSEED=0")
	out, err := cmd.Output()
	require.Error(t, err) // app.py exits with 3
	require.Equal(t, "result 9\n", string(out))

	require.NoError(t, x.Refresh())
	calls, err := os.Stat(filepath.Join(x.RunDir, probe.CallsFile))
	require.NoError(t, err)
	assert.Equal(t, calls.Size()-int64(len("adi-calls 1\n")), x.Decoded(), "the first refresh decodes every batch")
	require.NoError(t, x.Refresh())
	assert.Equal(t, calls.Size()-int64(len("adi-calls 1\n")), x.Decoded(), "a refresh decodes only what is new: here nothing")
	full, err := probe.Read(x.RunDir)
	require.NoError(t, err)
	// (a refreshed T is the running program's: partial and live, its unfinished frames running)
	full.Trace.Root, full.Trace.Partial, full.Trace.Live = s.Trace().Root, true, true
	assert.Equal(t, full.Trace, s.Trace(), "the refreshed T is the one a full read gives")
	j, err := s.Trace().Lookup(adi.FID{Func: "app:add", Index: 2})
	require.NoError(t, err)
	require.True(t, x.Stopped(j))
	assert.False(t, x.Stopped(99), "no frame 99")
	assert.Equal(t, "app:add#2", s.Info().Current)
	x.Output("stdout", out)
	require.NoError(t, x.Finish(-1))
	assert.Equal(t, 3, s.Base().ExitCode, "the probe's result gives the exit code")
	assert.False(t, s.Trace().Partial)
	assert.Equal(t, "result 9\n", string(s.Base().Stdout))
	require.NoError(t, x.Finish(0), "a second Finish changes nothing")
	assert.Equal(t, 3, s.Base().ExitCode)

	require.NoError(t, x.RecordStops(ctx))
	assert.Equal(t, 1, s.Info().FLTs)
	ans, err := s.Do(ctx, adi.FLTCmd{}, adi.TextOptions{})
	require.NoError(t, err)
	assert.Contains(t, ans.Text, "Frame: app:add#2")
	assert.Contains(t, ans.Text, "+ total = 3")
	mu.Lock()
	var order []string
	outputs := 0
	for _, k := range kinds {
		if k == "output" { // as many as the pipes delivered chunks
			outputs++
			continue
		}
		order = append(order, k)
	}
	assert.Equal(t, []string{"run_started", "trace_updated", "run_finished", "run_started", "run_finished", "flt_ready"}, order)
	assert.GreaterOrEqual(t, outputs, 2, "the editor run's output and the re-run's")
	mu.Unlock()

	// Another adi process sees the same session on disk, FLT included.
	other, err := bridge.NewManager(bridge.ManagerConfig{StateDir: state})
	require.NoError(t, err)
	defer other.Shutdown()
	again, err := other.Get(ctx, "ext1")
	require.NoError(t, err)
	assert.Equal(t, 3, again.Base().ExitCode)
	assert.Equal(t, 1, again.Info().FLTs)
	assert.Equal(t, "app:add#2", again.Info().Current)
}

// stdio is the editor's end of `adi dap` over stdio.
type stdio struct {
	io.Reader
	io.WriteCloser
}

// TestDAPStdio runs `adi dap` the way editors that start their adapter do, over its stdio: a
// launch is recorded, adi/ requests are answered, a child process's session comes back through
// adi's loopback port, and adi exits when the editor disconnects.
func TestDAPStdio(t *testing.T) {
	py := needPython(t)
	bin := buildADI(t)
	cmd := exec.Command(bin, "dap", "--python", py.Path)
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+t.TempDir())
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	e := daptest.NewClient(t, stdio{out, in})

	parent, child := vscodeFixture(t, "parent.py"), vscodeFixture(t, "child.py")
	e.Call("initialize", map[string]any{"adapterID": "debugpy"})
	args := appLaunch(t, parent)
	args["subProcess"] = true
	launch := e.Send("launch", args)
	e.Event("initialized")
	e.Call("setBreakpoints", map[string]any{"source": map[string]any{"path": parent}, "breakpoints": []any{map[string]any{"line": 8}}})
	e.Call("configurationDone", nil)
	require.True(t, e.Response(launch).Success)
	// A stop in the parent, and on: from its first stop on, the probe keeps T on disk current.
	e.Call("continue", map[string]any{"threadId": body[godap.StoppedEventBody](t, e.Event("stopped")).ThreadId})

	var attach map[string]any
	require.NoError(t, e.Event("debugpyAttach").Body(&attach))
	connect := attach["connect"].(map[string]any)
	assert.Equal(t, "127.0.0.1", connect["host"])
	c := dialEditor(t, net.JoinHostPort("127.0.0.1", fmt.Sprint(connect["port"])))
	c.Call("initialize", map[string]any{"adapterID": "debugpy"})
	attached := c.Send("attach", attach)
	c.Event("initialized")
	c.Call("setBreakpoints", map[string]any{"source": map[string]any{"path": child}, "breakpoints": []any{map[string]any{"line": 5}}})
	c.Call("configurationDone", nil)
	require.True(t, c.Response(attached).Success)
	stopped := body[godap.StoppedEventBody](t, c.Event("stopped"))
	frames := body[godap.StackTraceResponseBody](t, c.Call("stackTrace", map[string]any{"threadId": stopped.ThreadId}))
	assert.Equal(t, "square", frames.StackFrames[0].Name)
	// adi/ requests on the child's session answer about the parent's recorded run.
	tree := c.Call("adi/callTree", map[string]any{"frame": "run_child#1"})
	assert.Contains(t, string(tree.Raw), "parent:run_child#1(n=7)")
	c.Call("continue", map[string]any{"threadId": stopped.ThreadId})
	c.Event("terminated")

	assert.Equal(t, 0, body[godap.ExitedEventBody](t, e.Event("exited")).ExitCode)
	e.Event("terminated")
	e.Call("disconnect", nil)
	select {
	case err := <-exited:
		require.NoError(t, err, "adi dap over stdio must exit cleanly when the editor disconnects: %s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("adi dap did not exit after the editor disconnected: %s", stderr.String())
	}
	assert.Contains(t, stderr.String(), "adi dap: recording the editor's run as session ")
}

// TestVSCodeDebugClient runs the VS Code DebugClient suite (integration/vscode) twice: against
// debugpy's own adapter and through `adi dap --listen`. Both must pass, the same tests, and the
// sessions the bridge recorded must hold the FLTs of every frame the editor stopped in.
func TestVSCodeDebugClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: the VS Code DebugClient suite needs Node.js 20; run scripts/deps.sh")
	}
	dir, err := filepath.Abs("vscode")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@vscode", "debugadapter-testsupport")); err != nil {
		t.Fatalf("the suite's npm packages are not installed: run scripts/deps.sh")
	}
	py := needPython(t)
	bin := buildADI(t)
	state := t.TempDir()
	results := map[string]map[string]string{}
	for _, mode := range []string{"debugpy", "bridge"} {
		cmd := exec.Command(node, "--test", "--test-concurrency=1", "--test-reporter=tap", "test/debug.test.js")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "DAP_TARGET="+mode, "ADI_BIN="+bin, "ADI_PYTHON="+py.Path, "ADI_STATE_DIR="+state)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		results[mode] = tapResults(out.String())
		if err != nil {
			t.Fatalf("the DebugClient suite failed against %s: %v\n%s", mode, err, out.String())
		}
		t.Logf("%s: %v", mode, results[mode])
	}
	require.NotEmpty(t, results["debugpy"])
	for name, got := range results["debugpy"] {
		if got == "skip" {
			assert.Equal(t, "pass", results["bridge"][name], "the adi/ test %q must pass through the bridge", name)
			continue
		}
		assert.Equal(t, "pass", got, name)
		assert.Equal(t, got, results["bridge"][name], "test %q must pass through the bridge exactly as against debugpy", name)
	}
	assert.Len(t, results["bridge"], len(results["debugpy"]))

	// The sessions the bridge recorded: each launch of app.py stopped in add#1 and add#2, and
	// their FLTs are there for every face (the viewer reads the same sessions).
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: state})
	require.NoError(t, err)
	defer mgr.Shutdown()
	apps := 0
	for _, info := range mgr.List() {
		if !strings.HasSuffix(info.Command, "app.py") {
			continue
		}
		apps++
		s, err := mgr.Get(context.Background(), info.ID)
		require.NoError(t, err)
		assert.Equal(t, 2, s.Info().FLTs, "session %s holds the FLTs of add#1 and add#2", info.ID)
		ans, err := s.Do(context.Background(), adi.FLTCmd{Frame: &adi.Ref{Name: "add", Index: 2}}, adi.TextOptions{})
		require.NoError(t, err)
		assert.Contains(t, ans.Text, "+ total = 3")
	}
	assert.Equal(t, 2, apps, "the two app.py sessions of the suite")
}

// tapResults reads node's TAP output: test name → pass, fail or skip.
func tapResults(out string) map[string]string {
	res := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		status := ""
		switch {
		case strings.HasPrefix(line, "ok "):
			status = "pass"
		case strings.HasPrefix(line, "not ok "):
			status = "fail"
		default:
			continue
		}
		_, rest, _ := strings.Cut(line, " - ")
		if name, _, found := strings.Cut(rest, " # SKIP"); found {
			rest, status = name, "skip"
		}
		if strings.HasPrefix(rest, "VS Code debug sessions through") {
			continue // the suite itself
		}
		res[rest] = status
	}
	return res
}

// buildADI returns the thin adi binary (adiBinary builds it with adi-server beside it).
func buildADI(t testing.TB) string {
	t.Helper()
	return adiBinary(t)
}

// BenchmarkDAPProxyRoundTrip measures one DAP request to the debuggee and back (threads, which
// debugpy's adapter forwards to pydevd): directly through debugpy's adapter, and through the
// proxy in front of it. The difference is what the proxy adds per forwarded request.
func BenchmarkDAPProxyRoundTrip(b *testing.B) {
	py := needPython(b)
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		pinger, err := dap.StartPinger(ctx, py, false)
		require.NoError(b, err)
		defer pinger.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			require.NoError(b, pinger.Ping(ctx))
		}
	})
	b.Run("proxy", func(b *testing.B) {
		srv, err := dapproxy.NewServer(dapproxy.Config{Python: py})
		require.NoError(b, err)
		defer srv.Close(time.Second)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(b, err)
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() { _ = srv.Serve(sctx, ln) }()
		conn, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(b, err)
		c := dap.NewClient(dap.NewConn(conn, conn, conn), nil)
		defer c.Close()
		_, err = c.Initialize(ctx)
		require.NoError(b, err)
		require.NoError(b, c.Launch(ctx, map[string]any{
			"name": "adi-ping", "type": "python", "request": "launch",
			"code": "import time; time.sleep(600)", "console": "internalConsole", "justMyCode": true, "subProcess": false,
		}, nil))
		for i := 0; i < 3; i++ {
			_, err := c.Threads(ctx)
			require.NoError(b, err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			_, err := c.Threads(ctx)
			require.NoError(b, err)
		}
	})
}

// Every adi/ request through the proxy answers as the server's method does: the same text and
// result (the response body is {text, result} of the method's answer), and for a refused one the
// method's message (with "adi: " before it, as the proxy prints every message). adi/exec takes
// then_continue, and an unknown argument is refused with the server's message.
func TestDAPProxyADIRequestsAnswerAsTheMethods(t *testing.T) {
	p := startProxy(t, proxyOptions{record: true})
	e := dialEditor(t, p.addr)
	prog := vscodeFixture(t, "app.py")
	e.Call("initialize", map[string]any{"adapterID": "debugpy"})
	launch := e.Send("launch", appLaunch(t, prog))
	e.Event("initialized")
	e.Call("configurationDone", nil)
	require.True(t, e.Response(launch).Success)
	e.Event("exited")
	e.Event("terminated")
	var sess struct {
		Session struct {
			ID string `json:"id"`
		} `json:"session"`
	}
	require.NoError(t, e.Call("adi/session", nil).Body(&sess))
	info := sess.Session
	require.NotEmpty(t, info.ID)
	h := server.NewHandler(server.HandlerConfig{Manager: p.mgr})
	defer h.Close()

	type req struct {
		command, method string
		args            map[string]any
	}
	viaProxy := func(r req) (string, json.RawMessage, string) {
		m := e.Response(e.Send(r.command, r.args))
		if !m.Success {
			return "", nil, m.ErrMessage
		}
		var b struct {
			Text   string          `json:"text"`
			Result json.RawMessage `json:"result"`
		}
		require.NoError(t, m.Body(&b), r.command)
		return b.Text, b.Result, ""
	}
	viaServer := func(r req) (string, json.RawMessage, string) {
		params := map[string]any{"session": info.ID}
		for k, v := range r.args {
			params[k] = v
		}
		res, rerr := h.CallJSON(context.Background(), faces.WebSocket.ForMethod(r.method), r.method, params)
		if rerr != nil {
			return "", nil, "adi: " + rerr.Message
		}
		var b struct {
			Text   string          `json:"text"`
			Result json.RawMessage `json:"result"`
		}
		require.NoError(t, json.Unmarshal(res, &b), r.method)
		return b.Text, b.Result, ""
	}
	clear := req{"adi/clear", "adi.clear", nil}
	breakAdd := req{"adi/break", "adi.break", map[string]any{"func": "add"}}
	toMain := req{"adi/stepInto", "adi.step_into", map[string]any{"frame": "main#1"}}
	for _, tc := range []struct {
		setup []req
		r     req
	}{
		{nil, req{"adi/state", "adi.state", nil}},
		{nil, req{"adi/list", "adi.list", nil}},
		{nil, req{"adi/flt", "adi.flt", map[string]any{"frame": "add#2"}}},
		{nil, req{"adi/callTree", "adi.call_tree", nil}},
		{nil, req{"adi/call-tree", "adi.call_tree", map[string]any{"frame": "main#1", "depth": 1}}},
		{nil, req{"adi/listFrames", "adi.list_frames", map[string]any{"func": "add", "limit": 2}}},
		{nil, req{"adi/diff", "adi.diff", map[string]any{"a": "add#1", "b": "add#2"}}},
		{[]req{toMain}, req{"adi/stepInto", "adi.step_into", map[string]any{"frame": "add#2"}}},
		{[]req{toMain}, req{"adi/step-in", "adi.step_into", map[string]any{"frame": "add#3", "budget": 400}}},
		{[]req{{"adi/stepInto", "adi.step_into", map[string]any{"frame": "add#2"}}}, req{"adi/stepOut", "adi.step_out", nil}},
		{[]req{clear, toMain}, req{"adi/break", "adi.break", map[string]any{"func": "add", "cond": "a > 0"}}}, // it moves: from main#1 both times
		{[]req{clear, breakAdd}, req{"adi/clear", "adi.clear", nil}},
		{[]req{clear, breakAdd, {"adi/stepInto", "adi.step_into", map[string]any{"frame": "main#1"}}}, req{"adi/continue", "adi.continue", nil}},
		{[]req{clear, breakAdd, {"adi/stepInto", "adi.step_into", map[string]any{"frame": "add#3"}}}, req{"adi/prev", "adi.prev", nil}},
		{nil, req{"adi/run", "adi.run", map[string]any{"line": "list-frames add"}}},
		{nil, req{"adi/run", "adi.run", map[string]any{"line": "step-into"}}},
		{nil, req{"adi/exec", "adi.execute", map[string]any{"frame": "add#2", "stmt": "total = 0", "then_continue": true}}},
		{nil, req{"adi/exec", "adi.execute", map[string]any{"frame": "add#1", "stmt": "x", "colour": 1}}},
		{nil, req{"adi/stepInto", "adi.step_into", map[string]any{"fram": "add#1"}}},
		{nil, req{"adi/flt", "adi.flt", map[string]any{"frame": "nope#1"}}},
	} {
		name := fmt.Sprintf("%s %v", tc.r.command, tc.r.args)
		for _, s := range tc.setup {
			_, _, msg := viaProxy(s)
			require.Empty(t, msg, name)
		}
		text, result, msg := viaProxy(tc.r)
		for _, s := range tc.setup {
			_, _, msg := viaServer(s)
			require.Empty(t, msg, name)
		}
		wantText, wantResult, wantMsg := viaServer(tc.r)
		assert.Equal(t, wantMsg, msg, name)
		assert.Equal(t, wantText, text, name)
		if wantResult != nil || result != nil {
			assert.JSONEq(t, string(wantResult), string(result), name)
		}
	}
	_, _, msg := viaProxy(req{"adi/exec", "adi.execute", map[string]any{"frame": "add#1", "stmt": "x", "colour": 1}})
	assert.Equal(t, `adi: adi.execute: unknown param "colour"; it takes {session, frame, stmt, line?, visit?, then_continue?, timeout?, budget?}`, msg)
	text, _, _ := viaProxy(req{"adi/exec", "adi.execute", map[string]any{"frame": "add#2", "stmt": "total = 0", "then_continue": true}})
	assert.Contains(t, text, "exit", "then_continue reports how the program ended")
	e.Call("disconnect", nil)
}
