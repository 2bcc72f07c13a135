package dap

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInspectDiskCache checks that an interpreter's answer is remembered in the state directory
// and dropped when a directory it imports from changes (a package installed there).
func TestInspectDiskCache(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3")
	}
	venv := filepath.Join(t.TempDir(), "venv")
	out, err := exec.Command("/usr/bin/python3", "-m", "venv", "--without-pip", venv).CombinedOutput()
	require.NoError(t, err, "%s", out)
	py := filepath.Join(venv, "bin", "python")
	SetInspectCacheDir(t.TempDir())
	t.Cleanup(func() { SetInspectCacheDir("") })

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
