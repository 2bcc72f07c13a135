package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/live"
)

// The shop server (testdata/live/shop_server.py) under adi live: a watch on its request handler
// records each request's invocation as it is served, without pausing the server.

var portLine = regexp.MustCompile(`listening on port (\d+)`)

// shopPort waits for the server's "listening on port N" line in the session's output.
func shopPort(t *testing.T, s *live.Session) int {
	t.Helper()
	var seen strings.Builder
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		a := lv(t, s, status)
		seen.WriteString(a.Output.Stdout)
		if m := portLine.FindStringSubmatch(seen.String()); m != nil {
			var port int
			_, _ = fmt.Sscan(m[1], &port)
			return port
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server never said its port; output: %q", seen.String())
	return 0
}

// get asks the shop for a quote and returns the body.
func get(t *testing.T, port int, path string) string {
	t.Helper()
	c := http.Client{Timeout: 20 * time.Second}
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, "%s", b)
	return string(b)
}

// caughtFIDs waits until the watches caught n invocations that returned, and returns them.
func caughtFIDs(t *testing.T, s *live.Session, n int) []string {
	t.Helper()
	var last []live.WatchInfo
	for i := 0; i < 200; i++ {
		a := lv(t, s, live.Cmd{Name: live.CmdCaught})
		last = a.Result.([]live.WatchInfo)
		var fids []string
		running := 0
		for _, w := range last {
			fids = append(fids, w.Caught...)
			running += w.Running
		}
		if len(fids) >= n && running == 0 {
			return fids
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("the watches did not catch %d returned invocations: %+v", n, last)
	return nil
}

func TestLiveWatchServer(t *testing.T) {
	le := newLiveEnv(t)
	s, _ := le.start(t, "python shop_server.py", 30*time.Second)
	a := lv(t, s, live.Cmd{Name: live.CmdWatch, Func: "handle"})
	assert.Equal(t, "Watching handle: every following invocation is recorded (its FLT and the calls below it) as the program runs, without pausing it. "+
		"The program has not started: the watch is in place before its first line. live.caught lists what it caught; adi.flt FUNC#N shows one.",
		firstPara(a.Text))
	a = lv(t, s, live.Cmd{Name: live.CmdContinue, Background: true})
	assert.Equal(t, live.Running, a.State)
	port := shopPort(t, s)

	assert.JSONEq(t, `{"item": "apple", "qty": 2, "total": 6}`, get(t, port, "/quote/apple/2"))
	assert.JSONEq(t, `{"item": "pear", "qty": 4, "total": 18}`, get(t, port, "/quote/pear/4"))
	assert.JSONEq(t, `{"item": "kiwi", "qty": 1, "total": 0}`, get(t, port, "/quote/kiwi/1"))
	assert.Equal(t, []string{"shop_server:handle#1", "shop_server:handle#2", "shop_server:handle#3"}, caughtFIDs(t, s, 3))
	listed := live.List(le.reg)
	require.Len(t, listed, 1)
	assert.Equal(t, 3, listed[0].Caught, "listings count the caught invocations")

	// Every ADI command answers about the caught invocations, from the recording.
	ctx := context.Background()
	rec := le.reg.Open(s.ID)
	require.NotNil(t, rec)
	assert.Equal(t, fltHandle2, adiDo(t, ctx, rec, "flt shop_server:handle#2"))
	assert.Equal(t, `Call tree of shop_server:handle#2 (depth 2, width 10):
shop_server:handle#2(method='GET', path='/quote/pear/4') → (200, {'item': 'pear', 'qty': 4, 'total…
  shop_server:quote#2(item='pear', qty=4) → 18
`, adiDo(t, ctx, rec, "call-tree shop_server:handle#2"))
	diff := adiDo(t, ctx, rec, "diff shop_server:handle#1 shop_server:handle#3")
	assert.Contains(t, diff, `Args (A | B):
  method = 'GET' (same)
  path: '/quote/apple/2' | '/quote/kiwi/1'  ≠
Outcome (A | B): (200, {'item': 'apple', 'qty': 2, 'total': 6}) | (200, {'item': 'kiwi', 'qty': 1, 'total': 0})  ≠
Steps: A 5, B 5, aligned by the lines they ran; 4 differ.`)
	// The callees were recorded forward too: step into the bulk price of the second request.
	into := adiDo(t, ctx, rec, "step-into shop_server:quote#2")
	assert.Contains(t, into, "Frame: shop_server:quote#2   (caller shop_server:handle#2, line 21)\nArgs: item = 'pear', qty = 4\n")
	assert.Contains(t, into, "  13 | if qty > BULK:  → True\n  14 | total = total * 9 // 10\n     |   ~ total = 18 (was 20)\n")
	// break and continue over the caught invocations
	assert.Contains(t, adiDo(t, ctx, rec, "break shop_server:handle"),
		"Matches 3 invocation(s): shop_server:handle#1, shop_server:handle#2, shop_server:handle#3.")
	assert.Equal(t, "shop_server:handle#3", curFID(t, ctx, rec, "continue"), "the next hit after quote#2")
	assert.Equal(t, "shop_server:handle#2", curFID(t, ctx, rec, "prev"))
	assert.Equal(t, "shop_server:handle#1", curFID(t, ctx, rec, "prev"))
	assert.Equal(t, "exec runs a statement in a frame of a re-run, and shop_server:handle#2 ran in live session "+s.ID+"'s program, which cannot be re-run "+
		"(the invocation has returned; its FLT shows what it did); to run code in a frame of the live program, pause it there (live.set_breakpoint) and use live.interact",
		adiErr(t, ctx, rec, "exec shop_server:handle#2 print(qty)"))

	// The watch removed, the server keeps serving and nothing more is caught.
	a = lv(t, s, live.Cmd{Name: live.CmdUnwatch, Func: "handle"})
	assert.Equal(t, "No longer watching handle; what was caught stays (live.caught).", firstPara(a.Text))
	assert.JSONEq(t, `{"item": "apple", "qty": 5, "total": 13}`, get(t, port, "/quote/apple/5"))
	assert.Equal(t, []string{"shop_server:handle#1", "shop_server:handle#2", "shop_server:handle#3"}, caughtFIDs(t, s, 3))
	_, err := live.Close(le.reg, s.ID)
	require.NoError(t, err)
}

// firstPara is an answer's text up to its summary.
func firstPara(text string) string {
	head, _, _ := strings.Cut(text, "\n\n")
	return head
}

// adiDo runs one ADI command line on a session and returns its text (it must be answered).
func adiDo(t *testing.T, ctx context.Context, s *bridge.Session, line string) string {
	t.Helper()
	cmd, err := adi.ParseCommand(line)
	require.NoError(t, err, line)
	ans, err := s.Do(ctx, cmd, adi.TextOptions{})
	require.NoError(t, err, line)
	return faces.WebSocket.Render(ans.Text)
}

// curFID runs a navigation command and returns the frame it moved to.
func curFID(t *testing.T, ctx context.Context, s *bridge.Session, line string) string {
	t.Helper()
	adiDo(t, ctx, s, line)
	return s.Info().Current
}

// adiErr runs one ADI command line that must fail and returns its message.
func adiErr(t *testing.T, ctx context.Context, s *bridge.Session, line string) string {
	t.Helper()
	cmd, err := adi.ParseCommand(line)
	require.NoError(t, err, line)
	_, err = s.Do(ctx, cmd, adi.TextOptions{})
	require.Error(t, err, line)
	return wsError(err)
}

// TestLiveWatchPausedFrame: paused at a breakpoint inside a watched invocation, flt shows what it
// has done so far; flt --finish lets the program run until it returns and shows the whole FLT.
func TestLiveWatchPausedFrame(t *testing.T) {
	le := newLiveEnv(t)
	s, _ := le.start(t, "python shop_server.py", 30*time.Second)
	lv(t, s, live.Cmd{Name: live.CmdWatch, Func: "handle"})
	lv(t, s, live.Cmd{Name: live.CmdContinue, Background: true})
	port := shopPort(t, s)
	lv(t, s, bp("shop_server.py:22"))

	body := make(chan string, 1)
	go func() {
		c := http.Client{Timeout: 30 * time.Second}
		resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/quote/pear/4", port))
		if err != nil {
			body <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body <- string(b)
	}()
	a := lv(t, s, cont)
	require.Equal(t, live.Runtime, a.State, a.Text)
	assert.Equal(t, []string{"shop_server.py:22 handle"}, frames(a)[len(frames(a))-1:])

	a = lv(t, s, live.Cmd{Name: live.CmdFLT})
	assert.Equal(t, `shop_server:handle#1 so far (it is still running; live.flt finish records it to its end):
Frame: shop_server:handle#1   (entry frame)
Args: method = 'GET', path = '/quote/pear/4'

  19 | parts = path.strip("/").split("/")
     |   + parts = ['quote', 'pear', '4']
  20 | item, qty = parts[1], int(parts[2])
     |   + item = 'pear'
     |   + qty = 4
  21 | total = quote(item, qty)
     |   + total = 18
     |   → shop_server:quote#1 → 18

Running: this invocation had not returned when its FLT was read; the program runs on.`, firstPara2(a.Text))

	a = lv(t, s, live.Cmd{Name: live.CmdFLT, Finish: true})
	assert.Equal(t, live.Running, a.State)
	assert.Contains(t, a.Text, `  22 | body = {"item": item, "qty": qty, "total": total}
     |   + body = {'item': 'pear', 'qty': 4, 'total': 18}
  23 | return 200, body

Return: (200, {'item': 'pear', 'qty': 4, 'total': 18})`)
	select {
	case b := <-body:
		assert.JSONEq(t, `{"item": "pear", "qty": 4, "total": 18}`, b)
	case <-time.After(20 * time.Second):
		t.Fatal("the request was never answered after flt --finish")
	}

	// A frame no watch recorded: flt says why and what to do.
	lv(t, s, live.Cmd{Name: live.CmdUnwatch})
	lv(t, s, bp("shop_server.py:12"))
	go func() { _, _ = http.Get(fmt.Sprintf("http://127.0.0.1:%d/quote/apple/1", port)) }()
	a = lv(t, s, cont)
	require.Equal(t, live.Runtime, a.State, a.Text)
	_, err := s.Do(context.Background(), live.Cmd{Name: live.CmdFLT})
	assert.Equal(t, "the paused invocation (shop_server.py:12 in quote) is not being recorded: only invocations that start while a watch on their function is on are; live.watch quote, then let the program call it again", wsError(err))
}

// firstPara2 is an answer's text before its summary (which starts with the session's rule line).
func firstPara2(text string) string {
	head, _, _ := strings.Cut(text, "\n\n── live")
	return head
}

// TestLiveWatchAttached: a server its owner started under debugpy's server, attached to with
// adi live attach: the first watch pauses the program, starts adi's watch recorder in its
// threads and resumes it; then the watch catches the requests that follow, as in a launched
// session.
func TestLiveWatchAttached(t *testing.T) {
	needPython(t)
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import debugpy").Run() != nil {
		t.Skip("/usr/bin/python3 has no debugpy")
	}
	dir := t.TempDir()
	src, err := os.ReadFile(testdata(t, "live/shop_server.py"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "shop_server.py"), src, 0o644))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cmd := exec.Command(py, "-m", "debugpy", "--listen", addr, "--wait-for-client", "shop_server.py")
	cmd.Dir = dir
	var out lockedBuffer // debugpy redirects the program's output to adi only once attached: read both
	cmd.Stdout = &out
	require.NoError(t, cmd.Start())
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-waited
	})
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir(), Log: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(mgr.Shutdown)
	ctx := context.Background()
	var s *live.Session
	require.Eventually(t, func() bool {
		s, _, err = live.Launch(ctx, mgr, "shop", false, live.Options{Attach: addr, Dir: dir, Timeout: 20 * time.Second})
		return err == nil
	}, 20*time.Second, 100*time.Millisecond, "attach to %s", addr)

	lv(t, s, live.Cmd{Name: live.CmdContinue, Background: true})
	var port int
	require.Eventually(t, func() bool {
		m := portLine.FindStringSubmatch(out.String() + lv(t, s, status).Output.Stdout)
		if m != nil {
			_, _ = fmt.Sscan(m[1], &port)
		}
		return m != nil
	}, 20*time.Second, 50*time.Millisecond, "the server's port")
	a := lv(t, s, live.Cmd{Name: live.CmdWatch, Func: "handle"})
	assert.Equal(t, "Watching handle: every following invocation is recorded (its FLT and the calls below it) as the program runs, without pausing it. "+
		"It matches shop_server:handle. live.caught lists what it caught; adi.flt FUNC#N shows one.", firstPara(a.Text))
	assert.Equal(t, live.Running, a.State, "the program was paused to start the recorder in its threads, and resumed")
	assert.JSONEq(t, `{"item": "apple", "qty": 2, "total": 6}`, get(t, port, "/quote/apple/2"))
	assert.JSONEq(t, `{"item": "pear", "qty": 4, "total": 18}`, get(t, port, "/quote/pear/4"))
	assert.Equal(t, []string{"shop_server:handle#1", "shop_server:handle#2"}, caughtFIDs(t, s, 2))
	assert.Contains(t, adiDo(t, ctx, mgr.Open("shop"), "flt shop_server:handle#2"), "Args: method = 'GET', path = '/quote/pear/4'\n")
	a, err = live.Close(mgr, "shop")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(a.Text, "Closed live session shop: adi detached from the program"), a.Text)
	assert.JSONEq(t, `{"item": "kiwi", "qty": 1, "total": 0}`, get(t, port, "/quote/kiwi/1"), "the program keeps serving after adi detached")
}

// lockedBuffer is a bytes.Buffer safe for a process writing it while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
