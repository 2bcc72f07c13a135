package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goTool is the go command of the toolchain running the test.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestThinBinaryLinksNoServer checks what makes the thin adi start fast: it links package cli
// and the pure model only, none of the server, MCP, DAP, bridge or probe packages, and not
// net/http (TLS, HTTP/2) or the logger. A new import that pulls one of them in fails here.
func TestThinBinaryLinksNoServer(t *testing.T) {
	out, err := exec.Command(goTool(), "list", "-deps", ".").Output()
	require.NoError(t, err)
	own := map[string]bool{
		"github.com/adi-bridge/adi/cmd/adi":           true,
		"github.com/adi-bridge/adi/cli":               true,
		"github.com/adi-bridge/adi/adi":               true,
		"github.com/adi-bridge/adi/internal/errkind":  true,
		"github.com/adi-bridge/adi/internal/faces":    true,
		"github.com/adi-bridge/adi/internal/statedir": true,
		"github.com/adi-bridge/adi/internal/wire":     true,
	}
	for _, p := range strings.Fields(string(out)) {
		switch {
		case strings.HasPrefix(p, "github.com/adi-bridge/adi/"):
			assert.True(t, own[p], "the thin adi links %s: keep it out of package cli's imports (the full binary, cmd/adi-server, has it)", p)
		case strings.Contains(strings.SplitN(p, "/", 2)[0], "."):
			t.Errorf("the thin adi links the third-party package %s", p)
		case p == "net/http" || p == "crypto/tls" || p == "encoding/gob":
			t.Errorf("the thin adi links %s, whose initialisation and size a navigation command pays for", p)
		}
	}
}
