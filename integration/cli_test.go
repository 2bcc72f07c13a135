package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/cli"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// TestMain removes the adi binaries the tests built, if they built them.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// adiBinary builds the two binaries once into a temporary directory, as `make build` does: the
// thin adi (cmd/adi) and beside it adi-server (cmd/adi-server), which runs serve, mcp, dap, demo
// and doctor for it. It returns the thin adi's path, which every test runs.
func adiBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "adi-integration-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "adi")
		cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator),
			"github.com/adi-bridge/adi/cmd/adi", "github.com/adi-bridge/adi/cmd/adi-server")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as `make build` builds them
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build ./cmd/adi ./cmd/adi-server: %v\n%s", err, out)
		}
	})
	require.NoError(t, binErr)
	return binPath
}

// waitProcessGone waits until process pid has ended.
func waitProcessGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !cli.ProcessGone(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// cliRun is the adi CLI of one agent: a working directory, an isolated state directory, and the
// daemon the first command starts, stopped (and checked gone, by pid) when the test ends.
type cliRun struct {
	t     *testing.T
	bin   string
	dir   string
	state string
	env   []string
}

func newCLI(t *testing.T, dir string) *cliRun {
	t.Helper()
	needPython(t)
	r := &cliRun{t: t, bin: adiBinary(t), dir: dir, state: t.TempDir()}
	r.env = append(os.Environ(), "ADI_STATE_DIR="+r.state, "ADI_SESSION=")
	t.Cleanup(r.stop)
	return r
}

// result is what one CLI command did.
type result struct {
	stdout, stderr string
	code           int
}

func (r *cliRun) run(args ...string) result {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(r.t, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// daemon reads the daemon's state file.
func (r *cliRun) daemon() cli.DaemonInfo {
	info, err := cli.ReadDaemonInfo(filepath.Join(r.state, "daemon.json"))
	require.NoError(r.t, err)
	return info
}

// stop runs `adi stop` and checks that the daemon's process is gone.
func (r *cliRun) stop() {
	info, err := cli.ReadDaemonInfo(filepath.Join(r.state, "daemon.json"))
	if err != nil {
		return // no daemon was started, or it already stopped
	}
	res := r.run("stop")
	assert.Equal(r.t, 0, res.code, res.stderr)
	assert.Equal(r.t, fmt.Sprintf("adi: stopped the daemon (pid %d); sessions stay on disk in %s\n", info.PID, r.state), res.stdout)
	assert.True(r.t, waitProcessGone(info.PID, 10*time.Second), "daemon pid %d is still running after adi stop", info.PID)
	_, err = os.Stat(filepath.Join(r.state, "daemon.json"))
	assert.True(r.t, os.IsNotExist(err), "the daemon's state file is removed")
}

// TestCLIPeerStyle debugs the demo program the way an agent with bash does, with the peer's
// command forms; only the first command records the program.
func TestCLIPeerStyle(t *testing.T) {
	dir := demoDir(t)
	r := newCLI(t, dir)
	cmd := "python orders.py"
	file := filepath.Join(dir, "orders.py")

	res := r.run("list-frames", cmd, file+":bulk_rate")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "Frames (3 total):\n"), res.stdout)
	assert.Contains(t, res.stdout, "target: "+file+":bulk_rate#3")
	assert.Regexp(t, "^adi: recorded `python orders.py`: 12 call\\(s\\) in \\d+ ms, exit status 0 \\(session cli-[0-9a-f]{12}\\)\n$", res.stderr)
	pid := r.daemon().PID

	res = r.run("break", cmd, file+":bulk_rate#3")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, fltBulkRate3)
	assert.Empty(t, res.stderr, "the same CMD reuses the recording")

	res = r.run("call-tree", cmd, "--depth", "2")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "Call tree of orders:bulk_rate#3 (depth 2, width 10):\n"), res.stdout)

	res = r.run("state")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "Breakpoints (1):\n  1. orders:bulk_rate  (every call)\nInspecting: orders:bulk_rate#3 (T[11]; the recording has 12 call(s))\n", res.stdout)

	res = r.run("prev")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "prev → orders:bulk_rate#2  (hit 2 of 3)\n"), res.stdout)
	res = r.run("continue", cmd)
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "continue → orders:bulk_rate#3  (hit 3 of 3)\n"), res.stdout)

	res = r.run("step-out")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "Frame: orders:line_total#3   (caller orders:price_items#1, line 31)\n")
	res = r.run("step-in", "orders:bulk_rate#3")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, fltBulkRate3)
	res = r.run("step-into", cmd, "bulk_rate#1")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "Args: qty = 12, rate = 0.1\n")

	res = r.run("diff", cmd, "bulk_rate#1", "bulk_rate#3")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "  qty: 12 | 10  ≠\n")

	res = r.run("flt", "bulk_rate#3")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, fltBulkRate3, res.stdout)

	res = r.run("list")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "Breakpoints (1):\n  1. orders:bulk_rate  (every call)\n", res.stdout)
	res = r.run("clear")
	require.Equal(t, 0, res.code, res.stderr)
	res = r.run("list", "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var ans struct {
		Command string `json:"command"`
		Result  struct {
			Breakpoints []any `json:"breakpoints"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &ans))
	assert.Equal(t, "list", ans.Command)
	assert.Empty(t, ans.Result.Breakpoints)

	res = r.run("sessions")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "python orders.py  (open; 12 calls, exit 0, at orders:bulk_rate#1) in "+dir)

	assert.Equal(t, pid, r.daemon().PID, "every command used the daemon the first one started")
}

// TestCLIExitCodes checks 2 for usage errors, 1 for failed commands and for a target that
// failed (with the answer still printed), and the exec command's statement forms.
func TestCLIExitCodes(t *testing.T) {
	dir := t.TempDir()
	greet, err := os.ReadFile(testdata(t, "greet.py"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "greet.py"), greet, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "orders.py"), mustRead(t, demoDir(t), "orders.py"), 0o644))
	r := newCLI(t, dir)

	res := r.run("continue")
	assert.Equal(t, 2, res.code)
	assert.Equal(t, fmt.Sprintf("adi: continue: no session yet in %s; give the target command first, e.g. adi continue \"python t.py\" ...\n", r.state), res.stderr)

	res = r.run("step-in", "python orders.py", "bulk_rate")
	assert.Equal(t, 2, res.code)
	assert.Equal(t, "adi: step-in: bulk_rate names a function; add the invocation index, e.g. bulk_rate#1; usage: adi step-in [\"CMD\"] FUNC#N [--full-watch A,B] [--loop N|--loop-index LINE:K]\n", res.stderr)
	res = r.run("break", "python orders.py")
	assert.Equal(t, 2, res.code)
	assert.Equal(t, "adi: break: the function is missing; usage: adi break [\"CMD\"] FILE:FUNC[#N] [--cond EXPR] [--on-entry|--on-return|--if-eval-lineno L] [--full-watch A,B] [--loop N|--loop-index LINE:K]\n", res.stderr)
	res = r.run("break", "python orders.py", "f", "--frobnicate")
	assert.Equal(t, 2, res.code)
	assert.Equal(t, "adi: unknown flag --frobnicate for break (adi break -h lists the flags)\n", res.stderr)
	res = r.run("break", "python orders.py", "f", "--ful-watch", "x")
	assert.Equal(t, 2, res.code)
	assert.Equal(t, "adi: unknown flag --ful-watch for break; did you mean --full-watch? (adi break -h lists the flags)\n", res.stderr)
	res = r.run("call-tree", "orders.py")
	assert.Equal(t, 2, res.code)
	assert.Equal(t, "adi: call-tree: orders.py is a file, not a frame: the target command is missing; give it first, quoted: adi call-tree \"python3 orders.py\" ...\n", res.stderr)

	res = r.run("step-in", "python orders.py", "nope#1") // the first command on orders.py: it records
	assert.Equal(t, 1, res.code)
	assert.True(t, strings.HasSuffix(res.stderr, "\nadi: no function \"nope\" in the recording (nothing of it was called, or it is not user code)\n"), res.stderr)

	res = r.run("call-tree", "python greet.py")
	assert.Equal(t, 1, res.code, "greet.py exits 3")
	assert.Contains(t, res.stdout, "greet:greet#1(name='ada', times=3) → 'hi adahi adahi ada'")
	assert.True(t, strings.HasSuffix(res.stderr, "adi: the target command failed (exit status 3); the answer above is still valid\n"), res.stderr)

	res = r.run("break", "python orders.py", "bulk_rate", "--cond", "rate > 0")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "break → orders:bulk_rate#1  (the first of 2 invocations where the condition held; adi continue moves to the next)\n\nFrame: orders:bulk_rate#1 "), res.stdout)

	res = r.run("exec", "python orders.py", "bulk_rate#3", "-l", "16", "-s", "print(qty, qty > BULK_QUANTITY)")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "10 False")
}

func mustRead(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return b
}

// TestCLIChangedSourceRecordsAgain checks that a command naming the target reuses the recording
// while the source is as recorded (also after the staleness check has cached the recording's
// files and watches them), and records again once a source file changed (touched, written in
// place, replaced by a rename), keeping the breakpoints.
func TestCLIChangedSourceRecordsAgain(t *testing.T) {
	dir := demoDir(t)
	r := newCLI(t, dir)
	cmd := "python orders.py"

	res := r.run("break", cmd, "orders.py:bulk_rate")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Regexp(t, "^adi: recorded `python orders.py`: 12 call\\(s\\)", res.stderr)
	for i := 0; i < 2; i++ {
		res = r.run("state", cmd)
		require.Equal(t, 0, res.code, res.stderr)
		assert.Empty(t, res.stderr, "the source is as recorded")
	}

	file := filepath.Join(dir, "orders.py")
	later := time.Now().Add(2 * time.Second)
	require.NoError(t, os.Chtimes(file, later, later))
	res = r.run("state", cmd)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Regexp(t, "^adi: recorded `python orders.py`: 12 call\\(s\\) in \\d+ ms, exit status 0 \\(session cli-[0-9a-f]{12}\\)\n$", res.stderr)
	assert.Equal(t, "Breakpoints (1):\n  1. orders:bulk_rate  (every call)\nInspecting: orders:<module>#1 (T[0]; the recording has 12 call(s))\n", res.stdout)

	// The daemon watches the recording's files and stats them only after an event: a change made
	// just before a command is seen by it, whichever way the file is written.
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	earlier := time.Now().Add(-time.Hour) // (the touch above left it in the future)
	require.NoError(t, os.Chtimes(file, earlier, earlier))
	for _, change := range []struct {
		how   string
		write func()
	}{
		{"written in place", func() { require.NoError(t, os.WriteFile(file, src, 0o644)) }},
		{"replaced by a rename", func() {
			tmp := file + ".tmp"
			require.NoError(t, os.WriteFile(tmp, src, 0o644))
			require.NoError(t, os.Rename(tmp, file))
		}},
	} {
		res = r.run("state", cmd)
		require.Equal(t, 0, res.code, res.stderr)
		assert.Empty(t, res.stderr, "%s: the source is as recorded before", change.how)
		time.Sleep(20 * time.Millisecond) // a file time later than the recording's creation
		change.write()
		res = r.run("state", cmd)
		require.Equal(t, 0, res.code, res.stderr)
		assert.Regexp(t, "^adi: recorded `python orders.py`: 12 call\\(s\\)", res.stderr, change.how)
	}
}

// focusProgram spends more steps than the eager FLTs' budget before it calls work, so that the
// first run records work#2's FLT only when the first command's focus asks for it.
const focusProgram = `def busy():
    total = 0
    for i in range(12500):
        total += i
    return total


def work(i):
    doubled = i * 2
    return doubled + 1


busy()
for i in range(3):
    print(work(i))
`

// TestCLIFirstCommandFocus checks that a session's first command that shows a frame eager FLTs
// do not reach is answered from the first run: the CLI passes the frame as session.create's focus.
func TestCLIFirstCommandFocus(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.py"), []byte(focusProgram), 0o644))
	r := newCLI(t, dir)
	cmd := "python3 t.py"

	res := r.run("break", cmd, "t.py:work#2")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Regexp(t, "^adi: recorded `python3 t.py`: 5 call\\(s\\) in \\d+ ms, exit status 0 \\(session cli-[0-9a-f]{12}\\)\n$", res.stderr)
	assert.Equal(t, "break → t:work#2  (breakpoint on every call; adi continue moves to the next)\n\n"+
		"Frame: t:work#2   (caller t:<module>#1, line 15)\nArgs: i = 1\n\n"+
		"   9 | doubled = i * 2\n     |   + doubled = 2\n  10 | return doubled + 1\n\nReturn: 3\n", res.stdout)
	runsDir := filepath.Join(r.state, "sessions", cli.SessionID(dir, cmd), "runs")
	runs, err := os.ReadDir(runsDir)
	require.NoError(t, err)
	assert.Len(t, runs, 1, "the first run recorded work#2's FLT")

	// work#3 was not in focus and starts after the eager FLTs' budget: showing it runs again.
	res = r.run("flt", "t:work#3")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "Frame: t:work#3   (caller t:<module>#1, line 15)\nArgs: i = 2\n")
	runs, err = os.ReadDir(runsDir)
	require.NoError(t, err)
	assert.Len(t, runs, 2, "work#3's FLT needed a second run")
}

// poolCallTree writes src as pool.py into a new directory and runs the first command there,
// `adi call-tree "python pool.py"`, which must succeed; it returns the CLI, the target command
// and the answer.
func poolCallTree(t *testing.T, src string) (*cliRun, string, result) {
	t.Helper()
	dir := t.TempDir()
	writeProgram(t, dir, "pool.py", src)
	r := newCLI(t, dir)
	cmd := "python pool.py"
	res := r.run("call-tree", cmd)
	require.Equal(t, 0, res.code, res.stderr)
	return r, cmd, res
}

// forkingProgram squares numbers in a multiprocessing pool (the fork start method: Linux's
// default before 3.14), so that square runs in the workers only.
const forkingProgram = `import multiprocessing


def square(x):
    return x * x


def main():
    with multiprocessing.get_context("fork").Pool(2) as pool:
        print(sorted(pool.map(square, range(5))))


if __name__ == "__main__":
    main()
`

// TestCLIForkedRunSaysSo runs a program whose work happens in forked workers: the recording holds
// the parent's calls, every answer says the program forked (and where first), and asking for the
// workers' function says why it is not there, instead of an answer that looks complete.
func TestCLIForkedRunSaysSo(t *testing.T) {
	r, cmd, res := poolCallTree(t, forkingProgram)
	assert.Regexp(t, "^adi: recorded `python pool.py`: 2 call\\(s\\) in \\d+ ms, exit status 0 \\(session cli-[0-9a-f]{12}\\)\n$", res.stderr)
	assert.Equal(t, "Call tree of pool:<module>#1 (depth 2, width 10):\n"+
		"Note: the program forked 2 times (the first in pool:main#1); adi records this process only, so calls made in a forked child are not in the recording.\n"+
		"pool:<module>#1() → None\n"+
		"  pool:main#1() → None\n", res.stdout)
	res = r.run("break", cmd, "pool.py:square")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: no function \"pool.py:square\" in the recording (nothing of it was called, or it is not user code); "+
		"the program forked 2 times (the first in pool:main#1); adi records this process only, so calls made in a forked child are not in the recording.\n", res.stderr)
}

// threadProgram squares numbers in a thread pool of one worker.
const threadProgram = `from concurrent.futures import ThreadPoolExecutor


def square(x):
    return x * x


def main():
    with ThreadPoolExecutor(1) as ex:
        print(list(ex.map(square, range(3))))


main()
`

// TestCLIThreadsNamed: calls a worker thread ran are entry frames of the recording, shown with
// their thread's name in the call tree and in the FLT's header.
func TestCLIThreadsNamed(t *testing.T) {
	r, cmd, res := poolCallTree(t, threadProgram)
	assert.Equal(t, "Call tree of the run: 4 entry frames (depth 2, width 10):\n"+
		"pool:<module>#1() → None\n"+
		"  pool:main#1() → None\n"+
		"pool:square#1(x=0) → 0  [thread ThreadPoolExecutor-0_0]\n"+
		"pool:square#2(x=1) → 1  [thread ThreadPoolExecutor-0_0]\n"+
		"pool:square#3(x=2) → 4  [thread ThreadPoolExecutor-0_0]\n", res.stdout)
	res = r.run("break", cmd, "pool.py:square#2")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "\nFrame: pool:square#2   (entry frame, thread ThreadPoolExecutor-0_0)\nArgs: x = 1\n")
}
