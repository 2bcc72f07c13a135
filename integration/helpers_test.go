// Package integration runs adi end to end against the real debugpy and real Python programs. Nothing
// here mocks debugpy: a machine without it fails these tests (run `make deps`).
package integration

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/dap"
)

var (
	pythonOnce sync.Once
	python     *dap.Python
	pythonErr  error
)

// needPython returns the interpreter with debugpy that the tests use.
func needPython(t testing.TB) *dap.Python {
	t.Helper()
	pythonOnce.Do(func() { python, pythonErr = dap.FindPython(context.Background(), "") })
	require.NoError(t, pythonErr, "integration tests need python3-debugpy: run `make deps`")
	return python
}

// testdata returns the absolute path of a file under testdata/.
func testdata(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	require.NoError(t, err)
	_, err = os.Stat(p)
	require.NoError(t, err)
	return p
}

func testLogger(t testing.TB) hclog.Logger {
	level := hclog.Warn
	if os.Getenv("ADI_TEST_TRACE") != "" {
		level = hclog.Trace
	}
	return hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: level, Output: os.Stderr})
}

func testContext(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// launchArgs is a debugpy launch request for a program with its output sent as DAP output events.
func launchArgs(program string, args ...string) map[string]any {
	if args == nil {
		args = []string{}
	}
	return map[string]any{
		"name": "adi-test", "type": "python", "request": "launch",
		"program": program, "args": args, "cwd": filepath.Dir(program),
		"console": "internalConsole", "redirectOutput": true,
		"justMyCode": true, "subProcess": false,
	}
}
