package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// runLine runs one adi command line without a daemon (every case here fails before one is
// needed) and returns its exit code, stdout and stderr.
func runLine(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("ADI_STATE_DIR", t.TempDir())
	t.Setenv("ADI_SESSION", "")
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb, Options{})
	return code, out.String(), errb.String()
}

func TestCLIWrongInputIsOneLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"break", "python t.py", "t.py:f", "--ful-watch", "x"}, "adi: unknown flag --ful-watch for break; did you mean --full-watch? (adi break -h lists the flags)"},
		{[]string{"continue", "--loop-idx", "2"}, "adi: unknown flag --loop-idx for continue; did you mean --loop-index? (adi continue -h lists the flags)"},
		{[]string{"stepin", "f#1"}, `adi: unknown command "stepin"; did you mean step-in? (adi help lists the commands)`},
		{[]string{"step_into", "f#1"}, `adi: unknown command "step_into"; did you mean step-into? (adi help lists the commands)`},
		{[]string{"call-tree", "--depth", "0"}, "adi: call-tree: --depth takes a number of levels from 1 (1 shows the frame's direct calls), not 0; without it: 2"},
		{[]string{"call-tree", "--width", "-2"}, "adi: call-tree: --width takes a number of children from 1, not -2; without it: 10"},
		{[]string{"call-tree", "--depth", "x"}, `adi: --depth of call-tree takes a whole number, not "x" (adi call-tree -h lists the flags)`},
		{[]string{"call-tree", "--depth"}, "adi: --depth of call-tree needs a value (adi call-tree -h lists the flags)"},
		{[]string{"call-tree", "orders.py"}, `adi: call-tree: orders.py is a file, not a frame: the target command is missing; give it first, quoted: adi call-tree "python3 orders.py" ...`},
		{[]string{"call-tree", "python3", "orders.py"}, `adi: call-tree: the target command must be one quoted argument: adi call-tree "python3 orders.py" ...`},
		{[]string{"break", "python3", "t.py", "t.py:f"}, `adi: break: the target command must be one quoted argument: adi break "python3 t.py" ...`},
		{[]string{"break", "python t.py", "t.py:f", "--loop", "0"}, "adi: break: --loop takes a number of iterations from 1, not 0"},
		{[]string{"flt", "--loop", "2", "--loop-index", "1"}, "adi: flt: give --loop or --loop-index, not both: --loop shows the first N iterations, --loop-index iteration K"},
		{[]string{"flt", "--loop-index", "x:2"}, `adi: flt: --loop-index takes LINE:K, iteration K of the loop whose header is line LINE (e.g. --loop-index 122:2), or K, iteration K of every loop; not "x:2"`},
		{[]string{"continue", "--loop-index", "0"}, `adi: continue: --loop-index takes LINE:K, iteration K of the loop whose header is line LINE (e.g. --loop-index 122:2), or K, iteration K of every loop; not "0"`},
		{[]string{"step-out", "--full-watch", ","}, "adi: step-out: --full-watch takes variable names separated by commas, e.g. --full-watch total,rate"},
		{[]string{"break", "python t.py", "t.py:f", "--on-entry", "--on-return", "-c", "x"}, "adi: break: give --on-entry or --on-return, not both: a condition is checked at one moment"},
		{[]string{"break", "python t.py", "t.py:f", "--on-return"}, "adi: break: --on-return says when the condition is checked; give the condition too (--cond EXPR)"},
		{[]string{"break", "python t.py", "t.py:f", "--if-eval-lineno", "4"}, "adi: break: --if-eval-lineno says where the condition is checked; give the condition too (--cond EXPR)"},
		{[]string{"break", "python t.py", "t.py:f", "--if-eval-lineno", "4", "-c", "_return > 1"}, "adi: break: _return and _exception are bound only at exit, and --if-eval-lineno checks the condition at line 4; use --on-return instead"},
		{[]string{"break", "python t.py", "t.py:f", "--on-entry", "-c", "_return > 1"}, "adi: break: _return and _exception are bound only at exit; use --on-return, not --on-entry"},
		{[]string{"continue", "--if-eval-lineno", "12"}, "adi: continue: --if-eval-lineno belongs to the breakpoint, which keeps it: adi break FUNC --cond EXPR --if-eval-lineno 12, then adi continue"},
		{[]string{"break", "f", "--allow-external"}, "adi: break: --allow-external records the library file a FILE:FUNC argument names; name the function by its file, e.g. /usr/lib/python3.11/json/encoder.py:JSONEncoder.encode"},
		{[]string{"step-in", "/usr/lib/python3.11/string.py:capwords#1", "--allow-external"}, `adi: step-in: --allow-external records the target again with /usr/lib/python3.11/string.py: give the target command first, e.g. adi step-in "python t.py" ...`},
		{[]string{"break", "-t", "-5", "python t.py", "f"}, "adi: break: -t/--timeout takes seconds from 1 (got -5)"},
	}
	for _, tt := range tests {
		code, out, errText := runLine(t, tt.args...)
		assert.Equal(t, 2, code, tt.args)
		assert.Equal(t, "", out, tt.args)
		assert.Equal(t, tt.want+"\n", errText, tt.args)
	}
}

func TestCLIHelp(t *testing.T) {
	code, viaHelp, errText := runLine(t, "help", "break")
	assert.Equal(t, 0, code)
	assert.Equal(t, "", errText, "help asked for goes to stdout")
	for _, args := range [][]string{{"break", "-h"}, {"break", "--help"}, {"break", "python t.py", "t.py:f", "-h"}} {
		code, out, errText := runLine(t, args...)
		assert.Equal(t, 0, code, args)
		assert.Equal(t, viaHelp, out, "adi help break = adi %s", strings.Join(args, " "))
		assert.Equal(t, "", errText, args)
	}
	assert.True(t, strings.HasPrefix(viaHelp, "Usage: adi break [\"CMD\"] FILE:FUNC[#N] [--cond EXPR] [--on-entry|--on-return|--if-eval-lineno L] [--full-watch A,B] [--loop N|--loop-index LINE:K]\n\nFlags:\n"), viaHelp)
	for _, f := range []string{"-full-watch", "-loop", "-loop-index", "-on-entry", "-on-return", "-if-eval-lineno", "-allow-external", "-no-count", "-t ", "-timeout"} {
		assert.Contains(t, viaHelp, "\n  "+f, f)
	}

	code, version, errText := runLine(t, "version", "-h")
	assert.Equal(t, 0, code)
	assert.Equal(t, "", errText)
	assert.True(t, strings.HasPrefix(version, "Usage: adi version\n\nFlags:\n"), "no trailing space after a command without arguments: %q", version)
}

// TestCLIHelpOnStdout checks every way of asking for help: the help goes to stdout with exit 0,
// and nothing to stderr; help a usage error calls for stays one line on stderr, exit 2.
func TestCLIHelpOnStdout(t *testing.T) {
	_, general, _ := runLine(t, "help")
	assert.True(t, strings.HasPrefix(general, "adi: see a Python run one function invocation at a time"), general)
	_, live, _ := runLine(t, "live", "help")
	assert.True(t, strings.HasPrefix(live, "adi live: debug a paused, live Python process under debugpy"), live)
	_, liveStart, _ := runLine(t, "live", "start", "-h")
	assert.True(t, strings.HasPrefix(liveStart, "Usage: adi live start \"CMD\" [--id ID] [-t SECONDS]\n\nFlags:\n"), liveStart)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"help"}, general},
		{[]string{"-h"}, general},
		{[]string{"--help"}, general},
		{[]string{"help", "live"}, live},
		{[]string{"live", "--help"}, live},
		{[]string{"live", "-h"}, live},
		{[]string{"help", "live", "start"}, liveStart},
		{[]string{"live", "help", "start"}, liveStart},
		{[]string{"live", "start", "--help"}, liveStart},
	} {
		code, out, errText := runLine(t, tt.args...)
		assert.Equal(t, 0, code, tt.args)
		assert.Equal(t, tt.want, out, tt.args)
		assert.Equal(t, "", errText, tt.args)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "nosuch"}, `adi: unknown command "nosuch" (adi help lists the commands)`},
		{[]string{"break", "--nope"}, "adi: unknown flag --nope for break (adi break -h lists the flags)"},
		{[]string{"live", "help", "nosuch"}, "adi: unknown live command \"nosuch\"; run `adi live help` for the list"},
	} {
		code, out, errText := runLine(t, tt.args...)
		assert.Equal(t, 2, code, tt.args)
		assert.Equal(t, "", out, tt.args)
		assert.Equal(t, tt.want+"\n", errText, tt.args)
	}
}

// TestCLIPeerFlagsAccepted checks that the reference CLI's flags parse on the commands that take
// them: the commands get as far as needing a session (exit 2, no session yet).
func TestCLIPeerFlagsAccepted(t *testing.T) {
	for _, args := range [][]string{
		{"continue", "--full-watch", "a,b", "-t", "5"},
		{"continue", "--loop", "3"},
		{"prev", "--loop-index", "2"},
		{"step-out", "--allow-external", "--timeout", "9"},
		{"step-in", "f#1", "--full-watch", "a"},
		{"flt", "--no-count"},
		{"call-tree", "--allow-external", "-t", "3"},
		{"list-frames", "f", "--no-count", "-t", "3"},
		{"diff", "f#1", "f#2", "-t", "3"},
		{"exec", "f#1", "-s", "x", "--loop-index", "2", "-t", "3"},
		{"state", "-t", "3"},
		{"list", "-t", "3"},
		{"clear", "-t", "3"},
	} {
		code, _, errText := runLine(t, args...)
		assert.Equal(t, 2, code, args)
		assert.Contains(t, errText, ": no session yet in ", args)
	}
	code, _, errText := runLine(t, "sessions", "-t", "3", "extra")
	assert.Equal(t, 2, code)
	assert.Equal(t, "adi: sessions takes no arguments\n", errText, "-t is accepted; the argument is not")
}

// TestMainForwardsServerCommands checks the split between the binaries: a command of the full
// binary is run by Options.Commands when it has it, else handed to Options.Forward with the whole
// argument list; the help lists both kinds.
func TestMainForwardsServerCommands(t *testing.T) {
	var forwarded []string
	opts := Options{Forward: func(args []string) error { forwarded = args; return &ExitError{Code: 3, Err: errors.New("adi: gone")} }}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"serve", "--listen", "127.0.0.1:0"}, &out, &errb, opts)
	assert.Equal(t, 3, code)
	assert.Equal(t, []string{"serve", "--listen", "127.0.0.1:0"}, forwarded)
	assert.Equal(t, "adi: gone\n", errb.String())

	ran := false
	opts.Commands = map[string]RunFunc{"serve": func(ctx context.Context, g *Globals, args []string) error {
		ran = true
		assert.Equal(t, []string{"-x"}, args)
		return nil
	}}
	forwarded = nil
	assert.Equal(t, 0, Main(context.Background(), []string{"serve", "-x"}, &out, &errb, opts))
	assert.True(t, ran)
	assert.Nil(t, forwarded)

	out.Reset()
	assert.Equal(t, 0, Main(context.Background(), []string{"help"}, &out, &errb, Options{}))
	for _, n := range append(ServerCommands(), "continue", "live", "version") {
		assert.Contains(t, out.String(), "\n  "+n+" ", n)
	}
}
