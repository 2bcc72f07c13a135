package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/server"
)

// markVar is the environment variable a fault test gives its targets (or the adi process it
// starts): every process they start inherits it, so the processes a test is responsible for are
// found by it even after they were re-parented, and never confused with another test's.
const markVar = "ADI_FAULT_MARK"

// newMark returns a fresh value for markVar.
func newMark(t testing.TB) string {
	t.Helper()
	var b [8]byte
	_, err := rand.Read(b[:])
	require.NoError(t, err)
	return hex.EncodeToString(b[:])
}

// markedProcs lists the live processes (zombies excluded) whose environment carries markVar=mark,
// leaving out the pids in except and the probe process an open session keeps ready for its next
// run (bridge/ready.go; TestReplayTakesTheRunKeptReady checks that it ends with its session).
func markedProcs(mark string, except ...int) []int {
	skip := map[int]bool{}
	for _, p := range except {
		skip[p] = true
	}
	return procsWhere(func(pid int) bool {
		return !skip[pid] && hasEnv(pid, markVar+"="+mark) && !hasArgs(pid, "--standby", "/ready-")
	})
}

// procsWhere lists the live processes (zombies excluded) other than this test process for which
// match is true.
func procsWhere(match func(pid int) bool) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || procState(pid) == 'Z' {
			continue
		}
		if match(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// hasEnv reports whether process pid's environment holds the entry kv ("NAME=value").
func hasEnv(pid int, kv string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, e := range bytes.Split(env, []byte{0}) {
		if string(e) == kv {
			return true
		}
	}
	return false
}

// hasArgs reports whether process pid's command line contains every one of args.
func hasArgs(pid int, args ...string) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	for _, a := range args {
		if !bytes.Contains(cmdline, []byte(a)) {
			return false
		}
	}
	return true
}

// procState returns the state letter of a process ('R', 'S', 'Z', ...), or 0 when it is gone.
func procState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// procCmdline returns a process's command line with spaces between the arguments.
func procCmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}

// describeProcs renders pids with their command lines, for failure messages.
func describeProcs(pids []int) string {
	var parts []string
	for _, p := range pids {
		parts = append(parts, strconv.Itoa(p)+" "+procCmdline(p))
	}
	return strings.Join(parts, "; ")
}

// requireNoMarked waits a little for the processes carrying mark to end (a killed process takes
// a moment to be reaped) and fails, naming them, if any is left. A leftover is then killed so
// that one failure does not leak into the next test.
func requireNoMarked(t testing.TB, mark string, except ...int) {
	t.Helper()
	var left []int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left = markedProcs(mark, except...)
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	desc := describeProcs(left)
	for _, p := range left {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	require.Empty(t, left, "processes outlived their run: %s", desc)
}

// waitPidFile waits for a target to write its pid into path (written whole: the target renames
// it into place) and returns it.
func waitPidFile(t testing.TB, path string) int {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		require.NoError(t, err, "pid file %s", path)
		return pid
	}
	t.Fatalf("the target never wrote %s", path)
	return 0
}

// writeProgram writes a Python program into dir and returns its path.
func writeProgram(t testing.TB, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	return p
}

// servedADI is an `adi serve` process started by a test, with its address and token.
type servedADI struct {
	cmd    *exec.Cmd
	url    string
	token  string
	stderr *bytes.Buffer
	exited chan error
}

// faultServe starts `adi serve` with its state in state and env added to the test's
// environment, and reads the address and token it prints.
func faultServe(t testing.TB, state string, env ...string) *servedADI {
	t.Helper()
	needPython(t)
	cmd := exec.Command(adiBinary(t), "serve")
	cmd.Env = append(append(os.Environ(), "ADI_STATE_DIR="+state), env...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	s := &servedADI{cmd: cmd, stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	cmd.Stderr = s.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	sc := bufio.NewScanner(out)
	require.True(t, sc.Scan(), "adi serve printed nothing; stderr: %s", s.stderr)
	s.url = strings.TrimPrefix(sc.Text(), "adi listening at ")
	require.True(t, sc.Scan(), "adi serve printed no token")
	s.token = strings.TrimPrefix(sc.Text(), "adi token ")
	go func() {
		_, _ = io.Copy(io.Discard, out)
		s.exited <- cmd.Wait()
	}()
	return s
}

// dial connects a WebSocket client to the served adi.
func (s *servedADI) dial(t testing.TB) *server.Client {
	t.Helper()
	c, _, err := server.Dial(context.Background(), s.url, s.token, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// stop sends sig and waits for the process to exit, returning its exit status.
func (s *servedADI) stop(t testing.TB, sig syscall.Signal) int {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(sig))
	select {
	case err := <-s.exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(60 * time.Second):
		t.Fatalf("adi serve did not exit after %v; stderr: %s", sig, s.stderr)
		return -1
	}
}
