package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCLIInterpreterAskedOncePerUser puts first on PATH a pyenv shim whose python has no debugpy
// (so adi asks it, then /usr/bin/python3) and runs the first command of three agents, each with
// its own state directory (its own daemon) and the same cache directory: the shim is run to ask
// once for the first two, and once more after its interpreter changed (another modification
// time, as an upgrade leaves). The fake pyenv logs every run of its python.
func TestCLIInterpreterAskedOncePerUser(t *testing.T) {
	dir := demoDir(t)
	root := t.TempDir()
	target := filepath.Join(root, "versions", "3.99.0", "bin", "python3")
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
	require.NoError(t, os.WriteFile(target, []byte("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n"), 0o755))
	log := filepath.Join(root, "runs.log")
	pyenv := filepath.Join(root, "libexec", "pyenv")
	require.NoError(t, os.MkdirAll(filepath.Dir(pyenv), 0o755))
	require.NoError(t, os.WriteFile(pyenv, []byte("#!/bin/sh\n# pyenv exec PROGRAM ARGS\nshift\nprogram=\"$1\"\nshift\n"+
		"echo \"$program\" >> \""+log+"\"\nexec \"$PYENV_ROOT/versions/$PYENV_VERSION/bin/$program\" \"$@\"\n"), 0o755))
	shims := filepath.Join(root, "shims")
	require.NoError(t, os.MkdirAll(shims, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(shims, "python3"), []byte("#!/usr/bin/env bash\nset -e\nprogram=\"${0##*/}\"\n\n"+
		"export PYENV_ROOT=\""+root+"\"\nexec \""+root+"/libexec/pyenv\" exec \"$program\" \"$@\"\n"), 0o755))
	cache := t.TempDir()
	env := []string{"PATH=" + shims + string(os.PathListSeparator) + os.Getenv("PATH"), "PYENV_VERSION=3.99.0",
		"ADI_CACHE_DIR=" + cache, "ADI_PYTHON="}
	runs := func() int {
		b, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return 0
		}
		require.NoError(t, err)
		return strings.Count(string(b), "python3\n")
	}
	firstCommand := func() {
		t.Helper()
		r := newCLI(t, dir) // a state directory of its own
		r.env = append(r.env, env...)
		res := r.run("call-tree", "python orders.py", "--depth", "1")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Equal(t, "Call tree of orders:<module>#1 (depth 1, width 10):\norders:<module>#1() → None\n"+
			"  orders:invoice#1(lines=['apple, 12, 0.50', 'pear, 3, 1.20', 'm…, rules={'apple': 0.1, 'melon': 0…) → 29.0  ⋯ 10 calls below\n", res.stdout)
		r.stop()
	}

	firstCommand()
	assert.Equal(t, 1, runs(), "the first agent's daemon asks the shim's python")
	firstCommand()
	assert.Equal(t, 1, runs(), "another state directory's daemon does not ask it again")
	st, err := os.Stat(target)
	require.NoError(t, err)
	later := st.ModTime().Add(time.Hour)
	require.NoError(t, os.Chtimes(target, later, later)) // the interpreter upgraded
	firstCommand()
	assert.Equal(t, 2, runs(), "a changed interpreter is asked again")
}
