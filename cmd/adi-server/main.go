// Command adi-server is the full adi: it runs every adi command, and it is the only binary that
// holds the server (`serve`, the CLI's daemon and the browser viewer), the MCP server (`mcp`), the
// DAP adapter (`dap`), `demo` and `doctor`. The thin `adi` (cmd/adi) runs the commands that talk
// to the daemon and hands these to adi-server, installed beside it, with the same arguments;
// `adi-server COMMAND` and `adi COMMAND` are the same command. The command line itself (its
// table, flags and messages) is package cli's, for both binaries.
package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/cli"
)

// serverCommands run the commands cli.ServerCommands names.
var serverCommands = map[string]func(ctx context.Context, g *globals, args []string) error{
	"serve":  runServe,
	"mcp":    runMCP,
	"dap":    runDAP,
	"demo":   runDemo,
	"doctor": runDoctor,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, options())
	stop()
	os.Exit(code)
}

// options give package cli this binary's commands; it starts itself as the daemon.
func options() cli.Options {
	cmds := map[string]cli.RunFunc{}
	for name, run := range serverCommands {
		cmds[name] = func(ctx context.Context, g *cli.Globals, args []string) error {
			return run(ctx, &globals{Globals: g}, args)
		}
	}
	return cli.Options{Commands: cmds, Server: os.Executable}
}

// globals are package cli's global flags and the logger made from them.
type globals struct {
	*cli.Globals
	log hclog.Logger
}

// newFlags is cli.NewFlags for this binary's commands.
func newFlags(name, usage string, g *globals) *flag.FlagSet {
	return cli.NewFlags(name, usage, g.Globals)
}

// parse is cli.Parse, then makes the logger the global flags ask for.
func parse(fs *flag.FlagSet, g *globals, args []string) ([]string, error) {
	pos, err := cli.Parse(fs, g.Globals, args)
	if err != nil {
		return nil, err
	}
	g.log = hclog.New(&hclog.LoggerOptions{Name: "adi", Level: hclog.LevelFromString(g.LogLevel), JSONFormat: g.LogJSON, Output: g.Stderr})
	return pos, nil
}
