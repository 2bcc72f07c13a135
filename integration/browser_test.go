package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/examples"
)

// chromium is Debian's browser, the one the viewer's tests drive (scripts/deps.sh).
const chromium = "/usr/bin/chromium"

// TestBrowserViewer runs the viewer's end-to-end suite (integration/browser: node's test runner
// driving Debian's chromium with playwright-core) against the real adi binary: `adi serve` with
// a session that recorded the demo program, opened from the URL serve prints. With --dap, which
// serve has when its editors' face is built in, the suite also plays an editor on the DAP port
// (that test is skipped otherwise). Screenshots go to integration/artifacts/.
func TestBrowserViewer(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: the viewer's browser tests need Node.js 20 and chromium; run scripts/deps.sh")
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatal("chromium is not installed at " + chromium + ": the viewer's browser tests need it; run scripts/deps.sh")
	}
	suite, err := filepath.Abs("browser")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(suite, "node_modules", "playwright-core")); err != nil {
		t.Fatalf("the browser suite's npm packages are not installed: run scripts/deps.sh")
	}
	py := needPython(t)
	bin := adiBinary(t)

	demo := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(demo, "orders.py"), examples.Orders, 0o644))
	srv := startServe(t, bin, py.Path)
	srv.rpc(t, "session.create", map[string]any{"command": "python orders.py", "dir": demo, "id": "demo"})

	artifacts, err := filepath.Abs("artifacts")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(artifacts, 0o755))
	files, err := filepath.Glob(filepath.Join(suite, "test", "*.test.js"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	cmd := exec.Command(node, append([]string{"--test", "--test-concurrency=1", "--test-reporter=spec"}, files...)...)
	cmd.Dir = suite
	cmd.Env = append(os.Environ(), "ADI_VIEWER_URL="+srv.viewer, "ADI_URL="+srv.url, "ADI_TOKEN="+srv.token,
		"ADI_SESSION=demo", "ADI_DEMO_DIR="+demo, "ADI_ARTIFACTS="+artifacts, "ADI_CHROMIUM="+chromium, "ADI_DAP="+srv.dap)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the browser suite failed (%v); screenshots are in %s\n%s\nadi serve's log:\n%s", err, artifacts, out.String(), srv.log.String())
	}
	t.Logf("browser suite passed; screenshots in %s\n%s", artifacts, out.String())
}

// serveProc is a running `adi serve` and what it printed.
type serveProc struct {
	url, token, viewer, dap string
	log                     *syncBuffer // its stderr
}

// startServe starts `adi serve` on a free port (and `--dap` on another when this adi has it) with
// its own state directory, reads the lines it prints (address, token, viewer URL, DAP address),
// and stops it with SIGTERM when the test ends.
func startServe(t *testing.T, bin, python string) *serveProc {
	t.Helper()
	args := []string{"serve", "--python", python, "--log-level", "info"}
	lines := 3
	if help, _ := exec.Command(bin, "serve", "-h").CombinedOutput(); bytes.Contains(help, []byte("-dap")) {
		args = append(args, "--dap", "127.0.0.1:0")
		lines++
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	printed := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(stdout)
		for len(got) < lines && sc.Scan() {
			got = append(got, sc.Text())
		}
		printed <- got
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var got []string
	select {
	case got = <-printed:
	case <-time.After(30 * time.Second):
		t.Fatalf("adi serve printed nothing in 30s: %s", stderr.String())
	}
	require.Len(t, got, lines, "adi serve prints its address, its token, the viewer's URL (and the DAP address): %q %s", got, stderr.String())
	p := &serveProc{log: stderr}
	var ok bool
	p.url, ok = strings.CutPrefix(got[0], "adi listening at ")
	require.True(t, ok, got[0])
	p.token, ok = strings.CutPrefix(got[1], "adi token ")
	require.True(t, ok, got[1])
	p.viewer, ok = strings.CutPrefix(got[2], "adi viewer ")
	require.True(t, ok, got[2])
	require.Equal(t, p.url+"/#token="+p.token, p.viewer, "the viewer URL carries the token in its fragment")
	if lines == 4 {
		p.dap, ok = strings.CutPrefix(got[3], "adi dap listening at ")
		require.True(t, ok, got[3])
	}
	return p
}

// rpc calls one API method over HTTP and fails the test on an error.
func (p *serveProc) rpc(t *testing.T, method string, params any) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, p.url+"/api/rpc", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+p.token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var ans struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&ans))
	if ans.Error != nil {
		t.Fatalf("%s: %s", method, ans.Error.Message)
	}
}

// syncBuffer is a bytes.Buffer that a process writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
