// Package probe owns the Python half of adi: its source (embedded in the binary and installed into
// a versioned cache directory), the configuration the bridge writes for one run, and the decoding
// of what a run wrote (probe/PROTOCOL.md) into adi's types. It starts no processes and no
// goroutines; package bridge runs the probe.
package probe

import (
	"embed"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/adi-bridge/adi/internal/cachedir"
)

//go:embed python/adi_probe_run.py python/adi_probe/*.py
var files embed.FS

// Install writes the probe into the cache (when that copy is not there yet) and returns its
// directory.
func Install() (string, error) {
	sub, err := fs.Sub(files, "python")
	if err != nil {
		return "", err
	}
	dir, err := cachedir.Install(sub, "probe")
	if err != nil {
		return "", fmt.Errorf("install the probe: %w", err)
	}
	return dir, nil
}

// Script returns the entry script of the probe installed in dir.
func Script(dir string) string { return filepath.Join(dir, "adi_probe_run.py") }
