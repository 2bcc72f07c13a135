// Package target owns parsing what agents type as a target command: "python t.py a b",
// "FOO=1 python -m pytest tests/t.py::test_y -q", "python -c 'import pkg; pkg.run()'",
// "python sol.py < input.txt". It splits words the way a POSIX shell does (quotes, backslashes),
// knows the interpreter's own options, and refuses anything that is not one plain python command
// (pipelines, lists, output redirections, command substitution, other programs). It runs nothing
// and expands nothing: globs, braces and ~ stay as typed.
package target

import (
	"strings"
)

// Mode says how the target names the program to run, as python's command line does.
type Mode string

// The ways a python command line names its program.
const (
	Script Mode = "script" // python PATH
	Module Mode = "module" // python -m MODULE
	Code   Mode = "code"   // python -c CODE
)

// EnvVar is one NAME=value assignment in front of the command (or after env).
type EnvVar struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Target is a parsed python command line.
type Target struct {
	// Env holds the assignments in front of the command, in the order typed.
	Env []EnvVar `json:"env,omitempty"`
	// Python is the interpreter word as typed ("python", "python3", "/usr/bin/python3.11"); the
	// bridge decides which interpreter actually runs.
	Python string `json:"python"`
	// PyFlags are the interpreter's options before the program, as typed ("-u", "-X", "dev").
	PyFlags []string `json:"py_flags,omitempty"`
	Mode    Mode     `json:"mode"`
	Path    string   `json:"path,omitempty"`   // the script, for Script
	Module  string   `json:"module,omitempty"` // the module, for Module
	Code    string   `json:"code,omitempty"`   // the code, for Code
	// Args are the program's arguments (sys.argv[1:]).
	Args []string `json:"args,omitempty"`
	// Stdin is the file given with "< file", or "".
	Stdin string `json:"stdin,omitempty"`
}

// IsPytest reports whether the target runs pytest (python -m pytest).
func (t Target) IsPytest() bool {
	return t.Mode == Module && (t.Module == "pytest" || t.Module == "py.test")
}

// RunsTests reports whether the target runs a test runner: pytest (python -m pytest, python -m
// py.test) or unittest (python -m unittest).
func (t Target) RunsTests() bool {
	return t.IsPytest() || (t.Mode == Module && t.Module == "unittest")
}

// String writes the command back, quoting words so that a shell (and Parse) reads the same
// target. Assignments made through env are written in front of the command.
func (t Target) String() string {
	var parts []string
	for _, e := range t.Env {
		parts = append(parts, e.Key+"="+Quote(e.Value))
	}
	py := Quote(t.Python)
	if strings.Contains(t.Python, "=") && py == t.Python {
		py = "'" + t.Python + "'" // not an assignment
	}
	parts = append(parts, py)
	for _, f := range t.PyFlags {
		parts = append(parts, Quote(f))
	}
	switch t.Mode {
	case Module:
		parts = append(parts, "-m", Quote(t.Module))
	case Code:
		parts = append(parts, "-c", Quote(t.Code))
	default:
		if strings.HasPrefix(t.Path, "-") {
			parts = append(parts, "--")
		}
		parts = append(parts, Quote(t.Path))
	}
	for _, a := range t.Args {
		parts = append(parts, Quote(a))
	}
	if t.Stdin != "" {
		parts = append(parts, "<", Quote(t.Stdin))
	}
	return strings.Join(parts, " ")
}

// quote returns s as one shell word: unchanged when it only has characters no shell treats
// specially, else in single quotes.
// Quote writes one word of a command line so that Parse reads it back unchanged (single quotes
// when it has anything but plain path characters).
func Quote(s string) string {
	safe := s != ""
	for i := 0; i < len(s) && safe; i++ {
		c := s[i]
		safe = c == '_' || c == '@' || c == '%' || c == '+' || c == '=' || c == ':' || c == ',' || c == '.' ||
			c == '/' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
