package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
)

// FindServer returns the full binary (ServerName) in the directory of the running executable,
// or a one-line error saying how to get it. os.Executable resolves symbolic links, so a link to
// adi finds the adi-server installed beside the real file.
func FindServer() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("adi: cannot find this program's own path to find %s beside it: %w", ServerName, err)
	}
	path := filepath.Join(filepath.Dir(exe), ServerName)
	if st, err := os.Stat(path); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return "", missingServer(path)
	}
	return path, nil
}

// missingServer is the one line for a full binary that is not where the thin adi looks.
func missingServer(path string) error {
	return fmt.Errorf("adi: this command needs %s, the full adi, beside this adi, and %s is missing; build both with `make build`, or install both with `go install github.com/adi-bridge/adi/cmd/...@latest`", ServerName, path)
}

// ExecServer replaces this process by the full binary, given the same arguments (args: those
// after the program's name), so its stdin, stdout, stderr, process id and signals are the
// command's as if it had been started directly. It returns only when that fails.
func ExecServer(args []string) error {
	path, err := FindServer()
	if err != nil {
		return err
	}
	argv := append([]string{path}, args...)
	if err := syscall.Exec(path, argv, os.Environ()); err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return missingServer(path)
		}
		return fmt.Errorf("adi: cannot run %s: %w", path, err)
	}
	return nil
}

// versionText is the version line's text after "adi ": the version, the Go release, the
// platform.
func versionText() string {
	v := Version
	if bi, ok := debug.ReadBuildInfo(); ok && v == "dev" {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v = "dev-" + s.Value[:12]
			}
		}
	}
	return fmt.Sprintf("%s (%s %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
