package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/adi-bridge/adi/internal/errkind"
)

// This file is adi's command line: the table of commands, the flags every command takes, and
// Main, which runs one command line. Both binaries run it: the thin `adi` (cmd/adi), which runs
// the commands that talk to the daemon and forwards the others to the full binary, and the full
// `adi-server` (cmd/adi-server), which runs every command. So this package must not import the
// server, MCP or DAP packages: cmd/adi's test checks what the thin binary links.

// Version is adi's version, set at build time with
// -ldflags "-X github.com/adi-bridge/adi/cli.Version=...".
var Version = "dev"

// ServerName is the file name of the full binary, which runs the commands of serverCommands
// (the daemon, MCP, DAP, demo, doctor); the thin adi finds it in its own directory.
const ServerName = "adi-server"

// serverCommands are the commands the full binary runs, with their summaries. The thin adi lists
// them in its help and forwards them; the full binary gives each its function (Options.Commands).
var serverCommands = map[string]string{
	"serve":  "serve the JSON-RPC API over WebSocket and HTTP (prints its address and token)",
	"mcp":    "serve ADI as MCP tools on stdin/stdout (for MCP clients)",
	"dap":    "debug adapter for editors: forwards to debugpy and records the run",
	"demo":   "investigate the bundled buggy program (orders.py) with ADI",
	"doctor": "check python, debugpy and the DAP round trip",
}

// ServerCommands returns the names of the commands the full binary runs.
func ServerCommands() []string {
	names := make([]string, 0, len(serverCommands))
	for n := range serverCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// RunFunc runs one command with the arguments after its name.
type RunFunc func(ctx context.Context, g *Globals, args []string) error

// Options say what the binary running Main holds.
type Options struct {
	// Commands run the commands of ServerCommands this binary holds (the full binary: all).
	Commands map[string]RunFunc
	// Forward runs a command of ServerCommands that Commands lacks, with the whole argument
	// list: the thin adi replaces itself by the full binary (ExecServer). It returns only when
	// that fails.
	Forward func(args []string) error
	// Server returns the binary that runs the daemon (`adi-server serve`): the full binary's
	// own path, or the one next to the thin adi (FindServer).
	Server func() (string, error)
}

// ExitError carries a process exit code with an error already worth printing.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// UsageError marks an error in how adi was called (exit code 2).
func UsageError(format string, a ...any) error {
	return &ExitError{Code: 2, Err: fmt.Errorf(format, a...)}
}

// Globals are the flags every command takes, and the process's output.
type Globals struct {
	LogLevel string
	LogJSON  bool
	Python   string
	Stdout   io.Writer
	Stderr   io.Writer
	opts     *Options
}

func (g *Globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.LogLevel, "log-level", envOr("ADI_LOG_LEVEL", "warn"), "log level: trace, debug, info, warn, error")
	fs.BoolVar(&g.LogJSON, "log-json", false, "write logs as JSON lines")
	fs.StringVar(&g.Python, "python", "", "python interpreter with debugpy (default: $ADI_PYTHON, python3 on PATH, /usr/bin/python3)")
}

// setup checks the global flags. The full binary makes its logger from them (hclog, which the
// thin adi does not link: its commands log nothing).
func (g *Globals) setup() error {
	switch strings.ToLower(strings.TrimSpace(g.LogLevel)) {
	case "trace", "debug", "info", "warn", "error":
		return nil
	}
	return UsageError("adi: unknown --log-level %q; use trace, debug, info, warn or error", g.LogLevel)
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// command is one subcommand this package runs.
type command struct {
	summary string
	run     RunFunc
}

var commands = map[string]command{}

func init() {
	commands["version"] = command{summary: "print adi's version", run: runVersion}
}

func runVersion(ctx context.Context, g *Globals, args []string) error {
	fs := NewFlags("version", "", g)
	if _, err := Parse(fs, g, args); err != nil {
		return err
	}
	fmt.Fprintf(g.Stdout, "adi %s\n", versionText())
	return nil
}

// Main runs one adi command line (the arguments after the program's name) and returns the
// process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) int {
	if len(args) >= 2 && args[0] == "help" && !strings.HasPrefix(args[1], "-") {
		args = append(slices.Clone(args[1:]), "-h") // adi help break = adi break -h; adi help live start = adi live start -h
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		return 0
	}
	if args[0] == "--version" {
		args = append([]string{"version"}, args[1:]...) // as most programs spell it
	}
	name := args[0]
	g := &Globals{Stdout: stdout, Stderr: stderr, opts: &opts}
	var run RunFunc
	if cmd, ok := commands[name]; ok {
		run = cmd.run
	} else if _, ok := serverCommands[name]; ok {
		if run = opts.Commands[name]; run == nil {
			if opts.Forward == nil {
				fmt.Fprintf(stderr, "adi: %s is a command of %s, the full adi, and this binary cannot run it\n", name, ServerName)
				return 1
			}
			return exitOf(stderr, opts.Forward(args))
		}
	} else {
		fmt.Fprintln(stderr, UnknownCommand(name, commandNames()))
		return 2
	}
	return exitOf(stderr, run(ctx, g, args[1:]))
}

// exitOf prints a command's error as one line and returns the process exit code.
func exitOf(stderr io.Writer, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil && ee.Err.Error() != "" {
			fmt.Fprintln(stderr, errkind.Prefixed(ee.Err.Error()))
		}
		return ee.Code
	}
	fmt.Fprintln(stderr, errkind.Prefixed(err.Error()))
	return 1
}

// commandNames lists every command, sorted: this package's and the full binary's.
func commandNames() []string {
	names := make([]string, 0, len(commands)+len(serverCommands))
	for n := range commands {
		names = append(names, n)
	}
	for n := range serverCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "adi: see a Python run one function invocation at a time (Frame Lifetime Traces over debugpy).")
	fmt.Fprintln(w, "\nUsage: adi <command> [flags] [args]\n\nCommands:")
	for _, n := range commandNames() {
		summary, ok := serverCommands[n]
		if c, own := commands[n]; own {
			summary, ok = c.summary, true
		}
		if ok {
			fmt.Fprintf(w, "  %-12s %s\n", n, summary)
		}
	}
	fmt.Fprintln(w, "\nRun `adi <command> -h` for a command's flags.")
}

// NewFlags returns a flag set for a subcommand with the global flags registered. Its own
// messages are silenced: Parse turns a wrong flag into one line (stderr, exit 2), and -h prints
// the usage, which was asked for: on stdout, exit 0.
func NewFlags(name, usage string, g *Globals) *flag.FlagSet {
	fs := flag.NewFlagSet("adi "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // the flag package calls it on every error too; Parse prints it for -h
	usages[fs] = func() {
		fs.SetOutput(g.Stdout)
		fmt.Fprintf(g.Stdout, "Usage: %s\n\nFlags:\n", strings.TrimSpace("adi "+name+" "+usage))
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	g.register(fs)
	return fs
}

// usages print the usage of each flag set NewFlags made (for -h).
var usages = map[*flag.FlagSet]func(){}

// Parse parses a subcommand's flags (flags may follow positional arguments) and checks the global flags.
func Parse(fs *flag.FlagSet, g *Globals, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				if u := usages[fs]; u != nil {
					u()
				}
				return nil, err
			}
			return nil, &ExitError{Code: 2, Err: errors.New(flagError(fs, err))}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return pos, g.setup()
}

// flagError turns the flag package's error into one line saying what is wrong and what to do.
func flagError(fs *flag.FlagSet, err error) string {
	command := strings.TrimPrefix(fs.Name(), "adi ")
	msg := err.Error()
	help := fmt.Sprintf("(adi %s -h lists the flags)", command)
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		return UnknownFlag(command, name, known)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Sprintf("adi: %s of %s needs a value %s", FlagName(name), command, help)
	}
	var value, name string
	if _, e := fmt.Sscanf(msg, "invalid value %q for flag %s", &value, &name); e == nil {
		name = strings.TrimSuffix(name, ":")
		want := "another value"
		if f := fs.Lookup(strings.TrimLeft(name, "-")); f != nil {
			if g, ok := f.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case int, int64, uint, uint64:
					want = "a whole number"
				case float64:
					want = "a number"
				case time.Duration:
					want = "a duration such as 30s or 5m"
				}
			}
		}
		return fmt.Sprintf("adi: %s of %s takes %s, not %q %s", FlagName(name), command, want, value, help)
	}
	return errkind.Prefixed(msg) + " " + help
}
