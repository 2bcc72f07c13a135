package dap_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/dap"
)

// freePort returns a loopback port nobody listens on (just closed).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

func TestAttachNothingListening(t *testing.T) {
	addr := freePort(t)
	start := time.Now()
	_, err := dap.AttachRun(context.Background(), context.Background(), dap.AttachOptions{Addr: addr})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.True(t, errors.Is(err, dap.ErrNoListener))
	assert.Equal(t, fmt.Sprintf("attach to %s: nothing listens there (connection refused); start the program with `python -m debugpy --listen %s prog.py`", addr, addr), err.Error())
}

// A peer that answers with something that is not DAP (an HTTP server, say) is refused at once.
func TestAttachNotDebugpy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				_, _ = bufio.NewReader(c).ReadString('}')
				_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
				_ = c.Close()
			}()
		}
	}()
	addr := ln.Addr().String()
	start := time.Now()
	_, err = dap.AttachRun(context.Background(), context.Background(), dap.AttachOptions{Addr: addr})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.True(t, errors.Is(err, dap.ErrNotDebugpy))
	assert.Equal(t, fmt.Sprintf("attach to %s: the peer is not a debugpy adapter (it answered something that is not DAP); is it `python -m debugpy --listen %s`?", addr, addr), err.Error())
}

// waitListening waits until a socket listens on the loopback address addr, without connecting
// to it (debugpy's adapter takes the first connection for its client).
func waitListening(t *testing.T, addr string) {
	t.Helper()
	_, port, _ := net.SplitHostPort(addr)
	var p int
	_, _ = fmt.Sscan(port, &p)
	want := fmt.Sprintf("0100007F:%04X 00000000:0000 0A", p)
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile("/proc/net/tcp")
		if strings.Contains(string(b), want) {
			return
		}
		require.True(t, time.Now().Before(deadline), "debugpy did not listen on %s", addr)
		time.Sleep(50 * time.Millisecond)
	}
}

// startListening starts `python -m debugpy --listen ADDR --wait-for-client` on a program that
// sleeps, with env added to its environment, and returns its address once it listens.
func startListening(t *testing.T, env ...string) string {
	t.Helper()
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import debugpy").Run() != nil {
		t.Skip("/usr/bin/python3 has no debugpy")
	}
	prog := filepath.Join(t.TempDir(), "sleep.py")
	require.NoError(t, os.WriteFile(prog, []byte("import time\nfor _ in range(600):\n    time.sleep(0.1)\n"), 0o644))
	addr := freePort(t)
	cmd := exec.Command(py, "-m", "debugpy", "--listen", addr, "--wait-for-client", prog)
	cmd.Env = append(os.Environ(), env...)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	waitListening(t, addr)
	return addr
}

// roundTrip attaches to addr and returns the mean time of a threads request.
func roundTrip(t *testing.T, ctx context.Context, addr string) time.Duration {
	r, err := dap.AttachRun(ctx, ctx, dap.AttachOptions{Addr: addr,
		Attach: map[string]any{"name": "t", "type": "python", "request": "attach", "justMyCode": true}})
	require.NoError(t, err)
	defer r.Close()
	assert.True(t, r.Attached())
	require.NoError(t, r.ConfigurationDone(ctx))
	for i := 0; i < 3; i++ {
		_, err := r.Client.Threads(ctx)
		require.NoError(t, err)
	}
	const n = 20
	start := time.Now()
	for i := 0; i < n; i++ {
		_, err := r.Client.Threads(ctx)
		require.NoError(t, err)
	}
	return time.Since(start) / n
}

// TestAttachRoundTrip attaches to real debugpy servers and times a threads request. Started
// plainly, debugpy's adapter and pydevd talk with Nagle's algorithm on and each answer waits for
// a delayed ACK (~45 ms; nothing on adi's end changes that, TCP_QUICKACK included); started with
// adi's NODELAY directory on PYTHONPATH it takes well under a millisecond. Run with -v for the
// numbers. Reattaching to the same server works (each roundTrip detaches).
func TestAttachRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("starts debugpy")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	plain := startListening(t)
	dir, err := dap.InstallNoDelay()
	require.NoError(t, err)
	fixed := startListening(t, "PYTHONPATH="+dir)
	for i := 0; i < 2; i++ {
		p, f := roundTrip(t, ctx, plain), roundTrip(t, ctx, fixed)
		t.Logf("threads round trip: %s plain, %s with adi's NODELAY directory on PYTHONPATH", p, f)
		assert.Less(t, f, 10*time.Millisecond)
	}
}

// A peer that accepts the connection and says nothing is refused after the handshake's limit.
func TestAttachSilentPeer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	addr := ln.Addr().String()
	start := time.Now()
	_, err = dap.AttachRun(context.Background(), context.Background(), dap.AttachOptions{Addr: addr})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 4*time.Second)
	assert.Equal(t, fmt.Sprintf("attach to %s: the peer is not a debugpy adapter (no DAP answer to initialize within 3s); is it `python -m debugpy --listen %s`?", addr, addr), err.Error())
}
