package dapproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/dap"
)

// backend is the debug adapter one editor connection is forwarded to: a debugpy adapter the
// proxy started (over its stdio), or an adapter that is already running and listens on TCP (the
// parent adapter of a child process, or the adapter of a program that called debugpy.listen).
type backend struct {
	side  *side
	ad    *dap.Adapter // the adapter the proxy started; nil for TCP
	conn  net.Conn     // TCP; nil for a started adapter
	ended chan struct{}
	// quiet drops the adapter's events: while an initialize is replayed to a TCP adapter, its
	// telemetry repeats what the editor already has.
	quiet     atomic.Bool
	closeOnce sync.Once
}

// startBackend starts a debugpy adapter for one editor connection. The connection's teardown
// ends it (and, unless the editor asked to leave the debuggee running, every process of its run).
func startBackend(py *dap.Python, log hclog.Logger, tap func([]byte)) (*backend, error) {
	ad, err := dap.StartAdapter(context.Background(), dap.AdapterOptions{Python: py, Raw: true, Log: log})
	if err != nil {
		return nil, err
	}
	return &backend{side: newSide("adapter", ad.Conn, log, tap), ad: ad, ended: make(chan struct{})}, nil
}

// dialBackend connects to a debug adapter listening at addr.
func dialBackend(addr string, log hclog.Logger, tap func([]byte)) (*backend, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	return connBackend(conn, log, tap), nil
}

// connBackend is a backend on a connection to an adapter that is already running.
func connBackend(conn net.Conn, log hclog.Logger, tap func([]byte)) *backend {
	return &backend{side: newSide("adapter", dap.NewConn(conn, conn, conn), log, tap), conn: conn, ended: make(chan struct{})}
}

// close ends the connection; a started adapter ends with every process of its run.
func (b *backend) close() {
	b.closeOnce.Do(func() {
		if b.ad != nil {
			_ = b.ad.Close()
		} else {
			_ = b.conn.Close()
		}
	})
}

// detach ends the connection but leaves the debuggee running (the editor disconnected with
// terminateDebuggee false): a started adapter gets its stdio closed and time to exit after
// debugpy's disconnect; only the adapter process is killed if it does not.
func (b *backend) detach() {
	b.closeOnce.Do(func() {
		if b.ad == nil {
			_ = b.conn.Close()
			return
		}
		_ = b.ad.Conn.Close()
		go func() {
			t := time.NewTimer(detachLimit)
			defer t.Stop()
			select {
			case <-b.ad.Exited():
			case <-t.C:
				_ = syscall.Kill(b.ad.Pid(), syscall.SIGKILL)
			}
		}()
	})
}

// detachLimit is how long an adapter left by detach may take to exit.
const detachLimit = 5 * time.Second

// call sends one of the proxy's own requests and waits for its response. A refused request is an
// error with debugpy's message.
func (b *backend) call(ctx context.Context, command string, args any) (*dap.Message, error) {
	call, err := b.side.request(command, args)
	if err != nil {
		return nil, err
	}
	select {
	case <-call.Done():
	case <-ctx.Done():
		b.side.pending.Forget(call.Seq)
		return nil, fmt.Errorf("%s: no answer from the debug adapter: %w", command, ctx.Err())
	}
	m, err := call.Result()
	if m == nil {
		return nil, fmt.Errorf("%s: the debug adapter ended before it answered", command)
	}
	if err != nil {
		return m, fmt.Errorf("%s: the debug adapter refused: %s", command, m.ErrMessage)
	}
	return m, nil
}

// rawArgs lets a request carry arguments exactly as an editor sent them.
type rawArgs json.RawMessage

// MarshalJSON returns the arguments as they are ("{}" when none).
func (r rawArgs) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("{}"), nil
	}
	return r, nil
}
