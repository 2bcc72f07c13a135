package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replayProgram copies one of testdata/replay's programs into a fresh directory, records it with
// call-tree (and the extra flags), and returns a CLI on it. Each program spends its first 25,000
// statements in busy(), past the first run's eager FLTs, so that work#2's FLT needs a re-run.
func replayProgram(t *testing.T, name string, flags ...string) *cliRun {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), mustRead(t, testdata(t, "replay"), name), 0o644))
	r := newCLI(t, dir)
	res := r.run(append([]string{"call-tree", "python3 " + name, "--depth", "1"}, flags...)...)
	require.Equal(t, 0, res.code, res.stderr)
	return r
}

// workFLT is the answer of `break CMD FILE:work#2` in every replay program, up to its notes.
func workFLT(module string, callLine int) string {
	return "break → " + module + ":work#2  (breakpoint on every call; adi continue moves to the next)\n\n" +
		"Frame: " + module + ":work#2   (caller " + module + ":<module>#1, line " + strconv.Itoa(callLine) + ")\n" +
		"Args: i = 1\n\n"
}

// TestReplayAddressArgument: an argument from id() differs in every run; argument fingerprints
// count an address as "an address", so the re-run that records work#2 replays the recording.
func TestReplayAddressArgument(t *testing.T) {
	r := replayProgram(t, "addr.py")
	res := r.run("break", "python3 addr.py", "addr.py:work#2")
	require.Equal(t, 0, res.code, res.stderr)
	head := workFLT("addr", 23) +
		"  16 | doubled = i * 2\n" +
		"     |   + doubled = 2\n" +
		"  17 | return doubled + 1\n\n" +
		"Return: 3\n"
	assert.Equal(t, head, res.stdout)
}

// TestReplayHashOrder: tuples of classes ordered by hash() (memory addresses) change the
// arguments of other calls from run to run; work#2 is still answered.
func TestReplayHashOrder(t *testing.T) {
	r := replayProgram(t, "order.py")
	for range 3 {
		res := r.run("break", "python3 order.py", "order.py:work#2")
		require.Equal(t, 0, res.code, res.stderr)
		head := workFLT("order", 36) +
			"  28 | doubled = i * 2\n" +
			"     |   + doubled = 2\n" +
			"  29 | return doubled + 1\n\n" +
			"Return: 3\n"
		require.True(t, strings.HasPrefix(res.stdout, head), res.stdout)
		assert.Regexp(t, `^(Note: this re-run differed from the recording \(order:ambiguous#\d's argument [ab] is \(.*\) in the re-run, \(.*\) in the recording\); the frames shown are the same invocations as recorded\n)?$`,
			strings.TrimPrefix(res.stdout, head))
		r.run("stop") // the next break records work#2 again in a new session
		r = replayProgram(t, "order.py")
	}
}

// TestReplaySeededRandom: random's unseeded generator draws the same numbers in every run of a
// session, so the re-run replays exactly (no note); with --no-seed pick's argument differs, which
// does not matter for work#2 (a re-run records values only for the frames it answers for, so it
// does not see it) but refuses pick#1 itself.
func TestReplaySeededRandom(t *testing.T) {
	r := replayProgram(t, "rand.py")
	res := r.run("break", "python3 rand.py", "rand.py:work#2")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, workFLT("rand", 24)+
		"  17 | doubled = i * 2\n"+
		"     |   + doubled = 2\n"+
		"  18 | return doubled + 1\n\n"+
		"Return: 3\n", res.stdout)

	r = replayProgram(t, "rand.py", "--no-seed")
	res = r.run("break", "python3 rand.py", "rand.py:work#2")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, workFLT("rand", 24)), res.stdout)

	// pick#1 itself differs in every unseeded run: refused, with the argument and its two values
	res = r.run("flt", "rand.py:pick#1")
	assert.Equal(t, 1, res.code, res.stdout)
	assert.Regexp(t, `^adi: cannot record the FLT of rand:pick#1: rand:pick#1's argument n is \d+ in the re-run, \d+ in the recording; the program does not run the same way twice \(it depends on time, input or the environment, or on randomness adi does not seed\)\n$`, res.stderr)
}

// TestReplayLookingChangesNothing: a lazy proxy whose __class__ evaluates it and a __repr__ that
// prints; under adi the program makes the same calls and prints the same output as plainly.
func TestReplayLookingChangesNothing(t *testing.T) {
	r := replayProgram(t, "lazy.py")
	plain, err := exec.Command("/usr/bin/python3", filepath.Join(r.dir, "lazy.py")).Output()
	require.NoError(t, err)
	require.Equal(t, "using\nNone\nevaluated\nTrue\n", string(plain))

	res := r.run("call-tree", "python3 lazy.py")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "Call tree of lazy:<module>#1 (depth 2, width 10):\n"+
		"lazy:<module>#1() → None\n"+
		"  lazy:Lazy#1() → class Lazy\n"+
		"  lazy:Lazy.__init__#1(self=Lazy(), factory=<function make at 0x…>) → None\n"+
		"  lazy:use#1(obj=Lazy(_factory=<function make at 0x…>, _…) → None\n"+
		"  lazy:Lazy.__class__#1(self) → <class 'int'>\n"+
		"    lazy:make#1() → 42\n", res.stdout)
	out, err := filepath.Glob(filepath.Join(r.state, "sessions", "*", "runs", "0000", "stdout"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, string(plain), string(mustReadFile(t, out[0])), "the recording run printed what the plain run printed")

	res = r.run("flt", "python3 lazy.py", "lazy.py:use#1")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "Frame: lazy:use#1   (caller lazy:<module>#1, line 31)\n"+
		"Args: obj = Lazy(_factory=<function make at 0x…>, _value=None)\n\n"+
		"  26 | print(\"using\")\n"+
		"  27 | return obj._value\n\n"+
		"Return: None\n", res.stdout)
}

// TestReplayStrayCall: a re-run records only the functions the replay check compares (work, its
// callers and callees); one that work#2 calls only in the re-run is not among them, and the FLT,
// which would not show that call, is refused with it named.
func TestReplayStrayCall(t *testing.T) {
	r := replayProgram(t, "stray.py")
	res := r.run("break", "python3 stray.py", "stray.py:work#2")
	assert.Equal(t, 1, res.code, res.stdout)
	assert.Equal(t, "adi: cannot record the FLT of stray:work#2: in the re-run stray:work#2 called stray:extra, which the recording "+
		"does not show as its call; the program does not run the same way twice (it depends on time, input or the environment, "+
		"or on randomness adi does not seed)\n", res.stderr)
	res = r.run("flt", "stray.py:work#3")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "Frame: stray:work#3   (caller stray:<module>#1, line 26)\n"), res.stdout)
}

// TestReplayTakesTheRunKeptReady: after a run, the session keeps a probe process ready for the
// next (its interpreter started, the probe imported, waiting on a FIFO); the re-run takes it and
// is the same as a cold one (its FLT, the output it captured), the next one is kept ready in its
// place, and stopping the daemon ends it and removes its FIFO.
func TestReplayTakesTheRunKeptReady(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "addr.py"), mustRead(t, testdata(t, "replay"), "addr.py"), 0o644))
	r := newCLI(t, dir)
	r.env = append(r.env, "ADI_LOG_LEVEL=debug") // the daemon's log says which run took it
	res := r.run("call-tree", "python3 addr.py", "--depth", "1")
	require.Equal(t, 0, res.code, res.stderr)
	sessions := filepath.Join(r.state, "sessions")
	ready := func() []int {
		return procsWhere(func(pid int) bool { return hasArgs(pid, "--standby", sessions) })
	}
	fifos := func() []string {
		m, err := filepath.Glob(filepath.Join(sessions, "*", "ready-*.fifo"))
		require.NoError(t, err)
		for i := range m {
			m[i] = filepath.Base(m[i])
		}
		return m
	}
	var kept []int
	for deadline := time.Now().Add(10 * time.Second); len(kept) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		kept = ready()
	}
	require.Len(t, kept, 1, "a probe process kept ready after the first run")
	assert.Equal(t, []string{"ready-1.fifo"}, fifos())

	res = r.run("break", "python3 addr.py", "addr.py:work#2")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, workFLT("addr", 23)+"  16 | doubled = i * 2\n"), res.stdout)
	log := string(mustReadFile(t, filepath.Join(r.state, "daemon.log")))
	assert.Regexp(t, `run finished: dir=\S+/runs/0000 .* kept_ready=false`, log)
	assert.Regexp(t, `run finished: dir=\S+/runs/0001 .* kept_ready=true`, log)
	// (its exit, after the answer, may wait for a machine busy with other work: a generous wait)
	for deadline := time.Now().Add(60 * time.Second); procState(kept[0]) != 0 && procState(kept[0]) != 'Z' && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	assert.Empty(t, procsWhere(func(pid int) bool { return pid == kept[0] }), "the process kept ready ran the re-run and ended")
	out, err := filepath.Glob(filepath.Join(sessions, "*", "runs", "0001", "stdout"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, "1\n3\n5\n", string(mustReadFile(t, out[0])), "the re-run's output, through the pipes of the process kept ready")
	var next []int
	for deadline := time.Now().Add(10 * time.Second); len(next) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		next = ready()
	}
	require.Len(t, next, 1, "another kept ready for the next re-run")
	assert.NotEqual(t, kept[0], next[0])
	assert.Equal(t, []string{"ready-2.fifo"}, fifos())

	res = r.run("stop")
	require.Equal(t, 0, res.code, res.stderr)
	for deadline := time.Now().Add(10 * time.Second); len(ready()) > 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	assert.Empty(t, ready(), "stopping the daemon ends the process kept ready")
	assert.Empty(t, fifos())
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}
