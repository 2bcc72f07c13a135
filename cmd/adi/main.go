// Command adi gives debugging agents and people a function-level view of a Python run, over
// debugpy. Run `adi help` for the commands. This package only parses flags and wires the packages
// that do the work.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/cli"
	"github.com/adi-bridge/adi/internal/errkind"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// exitError carries a process exit code with an error already worth printing.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks an error in how adi was called (exit code 2).
func usageError(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

// globals are the flags every command takes.
type globals struct {
	logLevel string
	logJSON  bool
	python   string
	log      hclog.Logger
	stdout   io.Writer
	stderr   io.Writer
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.logLevel, "log-level", envOr("ADI_LOG_LEVEL", "warn"), "log level: trace, debug, info, warn, error")
	fs.BoolVar(&g.logJSON, "log-json", false, "write logs as JSON lines")
	fs.StringVar(&g.python, "python", "", "python interpreter with debugpy (default: $ADI_PYTHON, python3 on PATH, /usr/bin/python3)")
}

func (g *globals) setup() error {
	lvl := hclog.LevelFromString(g.logLevel)
	if lvl == hclog.NoLevel || strings.EqualFold(g.logLevel, "off") {
		return usageError("adi: unknown --log-level %q; use trace, debug, info, warn or error", g.logLevel)
	}
	g.log = hclog.New(&hclog.LoggerOptions{Name: "adi", Level: lvl, JSONFormat: g.logJSON, Output: g.stderr})
	return nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// command is one subcommand of adi.
type command struct {
	summary string
	run     func(ctx context.Context, g *globals, args []string) error
}

var commands = map[string]command{}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one adi command line and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "help" && !strings.HasPrefix(args[1], "-") {
		args = []string{args[1], "-h"} // adi help break = adi break -h
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		return 0
	}
	name := args[0]
	cmd, ok := commands[name]
	if !ok {
		names := make([]string, 0, len(commands))
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintln(stderr, cli.UnknownCommand(name, names))
		return 2
	}
	g := &globals{stdout: stdout, stderr: stderr}
	err := cmd.run(ctx, g, args[1:])
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, errkind.Prefixed(ee.err.Error()))
		}
		return ee.code
	}
	fmt.Fprintln(stderr, errkind.Prefixed(err.Error()))
	return 1
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "adi: see a Python run one function invocation at a time (Frame Lifetime Traces over debugpy).")
	fmt.Fprintln(w, "\nUsage: adi <command> [flags] [args]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun `adi <command> -h` for a command's flags.")
}

// newFlags returns a flag set for a subcommand with the global flags registered. Its own
// messages are silenced: parse turns a wrong flag into one line, and -h prints the usage.
func newFlags(name, usage string, g *globals) *flag.FlagSet {
	fs := flag.NewFlagSet("adi "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // the flag package calls it on every error too; parse prints it for -h
	usages[fs] = func() {
		fs.SetOutput(g.stderr)
		fmt.Fprintf(g.stderr, "Usage: adi %s %s\n\nFlags:\n", name, usage)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	g.register(fs)
	return fs
}

// usages print the usage of each flag set newFlags made (for -h).
var usages = map[*flag.FlagSet]func(){}

// parse parses a subcommand's flags (flags may follow positional arguments) and sets up logging.
func parse(fs *flag.FlagSet, g *globals, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				if u := usages[fs]; u != nil {
					u()
				}
				return nil, err
			}
			return nil, &exitError{code: 2, err: errors.New(flagError(fs, err))}
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
		return cli.UnknownFlag(command, name, known)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Sprintf("adi: %s of %s needs a value %s", cli.FlagName(name), command, help)
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
		return fmt.Sprintf("adi: %s of %s takes %s, not %q %s", cli.FlagName(name), command, want, value, help)
	}
	return errkind.Prefixed(msg) + " " + help
}
