package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/cli"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/dapproxy"
	"github.com/adi-bridge/adi/server"
)

// dapFinishWait bounds how long `adi dap` waits, when it ends, for the recordings of finished
// runs (the FLTs of the frames the editor stopped in).
const dapFinishWait = 2 * time.Minute

func runDAP(ctx context.Context, g *globals, args []string) error {
	fs := newFlags("dap", "[--listen 127.0.0.1:PORT]", g)
	listen := fs.String("listen", "", "serve DAP over TCP at this address (VS Code's debugServer); default: over stdio")
	allowRemote := fs.Bool("allow-remote", false, "allow --listen on an address other than loopback (anyone who reaches it can run code)")
	noRecord := fs.Bool("no-record", false, "only forward to debugpy; record nothing")
	timeout := fs.Duration("timeout", bridge.DefaultTimeout, "wall-clock limit of each re-run that records FLTs")
	pos, err := parse(fs, g, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.UsageError("adi: dap takes no arguments (got %q); run `adi dap -h`", pos[0])
	}
	if *listen != "" && !*allowRemote && !server.LoopbackAddr(*listen) {
		return cli.UsageError("adi: --listen %s is not a loopback address; DAP has no authentication: use 127.0.0.1:PORT, or add --allow-remote", *listen)
	}
	py, err := dap.FindPython(ctx, g.Python)
	if err != nil {
		return err
	}
	cfg := dapproxy.Config{Python: py, Log: g.log, Session: bridge.Options{Timeout: *timeout}}
	if !*noRecord {
		mgr, err := bridge.NewManager(bridge.ManagerConfig{Log: g.log})
		if err != nil {
			return err
		}
		defer mgr.Shutdown()
		cfg.Manager = mgr
		cfg.OnSession = func(id, dir string) {
			fmt.Fprintf(g.Stderr, "adi dap: recording the editor's run as session %s (%s)\n", id, dir)
		}
	}
	srv, err := dapproxy.NewServer(cfg)
	if err != nil {
		return err
	}
	defer srv.Close(dapFinishWait)
	if *listen != "" {
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			return fmt.Errorf("adi: cannot listen at %s: %w", *listen, err)
		}
		fmt.Fprintf(g.Stdout, "adi dap listening at %s\n", ln.Addr())
		return srv.Serve(ctx, ln)
	}
	// Over stdio, stdout carries DAP: nothing else may be printed there. Child processes'
	// sessions come back through a loopback listener of their own.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("adi: cannot open a loopback port for child sessions: %w", err)
	}
	go func() { _ = srv.Serve(ctx, ln) }()
	return srv.ServeConn(ctx, os.Stdin, os.Stdout, stdioCloser{})
}

// stdioCloser ends adi's side of a stdio connection.
type stdioCloser struct{}

func (stdioCloser) Close() error {
	_ = os.Stdout.Close()
	return os.Stdin.Close()
}

var _ io.Closer = stdioCloser{}

// serveDAP serves editors' DAP at addr inside `adi serve`, recording into mgr, so their runs are
// live sessions of the same server (API and viewer); h, the server's handler, answers the
// editors' adi/ requests. It returns a function that stops it.
func serveDAP(ctx context.Context, g *globals, mgr *bridge.Manager, h *server.Handler, addr string, allowRemote bool) (func(), error) {
	if !allowRemote && !server.LoopbackAddr(addr) {
		return nil, cli.UsageError("adi: --dap %s is not a loopback address; DAP has no authentication: use 127.0.0.1:PORT, or add --allow-remote", addr)
	}
	py, err := dap.FindPython(ctx, g.Python)
	if err != nil {
		return nil, err
	}
	srv, err := dapproxy.NewServer(dapproxy.Config{Python: py, Manager: mgr, Handler: h, Log: g.log.Named("dap"),
		Session: bridge.Options{Timeout: bridge.DefaultTimeout}})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("adi: cannot listen for DAP at %s: %w", addr, err)
	}
	fmt.Fprintf(g.Stdout, "adi dap listening at %s\n", ln.Addr())
	go func() { _ = srv.Serve(ctx, ln) }()
	return func() {
		_ = ln.Close()
		srv.Close(dapFinishWait)
	}, nil
}
