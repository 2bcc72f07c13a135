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
	"sync"

	"github.com/adi-bridge/adi/internal/cachedir"
)

//go:embed python/adi_probe_run.py python/adi_probe/*.py
var files embed.FS

var (
	installOnce sync.Once
	installDir  string
	installErr  error
)

// Install writes the probe into the cache (once per process) and returns its directory.
func Install() (string, error) {
	installOnce.Do(func() {
		sub, err := fs.Sub(files, "python")
		if err != nil {
			installErr = err
			return
		}
		installDir, installErr = cachedir.Install(sub, "probe")
		if installErr != nil {
			installErr = fmt.Errorf("install the probe: %w", installErr)
		}
	})
	return installDir, installErr
}

// Script returns the entry script of the probe installed in dir.
func Script(dir string) string { return filepath.Join(dir, "adi_probe_run.py") }
