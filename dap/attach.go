package dap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
)

// AttachOptions says how to attach to a program that runs debugpy's server itself
// (`python -m debugpy --listen HOST:PORT prog.py`): adi did not start it and does not end it.
type AttachOptions struct {
	// Addr is the HOST:PORT debugpy listens on.
	Addr string
	// Attach is the attach request's arguments.
	Attach any
	// Exceptions and Configure are as in RunOptions: sent before configurationDone.
	Exceptions []string
	Configure  func(context.Context, *Client) error
	Hooks      PumpHooks
	Log        hclog.Logger
}

// Attach errors are one line each; they wrap these so callers can tell them apart.
var (
	// ErrNoListener: nothing accepts connections at the address.
	ErrNoListener = errors.New("nothing listens there")
	// ErrNotDebugpy: the peer accepted the connection but does not answer as debugpy's adapter.
	ErrNotDebugpy = errors.New("not a debugpy adapter")
)

// dialTimeout bounds the TCP connect; handshakeTimeout bounds initialize's answer (a peer that
// is not debugpy usually says nothing at all).
const (
	dialTimeout      = 3 * time.Second
	handshakeTimeout = 3 * time.Second
	detachTimeout    = 2 * time.Second
)

// AttachRun connects to debugpy's adapter at opts.Addr, sends initialize and attach, waits for
// the initialized event, sets the exception filters and runs Configure, without sending
// configurationDone (ConfigurationDone does): a program started with --wait-for-client waits
// until then, so breakpoints set before it are in place; any other program runs on meanwhile.
// The Run has no Adapter: Close detaches (configurationDone if it was not sent, then disconnect
// with terminateDebuggee false) and leaves the program running. ctx bounds the attach; life bounds the connection (when it ends, adi detaches).
func AttachRun(ctx, life context.Context, opts AttachOptions) (*Run, error) {
	if opts.Log == nil {
		opts.Log = hclog.NewNullLogger()
	}
	log := opts.Log
	d := net.Dialer{Timeout: dialTimeout}
	nc, err := d.DialContext(ctx, "tcp", opts.Addr)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("attach to %s: %w (connection refused); start the program with `python -m debugpy --listen %s prog.py`", opts.Addr, ErrNoListener, opts.Addr)
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, fmt.Errorf("attach to %s: %w (no answer to the connection within %s)", opts.Addr, ErrNoListener, dialTimeout)
		}
		return nil, fmt.Errorf("attach to %s: %w", opts.Addr, err)
	}
	// Go sets TCP_NODELAY on adi's end, and each message leaves in one write (Conn.WriteRaw).
	// Tuning adi's end further does not help: the ~40 ms a request can take is Nagle's algorithm
	// and the delayed ACK between debugpy's adapter and pydevd, two processes adi did not start
	// (TCP_QUICKACK on adi's end measured the same, 45 ms per threads request). The program's
	// owner can start it with adi's NODELAY directory on PYTHONPATH (docs/api.md, live.attach).
	c := NewClient(NewConn(nc, nc, nc), log.Named("dap"))
	hooks := opts.Hooks
	if hooks.Log == nil {
		hooks.Log = log
	}
	r := &Run{Client: c, Pump: NewPump(c, hooks)}
	var once sync.Once // Close may come from life's end and a caller at once: one disconnect, both wait for it
	r.detach = func() { once.Do(func() { r.detachNow() }) }
	go func() {
		select {
		case <-life.Done():
			r.Close()
		case <-c.Done():
		}
	}()
	if spoke, err := r.attach(ctx, opts); err != nil {
		if !spoke { // a peer that does not speak DAP gets no disconnect to wait for
			_ = c.Close()
		}
		r.Close()
		return nil, err
	}
	return r, nil
}

// attach runs the handshake; spoke reports whether the peer answered initialize.
func (r *Run) attach(ctx context.Context, opts AttachOptions) (spoke bool, err error) {
	c := r.Client
	hctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	_, err = c.Initialize(hctx)
	timedOut := hctx.Err() == context.DeadlineExceeded
	cancel()
	if err != nil {
		opts.Log.Debug("initialize failed", "error", err)
		var re *ResponseError
		if errors.As(err, &re) {
			return true, fmt.Errorf("attach to %s: debugpy refused initialize: %s", opts.Addr, re.Message)
		}
		why := "it closed the connection"
		if timedOut && ctx.Err() == nil {
			why = fmt.Sprintf("no DAP answer to initialize within %s", handshakeTimeout)
		} else if ctx.Err() != nil {
			return false, fmt.Errorf("attach to %s: %w", opts.Addr, ctx.Err())
		} else if cerr := c.Err(); cerr != nil && strings.Contains(cerr.Error(), ErrMalformed.Error()) {
			why = "it answered something that is not DAP"
		}
		return false, fmt.Errorf("attach to %s: the peer is %w (%s); is it `python -m debugpy --listen %s`?", opts.Addr, ErrNotDebugpy, why, opts.Addr)
	}
	call, err := c.toConfiguration(ctx, "attach", opts.Attach, c.configuration(opts.Exceptions, opts.Configure))
	if err != nil {
		return true, fmt.Errorf("attach to %s: %w", opts.Addr, err)
	}
	r.launch = call
	return true, nil
}

// Attached reports whether the run is attached to a program adi did not start.
func (r *Run) Attached() bool { return r.Adapter == nil }

// detachNow ends the configuration phase if that was not done (a program waiting for its
// client starts), sends disconnect (terminateDebuggee false: the program runs on) and closes the
// connection; it waits at most detachTimeout for debugpy's answers.
func (r *Run) detachNow() {
	c := r.Client
	select {
	case <-c.Done():
	default:
		ctx, cancel := context.WithTimeout(context.Background(), detachTimeout)
		if r.launch != nil && !r.configured.Load() {
			_ = r.ConfigurationDone(ctx)
		}
		_ = c.Disconnect(ctx, false)
		cancel()
	}
	_ = c.Close()
}

// Configured reports whether configurationDone was sent.
func (r *Run) Configured() bool { return r.configured.Load() }
