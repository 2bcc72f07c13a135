package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/dap"
)

// TestLaunchStopInspectContinue drives a real debugpy through the launcher and client: a function
// breakpoint stops in greet, the stack and variables show its arguments, evaluate computes in the
// frame, and continue runs to the end with the exit code and output captured.
func TestLaunchStopInspectContinue(t *testing.T) {
	py := needPython(t)
	ctx := testContext(t, 60*time.Second)
	ad, err := dap.StartAdapter(ctx, dap.AdapterOptions{Python: py, Log: testLogger(t)})
	require.NoError(t, err)
	defer ad.Close()
	c := ad.Client

	_, err = c.Initialize(ctx)
	require.NoError(t, err)
	events := c.Subscribe("stopped", "output", "exited", "terminated")
	defer events.Close()

	prog := testdata(t, "greet.py")
	err = c.Launch(ctx, launchArgs(prog), func(ctx context.Context) error {
		bps, err := c.SetFunctionBreakpoints(ctx, []godap.FunctionBreakpoint{{Name: "greet"}})
		if err == nil {
			require.Len(t, bps, 1)
		}
		return err
	})
	require.NoError(t, err)

	stopped, err := events.WaitFor(ctx, "stopped")
	require.NoError(t, err)
	var sb godap.StoppedEventBody
	require.NoError(t, stopped.Body(&sb))
	assert.Equal(t, "function breakpoint", sb.Reason)

	frames, err := c.StackTrace(ctx, sb.ThreadId, 20)
	require.NoError(t, err)
	require.NotEmpty(t, frames)
	assert.Equal(t, "greet", frames[0].Name)
	assert.Equal(t, 4, frames[0].Line) // pydevd stops a function breakpoint at the def line
	assert.Equal(t, prog, frames[0].Source.Path)

	scopes, err := c.Scopes(ctx, frames[0].Id)
	require.NoError(t, err)
	require.NotEmpty(t, scopes)
	vars, err := c.Variables(ctx, scopes[0].VariablesReference)
	require.NoError(t, err)
	got := map[string]string{}
	for _, v := range vars {
		got[v.Name] = v.Value
	}
	assert.Equal(t, "'ada'", got["name"])
	assert.Equal(t, "3", got["times"])

	ev, err := c.Evaluate(ctx, "len(name) * times", frames[0].Id, "repl")
	require.NoError(t, err)
	assert.Equal(t, "9", ev.Result)

	require.NoError(t, c.Continue(ctx, sb.ThreadId))
	var out strings.Builder
	exit := -1
	for {
		m, err := events.Next(ctx)
		require.NoError(t, err)
		if m.Event == "output" {
			var ob godap.OutputEventBody
			require.NoError(t, m.Body(&ob))
			if ob.Category == "stdout" {
				out.WriteString(ob.Output)
			}
		}
		if m.Event == "exited" {
			var eb godap.ExitedEventBody
			require.NoError(t, m.Body(&eb))
			exit = eb.ExitCode
		}
		if m.Event == "terminated" {
			break
		}
	}
	assert.Equal(t, 3, exit)
	assert.Equal(t, "hi adahi adahi ada\n", out.String())
}
