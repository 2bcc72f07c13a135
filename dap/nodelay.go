package dap

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/adi-bridge/adi/internal/cachedir"
)

//go:embed nodelay/sitecustomize.py
var nodelayFS embed.FS

// InstallNoDelay writes the TCP_NODELAY sitecustomize into the cache and returns its directory.
func InstallNoDelay() (string, error) {
	sub, err := fs.Sub(nodelayFS, "nodelay")
	if err != nil {
		return "", err
	}
	return cachedir.Install(sub, "nodelay")
}

// PrependPath returns env with dir put first on the list variable key (PYTHONPATH), keeping what was
// there. A later assignment of key in env wins, as it does for exec.
func PrependPath(env []string, key, dir string) []string {
	prefix := key + "="
	old := ""
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if strings.HasPrefix(kv, prefix) {
			old = kv[len(prefix):]
			continue
		}
		out = append(out, kv)
	}
	val := dir
	if old != "" {
		val = dir + string(os.PathListSeparator) + old
	}
	return append(out, prefix+val)
}

// PathHas reports whether the PATH-like value list contains dir.
func PathHas(list, dir string) bool {
	for _, p := range filepath.SplitList(list) {
		if p == dir {
			return true
		}
	}
	return false
}
