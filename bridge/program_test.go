package bridge

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChosenPythonNotStarted: a target run by "the" python with an interpreter chosen
// (--python, $ADI_PYTHON) runs under that one, and nothing starts it before the first run to ask
// whether it has debugpy (that search is for when none was chosen).
func TestChosenPythonNotStarted(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.py"), []byte("print(1)\n"), 0o644))
	marker := filepath.Join(dir, "started")
	py := filepath.Join(dir, "python-x")
	require.NoError(t, os.WriteFile(py, []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755))

	for _, tc := range []struct{ name, flag, env string }{{"--python", py, ""}, {"$ADI_PYTHON", "", py}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ADI_PYTHON", tc.env)
			p, _, err := NewProgram(context.Background(), Options{Command: "python3 t.py", Dir: dir, Python: tc.flag})
			require.NoError(t, err)
			assert.Equal(t, py, p.Python)
			assert.NoFileExists(t, marker, "the chosen interpreter was started before any run")
		})
	}

	t.Setenv("ADI_PYTHON", "")
	_, _, err := NewProgram(context.Background(), Options{Command: "python3 t.py", Dir: dir, Python: "no-such-python-x"})
	assert.EqualError(t, err, `interpreter "no-such-python-x" (--python) not found on PATH; give its path`)
}
