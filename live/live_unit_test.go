package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
)

func TestValidCommands(t *testing.T) {
	notPaused := []string{"set_breakpoint", "clear", "continue", "restart", "status", "close", "watch", "unwatch", "caught", "flt"}
	assert.Equal(t, notPaused, Valid(Start))
	assert.Equal(t, notPaused, Valid(Running))
	all := []string{"set_breakpoint", "clear", "continue", "restart", "interact", "stack", "where", "status", "close", "watch", "unwatch", "caught", "flt"}
	assert.Equal(t, all, Valid(Runtime))
	assert.Equal(t, all, Valid(RuntimeError))
	assert.Equal(t, all, Valid(PostMortem))
	assert.Equal(t, []string{"set_breakpoint", "clear", "restart", "status", "close", "unwatch", "caught", "flt"}, Valid(Done))
}

func TestRefusedMessage(t *testing.T) {
	e := &RefusedError{Command: CmdInteract, State: Done, Detail: "the program exited with status 1",
		Reason: refusal(Done, CmdInteract), Valid: Valid(Done)}
	assert.Equal(t, "live.interact is refused in state Done (the program exited with status 1): the program has ended, so there is no frame left; live.restart runs it again. Valid now: live.set_breakpoint, live.clear, live.restart, live.status, live.close, live.unwatch, live.caught, live.flt", faces.WebSocket.Render(e.Error()))
}

func TestMarkerScanner(t *testing.T) {
	m := newMarkerScanner("tok")
	out, found := m.scan("boom\n" + markerText("tok", "exit", "3"))
	assert.Equal(t, "boom\n", out)
	assert.Equal(t, []marker{{kind: "exit", value: "3"}}, found)

	// Two markers in one piece, text around them kept.
	out, found = m.scan("a" + markerText("tok", "sync", "1") + "b" + markerText("tok", "sync", "2") + "c")
	assert.Equal(t, "abc", out)
	assert.Equal(t, []marker{{kind: "sync", value: "1"}, {kind: "sync", value: "2"}}, found)

	// A marker split over two pieces of output is held back, then found.
	m = newMarkerScanner("tok")
	out, found = m.scan("tail \x00adi-li")
	assert.Equal(t, "tail ", out)
	assert.Empty(t, found)
	out, found = m.scan("ve-tok exit 0\x00")
	assert.Equal(t, "", out)
	assert.Equal(t, []marker{{kind: "exit", value: "0"}}, found)

	// Another token passes through; a trailing NUL could start a marker: held back.
	m = newMarkerScanner("tok")
	out, found = m.scan(markerText("other", "exit", "1"))
	assert.Empty(t, found)
	assert.Equal(t, "\x00adi-live-other exit 1", out)
	out, _ = m.scan("x")
	assert.Equal(t, "\x00x", out)
}

func TestOutputTail(t *testing.T) {
	var o outputs
	o.write("stdout", "hello\n")
	o.write("console", "debugpy's own message\n")
	o.write("stderr", strings.Repeat("x", OutputTail+10))
	got := o.take()
	assert.Equal(t, "hello\n", got.Stdout)
	assert.Equal(t, 0, got.StdoutCut)
	assert.Equal(t, strings.Repeat("x", OutputTail), got.Stderr)
	assert.Equal(t, 10, got.StderrCut)
	assert.Equal(t, []string{"Output since the last answer:", "  stdout:", "    hello", "  stderr: [10 earlier bytes cut]",
		"    " + strings.Repeat("x", OutputTail)}, got.lines())
	assert.Equal(t, Output{}, o.take(), "take starts over")
	assert.Equal(t, []string{"Output since the last answer: (none)"}, o.take().lines())

	o.write("stdout", strings.Repeat("y", keepBytes+5))
	got = o.take()
	assert.Equal(t, keepBytes+5-OutputTail, got.StdoutCut, "what was not kept is counted as cut")
}

func TestParseLocation(t *testing.T) {
	dir := t.TempDir()
	src := "import os\n\n# a comment\ndef f(x):\n    return x\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.py"), []byte(src), 0o644))
	real, _ := filepath.EvalSymlinks(filepath.Join(dir, "t.py"))

	file, line, text, err := parseLocation(dir, "", "t.py:5")
	require.NoError(t, err)
	assert.Equal(t, real, file)
	assert.Equal(t, 5, line)
	assert.Equal(t, "return x", text)

	_, line, _, err = parseLocation(dir, filepath.Join(dir, "t.py"), "4")
	require.NoError(t, err, "a bare line means the script's")
	assert.Equal(t, 4, line)

	for loc, want := range map[string]string{
		"t.py:3":    "line 3 of t.py is a comment; a breakpoint needs a line with a statement (e.g. line 1 or 4)",
		"t.py:2":    "line 2 of t.py is blank; a breakpoint needs a line with a statement (e.g. line 1 or 4)",
		"t.py:9":    "t.py has 5 lines; line 9 does not exist",
		"t.py:x":    `location "t.py:x" is not FILE:LINE with a line number from 1, e.g. t.py:12`,
		"7":         `location "7" names no file (the target is not a script); give FILE:LINE, e.g. t.py:12`,
		"nope.py:1": "cannot set a breakpoint in " + filepath.Join(dir, "nope.py") + ": open " + filepath.Join(dir, "nope.py") + ": no such file or directory; give a Python file of the program",
	} {
		_, _, _, err := parseLocation(dir, "", loc)
		require.Error(t, err, loc)
		assert.Equal(t, want, err.Error(), loc)
		assert.ErrorIs(t, err, adi.ErrBadInput, loc)
	}
}

func TestReadDump(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "stack.txt")
	s := &Session{prog: &bridge.Program{Dir: "/p"}, run: &run{dump: dump}}
	require.NoError(t, os.WriteFile(dump, []byte("main 0x00007f01\n"+
		"Thread 0x00007f02 (most recent call first):\n  File \"/usr/lib/python3.11/threading.py\", line 320 in wait\n\n"+
		"Current thread 0x00007f01 (most recent call first):\n"+
		"  File \"/p/lib.py\", line 7 in spin\n  File \"/p/t.py\", line 3 in <module>\n"+
		"  File \"/usr/lib/python3/dist-packages/debugpy/server/cli.py\", line 284 in run_file\n"), 0o644))
	frames, ok := s.readDump()
	require.True(t, ok)
	assert.Equal(t, []Frame{{Index: 0, File: "/p/lib.py", Line: 7, Function: "spin"}, {Index: 1, File: "/p/t.py", Line: 3, Function: "<module>"}}, frames)
}

func TestDecodeHelper(t *testing.T) {
	h, err := decodeHelper("'eyJvdXRwdXQiOiAiMyA2XG4iLCAidmFsdWUiOiAiNiIsICJleGNlcHRpb24iOiBudWxsLCAidHJhY2ViYWNrIjogW10sICJ0aW1lZF9vdXQiOiBmYWxzZX0='")
	require.NoError(t, err)
	assert.Equal(t, "3 6\n", h.Output)
	require.NotNil(t, h.Value)
	assert.Equal(t, "6", *h.Value)
	_, err = decodeHelper("<object at 0x1>")
	assert.Error(t, err)
}

func TestSeconds(t *testing.T) {
	assert.Equal(t, "30 s", seconds(30000))
	assert.Equal(t, "1.5 s", seconds(1500))
	assert.Equal(t, "45 ms", seconds(45))
}

func TestExceptionType(t *testing.T) {
	assert.Equal(t, "ZeroDivisionError", exceptionType("ZeroDivisionError       (note: full exception trace is shown but execution is paused at: <module>)"))
	assert.Equal(t, "SystemExit", exceptionType("SystemExit"))
}
