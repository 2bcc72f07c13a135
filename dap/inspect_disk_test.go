package dap

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInspectDiskCache checks that an interpreter's answer is remembered in the cache directory
// and dropped when a directory it imports from changes (a package installed there).
func TestInspectDiskCache(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3")
	}
	venv := filepath.Join(t.TempDir(), "venv")
	out, err := exec.Command("/usr/bin/python3", "-m", "venv", "--without-pip", venv).CombinedOutput()
	require.NoError(t, err, "%s", out)
	py := filepath.Join(venv, "bin", "python")
	t.Setenv("ADI_CACHE_DIR", t.TempDir())

	_, _, ok := diskLookup(py)
	assert.False(t, ok, "nothing is remembered yet")
	got, err := inspect(context.Background(), py, inspectScript)
	require.Error(t, err)
	diskStore(py, got, err)
	_, cached, ok := diskLookup(py)
	require.True(t, ok, "the answer is remembered")
	assert.Equal(t, err.Error(), cached.Error())

	site, err := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages"))
	require.NoError(t, err)
	require.Len(t, site, 1)
	require.NoError(t, os.Mkdir(filepath.Join(site[0], "debugpy"), 0o755))
	_, _, ok = diskLookup(py)
	assert.False(t, ok, "a package installed into the venv makes the answer stale")
}

// TestRunTargetPyenvShim checks that a pyenv shim is resolved to the interpreter of the version
// pyenv picks, without running it.
func TestRunTargetPyenvShim(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "versions", "3.99.0", "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "python3"), []byte("\x7fELF"), 0o755))
	shim := filepath.Join(root, "shims", "python3")
	require.NoError(t, os.MkdirAll(filepath.Dir(shim), 0o755))
	require.NoError(t, os.WriteFile(shim, []byte("#!/usr/bin/env bash\nset -e\nprogram=\"${0##*/}\"\n\nexport PYENV_ROOT=\""+root+
		"\"\nexec \""+root+"/libexec/pyenv\" exec \"$program\" \"$@\"\n"), 0o755))
	t.Setenv("PYENV_VERSION", "3.99.0")
	assert.Equal(t, filepath.Join(bin, "python3"), runTarget(shim))
	t.Setenv("PYENV_VERSION", "3.98.0")
	assert.Equal(t, "", runTarget(shim), "a version that is not installed is not followed")
	other := filepath.Join(root, "other.sh")
	require.NoError(t, os.WriteFile(other, []byte("#!/bin/sh\nexec python3 \"$@\"\n"), 0o755))
	assert.Equal(t, "", runTarget(other), "another script is not remembered")
}

// fakePyenv makes a pyenv installation whose python3 is a script running /usr/bin/python3 -S
// (without site-packages: no debugpy), and returns its shim and the file the shim runs.
func fakePyenv(t *testing.T) (shim, target string) {
	t.Helper()
	root := t.TempDir()
	target = filepath.Join(root, "versions", "3.99.0", "bin", "python3")
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
	require.NoError(t, os.WriteFile(target, []byte("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n"), 0o755))
	pyenv := filepath.Join(root, "libexec", "pyenv")
	require.NoError(t, os.MkdirAll(filepath.Dir(pyenv), 0o755))
	require.NoError(t, os.WriteFile(pyenv, []byte("#!/bin/sh\n# pyenv exec PROGRAM ARGS\nshift\nprogram=\"$1\"\nshift\n"+
		"exec \"$PYENV_ROOT/versions/$PYENV_VERSION/bin/$program\" \"$@\"\n"), 0o755))
	shim = filepath.Join(root, "shims", "python3")
	require.NoError(t, os.MkdirAll(filepath.Dir(shim), 0o755))
	require.NoError(t, os.WriteFile(shim, []byte("#!/usr/bin/env bash\nset -e\nprogram=\"${0##*/}\"\n\nexport PYENV_ROOT=\""+root+
		"\"\nexec \""+root+"/libexec/pyenv\" exec \"$program\" \"$@\"\n"), 0o755))
	t.Setenv("PYENV_VERSION", "3.99.0")
	return shim, target
}

// TestInspectCacheSharedAcrossDaemons checks that a pyenv shim's answer (no debugpy) is asked
// once for every daemon that shares the cache directory, whatever its state directory (a new
// daemon is this process with its memory of answers emptied), and asked again once the
// interpreter it runs changed: another modification time, or the same one and another size.
func TestInspectCacheSharedAcrossDaemons(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3")
	}
	cache := t.TempDir()
	t.Setenv("ADI_CACHE_DIR", cache)
	shim, target := fakePyenv(t)
	require.Equal(t, target, runTarget(shim))
	newDaemon := func() {
		inspectMu.Lock()
		inspectCache = map[string]inspected{}
		inspectMu.Unlock()
	}
	ctx := context.Background()
	ask := func() string {
		newDaemon()
		py, err := cachedInspect(ctx, shim)
		require.Error(t, err)
		assert.Nil(t, py)
		return err.Error()
	}
	const noDebugpy = "cannot import debugpy (ModuleNotFoundError: No module named 'debugpy')"
	start := inspections.Load()
	assert.Contains(t, ask(), noDebugpy)
	assert.Equal(t, int64(1), inspections.Load()-start, "the first daemon asks the interpreter")
	_, err := os.Stat(filepath.Join(cache, "pythons.json"))
	require.NoError(t, err, "the answer is in the cache directory")

	assert.Contains(t, ask(), noDebugpy)
	assert.Equal(t, int64(1), inspections.Load()-start, "the next daemon, whatever its state directory, does not ask again")

	st, err := os.Stat(target)
	require.NoError(t, err)
	later := st.ModTime().Add(time.Hour)
	require.NoError(t, os.Chtimes(target, later, later))
	assert.Contains(t, ask(), noDebugpy)
	assert.Equal(t, int64(2), inspections.Load()-start, "an interpreter with another modification time is asked again")
	assert.Contains(t, ask(), noDebugpy)
	assert.Equal(t, int64(2), inspections.Load()-start, "and its new answer is remembered")

	f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("# upgraded\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Chtimes(target, later, later))
	assert.Contains(t, ask(), noDebugpy)
	assert.Equal(t, int64(3), inspections.Load()-start, "an interpreter of another size (same modification time) is asked again")
}
