package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/cli"
	"github.com/adi-bridge/adi/server"
)

// viewer serves the browser viewer at "/"; the viewer's own wiring sets it. nil serves none.
var viewer http.Handler

func runServe(ctx context.Context, g *globals, args []string) error {
	fs := newFlags("serve", "[--listen 127.0.0.1:0] [--allow-remote] [--idle-timeout 30m] [--token T] [--exit-when-idle 0] [--dap ADDR] [--state-file F]", g)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on (HOST:PORT; port 0 picks a free one)")
	allowRemote := fs.Bool("allow-remote", false, "allow a --listen address other than loopback (the API runs code as you)")
	idle := fs.Duration("idle-timeout", 30*time.Minute, "close sessions unused for this long; their processes end, data stays (0: never)")
	token := fs.String("token", os.Getenv("ADI_TOKEN"), "the token clients must send (default $ADI_TOKEN, else a random one)")
	exitIdle := fs.Duration("exit-when-idle", 0, "stop once no session is open and nothing happened for this long (0: never)")
	stateFile := fs.String("state-file", "", "write the address, token and pid here (0600) and remove it on exit; the CLI's daemon uses it")
	dapListen := fs.String("dap", "", "also serve editors' DAP on this address (e.g. 127.0.0.1:4711): their runs appear live as sessions here")
	pos, err := parse(fs, g, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.UsageError("adi: serve takes no arguments (got %q); run `adi serve -h`", pos[0])
	}
	if err := server.CheckListen(*listen, *allowRemote); err != nil {
		return &cli.ExitError{Code: 2, Err: err}
	}
	if *token != "" {
		if err := server.CheckToken(*token); err != nil {
			return &cli.ExitError{Code: 2, Err: err}
		}
	}
	mgr, err := bridge.NewManager(bridge.ManagerConfig{IdleTimeout: *idle, Log: g.log.Named("sessions")})
	if err != nil {
		return err
	}
	defer mgr.Shutdown()
	srv, err := server.Start(server.Config{Listen: *listen, AllowRemote: *allowRemote, Token: *token, Manager: mgr,
		Python: g.Python, Static: viewer, ExitWhenIdle: *exitIdle, Log: g.log.Named("server")})
	if err != nil {
		return err
	}
	if *stateFile != "" {
		// The CLI that starts this daemon reads the first two lines below and may exit before the
		// others are written: a write to its closed pipe must fail, not kill the daemon with
		// SIGPIPE (Go's default for stdout) while it serves the CLI's call.
		signal.Ignore(syscall.SIGPIPE)
		info := cli.DaemonInfo{URL: srv.URL(), Token: srv.Token(), PID: os.Getpid()}
		if err := cli.WriteDaemonInfo(*stateFile, info); err != nil {
			_ = srv.Close(context.Background())
			return err
		}
		defer cli.RemoveDaemonInfo(*stateFile, os.Getpid())
	}
	fmt.Fprintf(g.Stdout, "adi listening at %s\n", srv.URL())
	fmt.Fprintf(g.Stdout, "adi token %s\n", srv.Token())
	if viewer != nil {
		fmt.Fprintf(g.Stdout, "adi viewer %s/#token=%s\n", srv.URL(), srv.Token())
	}
	if f, ok := g.Stdout.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	if *dapListen != "" {
		stop, err := serveDAP(ctx, g, mgr, srv.Handler(), *dapListen, *allowRemote)
		if err != nil {
			_ = srv.Close(context.Background())
			return err
		}
		defer stop()
	}
	g.log.Info("serving", "url", srv.URL(), "state", bridge.StateDir())
	select {
	case <-ctx.Done():
		g.log.Info("signal received; stopping")
	case <-srv.Stopped():
		g.log.Info("stop requested")
	}
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Close(cctx); err != nil {
		g.log.Warn("server did not close cleanly", "error", err)
	}
	return nil
}
