package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runBin runs bin with args in a fresh state directory and returns its exit code, stdout and
// stderr.
func runBin(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+t.TempDir(), "ADI_SESSION=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, out.String(), errb.String()
}

// TestThinADIForwards checks that the thin adi hands the full binary's commands to adi-server
// (same arguments, same output, same exit code) and lists them in its help.
func TestThinADIForwards(t *testing.T) {
	bin := adiBinary(t)
	server := filepath.Join(filepath.Dir(bin), "adi-server")
	code, viaThin, errText := runBin(t, bin, "serve", "-h")
	assert.Equal(t, 0, code)
	assert.Equal(t, "", errText, "help asked for goes to stdout")
	assert.True(t, strings.HasPrefix(viaThin, "Usage: adi serve [--listen"), viaThin)
	_, direct, _ := runBin(t, server, "serve", "-h")
	assert.Equal(t, direct, viaThin, "adi serve -h is adi-server serve -h")
	for _, args := range [][]string{{"help", "serve"}, {"serve", "--help"}} {
		code, out, errText := runBin(t, bin, args...)
		assert.Equal(t, 0, code, args)
		assert.Equal(t, viaThin, out, args)
		assert.Equal(t, "", errText, args)
	}

	code, _, errText = runBin(t, bin, "serve", "--listen", "10.1.2.3:0")
	assert.Equal(t, 2, code, "adi-server's exit code comes back through the thin adi")
	assert.Contains(t, errText, "10.1.2.3:0")

	code, out, _ := runBin(t, bin, "help")
	assert.Equal(t, 0, code)
	for _, c := range []string{"serve", "mcp", "dap", "demo", "doctor", "continue", "live", "version"} {
		assert.Contains(t, out, "\n  "+c+" ", c)
	}
	code, _, errText = runBin(t, bin, "serv")
	assert.Equal(t, 2, code)
	assert.Equal(t, "adi: unknown command \"serv\"; did you mean serve? (adi help lists the commands)\n", errText)
}

// TestThinADIWithoutServer checks the one line a thin adi installed without adi-server gives for
// a command it forwards and for a command that must start the daemon; the commands it runs
// itself still work.
func TestThinADIWithoutServer(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "adi")
	b, err := os.ReadFile(adiBinary(t))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(alone, b, 0o755))
	missing := filepath.Join(filepath.Dir(alone), "adi-server")
	want := "adi: this command needs adi-server, the full adi, beside this adi, and " + missing +
		" is missing; build both with `make build`, or install both with `go install github.com/adi-bridge/adi/cmd/...@latest`\n"

	code, out, errText := runBin(t, alone, "doctor")
	assert.Equal(t, 1, code)
	assert.Equal(t, "", out)
	assert.Equal(t, want, errText)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.py"), []byte("print(1)\n"), 0o644))
	cmd := exec.Command(alone, "call-tree", "python3 t.py")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+t.TempDir(), "ADI_SESSION=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Equal(t, want, stderr.String(), "no daemon and no adi-server to start one")

	code, out, _ = runBin(t, alone, "version")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "adi "), out)
}
