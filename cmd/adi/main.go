//go:build !windows

// Command adi is the command line of adi, which gives debugging agents and people a
// function-level view of a Python run over debugpy. Run `adi help` for the commands.
//
// This is the thin binary: it holds what the commands that talk to the CLI's daemon need
// (package cli: flags, the daemon client, starting the daemon, printing), so that a navigation
// command (`adi continue`) starts in about a millisecond and a half. Every other command (serve,
// mcp, dap, demo, doctor) is run by adi-server, the full binary, which must be installed beside
// this one: adi replaces itself by it (exec) with the same arguments, and starts it as the
// daemon. The test of this package checks that it links no server, MCP or DAP code.
package main

import (
	"context"
	"os"

	"github.com/adi-bridge/adi/cli"
)

func main() {
	ctx, stop := cli.InterruptContext(context.Background())
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.Options{Forward: cli.ExecServer, Server: cli.FindServer})
	stop()
	os.Exit(code)
}
