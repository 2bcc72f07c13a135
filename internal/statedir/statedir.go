// Package statedir names the directory adi keeps its state in (sessions, the CLI daemon's files).
// It is its own package so that the thin `adi` binary finds the directory without linking the
// bridge that owns the sessions.
package statedir

import (
	"os"
	"path/filepath"
)

// Dir returns the state directory: $ADI_STATE_DIR, else $XDG_STATE_HOME/adi, else
// ~/.local/state/adi, else adi-state under the temporary directory.
func Dir() string {
	if d := os.Getenv("ADI_STATE_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "adi")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "state", "adi")
	}
	return filepath.Join(os.TempDir(), "adi-state")
}
