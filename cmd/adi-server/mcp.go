package main

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/cli"
	"github.com/adi-bridge/adi/mcpserver"
)

func runMCP(ctx context.Context, g *globals, args []string) error {
	fs := newFlags("mcp", "[--idle-timeout 30m]", g)
	idle := fs.Duration("idle-timeout", 30*time.Minute, "close sessions unused for this long; their processes end, data stays (0: never)")
	pos, err := parse(fs, g, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.UsageError("adi: mcp takes no arguments (got %q); run `adi mcp -h`", pos[0])
	}
	mgr, err := bridge.NewManager(bridge.ManagerConfig{IdleTimeout: *idle, Log: g.log.Named("sessions")})
	if err != nil {
		return err
	}
	defer mgr.Shutdown()
	srv := mcpserver.New(mcpserver.Config{Manager: mgr, Python: g.Python, Version: cli.Version, Log: g.log.Named("mcp")})
	err = srv.Run(ctx, &mcp.StdioTransport{})
	if err != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil) {
		return nil // a signal ended it
	}
	return err
}
