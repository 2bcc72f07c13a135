package target

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pythonName matches the interpreter names accepted: python, python3, python3.11, …
var pythonName = regexp.MustCompile(`^python[0-9]*(\.[0-9]+)*$`)

// Interpreter options (CPython 3.8–3.13) that take no argument, that take one, and that print
// something and exit or start an interactive session (refused).
const (
	flagsNoArg   = "bBdEIOPqRsSuvx"
	flagsWithArg = "cmWXQ"
	flagsRefused = "hVi?"
)

// Parse parses a target command line. Errors wrap adi.ErrBadInput, are one line, and say what to
// type instead.
func Parse(cmdline string) (Target, error) {
	toks, err := lex(cmdline)
	if err != nil {
		return Target{}, err
	}
	if len(toks) == 0 {
		return Target{}, fail("the target command is empty; write e.g. python t.py")
	}
	if toks[0].op == "" && toks[0].word == "cd" {
		return Target{}, fail("target must be a plain python command (found 'cd … &&'); run adi from that directory instead")
	}
	for _, tok := range toks {
		if tok.op != "" && tok.op != "<" {
			return Target{}, refuseOp(tok.op)
		}
	}
	var t Target
	var words []token
	for i := 0; i < len(toks); i++ {
		switch toks[i].op {
		case "":
			words = append(words, toks[i])
		default: // "<"
			if i+1 == len(toks) || toks[i+1].op != "" {
				return Target{}, fail("'<' must be followed by a file")
			}
			if t.Stdin != "" {
				return Target{}, fail("the target may read stdin from one file only (found a second '<')")
			}
			if toks[i+1].word == "" {
				return Target{}, fail("the file after '<' is empty")
			}
			t.Stdin = toks[i+1].word
			i++
		}
	}
	k := 0
	for ; k < len(words) && assignment(words[k], false); k++ {
		t.Env = append(t.Env, envVar(words[k].word))
	}
	if k < len(words) && (words[k].word == "env" || strings.HasSuffix(words[k].word, "/env")) {
		for k++; k < len(words) && assignment(words[k], true); k++ {
			t.Env = append(t.Env, envVar(words[k].word))
		}
		if k < len(words) && strings.HasPrefix(words[k].word, "-") {
			return Target{}, fail(fmt.Sprintf("env options are not supported (found %q); write NAME=value python … instead", words[k].word))
		}
	}
	if k == len(words) {
		return Target{}, fail("the target has no command; write e.g. python t.py")
	}
	if err := t.program(words[k].word); err != nil {
		return Target{}, err
	}
	if err := t.options(words[k+1:]); err != nil {
		return Target{}, err
	}
	return t, nil
}

// program checks and records the interpreter word.
func (t *Target) program(prog string) error {
	base := path.Base(prog)
	switch {
	case pythonName.MatchString(base):
		t.Python = prog
		return nil
	case base == "pytest" || base == "py.test":
		return fail(fmt.Sprintf("target must be a plain python command (found program %q); write it as python -m pytest …", prog))
	default:
		return fail(fmt.Sprintf("target must be a plain python command (found program %q); activate its environment and pass the python command itself, e.g. python t.py", prog))
	}
}

// options reads the interpreter options, then the program (script, -m module or -c code) and its
// arguments.
func (t *Target) options(words []token) error {
	i := 0
	for ; i < len(words); i++ {
		w := words[i].word
		if w == "--" {
			i++
			break
		}
		if w == "-" {
			return fail("the target reads its program from stdin ('-'); pass the script path instead")
		}
		if !strings.HasPrefix(w, "-") {
			break
		}
		if strings.HasPrefix(w, "--") {
			n, err := t.longOption(words, i)
			if err != nil {
				return err
			}
			i += n - 1
			continue
		}
		n, done, err := t.shortOptions(words, i)
		if err != nil || done {
			return err
		}
		i += n - 1
	}
	if i == len(words) {
		return fail("the target runs no program; add a script, -m module or -c code, e.g. python t.py")
	}
	t.Mode, t.Path = Script, words[i].word
	switch t.Path {
	case "":
		return fail("the script path is empty")
	case "-":
		return fail("the target reads its program from stdin ('-'); pass the script path instead")
	}
	t.args(words[i+1:])
	return nil
}

// longOption reads the long option at words[i] and returns how many words it used.
func (t *Target) longOption(words []token, i int) (int, error) {
	w := words[i].word
	name, _, hasValue := strings.Cut(w[2:], "=")
	switch name {
	case "check-hash-based-pycs":
		if hasValue {
			t.PyFlags = append(t.PyFlags, w)
			return 1, nil
		}
		if i+1 == len(words) {
			return 0, fail(fmt.Sprintf("python option %s needs an argument", w))
		}
		t.PyFlags = append(t.PyFlags, w, words[i+1].word)
		return 2, nil
	case "help", "help-env", "help-xoptions", "help-all", "version":
		return 0, fail(fmt.Sprintf("the target must run a program (found %s, which prints and exits)", w))
	}
	return 0, fail(fmt.Sprintf("unknown python option %s; see python --help", w))
}

// shortOptions reads the cluster of one-letter options at words[i] ("-u", "-OO", "-uc CODE",
// "-Wignore"). It returns how many words it used, or done when it read -c or -m, which end the
// command line's options.
func (t *Target) shortOptions(words []token, i int) (int, bool, error) {
	w := words[i].word
	for j := 1; j < len(w); j++ {
		c := w[j]
		switch {
		case strings.IndexByte(flagsNoArg, c) >= 0:
			continue
		case strings.IndexByte(flagsRefused, c) >= 0:
			what := "prints and exits"
			if c == 'i' {
				what = "starts an interactive session"
			}
			return 0, false, fail(fmt.Sprintf("the target must run a program to its end (found -%c, which %s)", c, what))
		case strings.IndexByte(flagsWithArg, c) < 0:
			r, _ := utf8.DecodeRuneInString(w[j:])
			return 0, false, fail(fmt.Sprintf("unknown python option -%c in %q; see python -h", r, w))
		}
		value, used := w[j+1:], 1
		if value == "" {
			if i+1 == len(words) {
				return 0, false, fail(fmt.Sprintf("python option -%c needs an argument", c))
			}
			value, used = words[i+1].word, 2
		}
		if c != 'c' && c != 'm' {
			for _, x := range words[i : i+used] {
				t.PyFlags = append(t.PyFlags, x.word)
			}
			return used, false, nil
		}
		if j > 1 {
			t.PyFlags = append(t.PyFlags, w[:j])
		}
		if c == 'c' {
			t.Mode, t.Code = Code, value
		} else {
			if !moduleName(value) {
				return 0, false, fail(fmt.Sprintf("-m needs a module name such as pkg.mod (got %q)", value))
			}
			t.Mode, t.Module = Module, value
		}
		t.args(words[i+used:])
		return used, true, nil
	}
	t.PyFlags = append(t.PyFlags, w)
	return 1, false, nil
}

func (t *Target) args(words []token) {
	for _, w := range words {
		t.Args = append(t.Args, w.word)
	}
}

// assignment reports whether a word is NAME=value. Before the command the NAME part must be
// unquoted, as in the shell; after env any NAME=value word is one.
func assignment(w token, afterEnv bool) bool {
	eq := strings.IndexByte(w.word, '=')
	if eq <= 0 || (!afterEnv && w.quotedFrom >= 0 && w.quotedFrom < eq) {
		return false
	}
	for i := 0; i < eq; i++ {
		if !isNameByte(w.word[i]) || (i == 0 && '0' <= w.word[0] && w.word[0] <= '9') {
			return false
		}
	}
	return true
}

func envVar(w string) EnvVar {
	k, v, _ := strings.Cut(w, "=")
	return EnvVar{Key: k, Value: v}
}

// moduleName reports whether s is a dotted module name.
func moduleName(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
		for i, r := range part {
			if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
				return false
			}
		}
	}
	return true
}

// refuseOp explains why an operator cannot be part of a target.
func refuseOp(op string) error {
	shown := op
	if op == "\n" {
		shown = `\n`
	}
	switch strings.TrimLeft(op, "0123456789") {
	case "|", "|&":
		return fail(fmt.Sprintf("target must be a plain python command (found a pipeline '%s'); run the pipeline's python part directly", shown))
	case "&&", "||", ";", ";;", "\n":
		return fail(fmt.Sprintf("target must be a plain python command (found a command list '%s'); pass one python command", shown))
	case "&":
		return fail("target must be a plain python command (found a background job '&'); remove the '&'")
	case ">", ">>", ">|", ">&", "&>", "&>>":
		return fail(fmt.Sprintf("target must not redirect output (found '%s'); adi captures the program's output itself", shown))
	case "<<", "<<<", "<<-":
		return fail(fmt.Sprintf("target must not use a here-document (found '%s'); put the input in a file and use '< file'", shown))
	case "<(", ">(":
		return fail(fmt.Sprintf("target must be a plain python command (found process substitution '%s'); write the input to a file", shown))
	case "(", ")":
		return fail(fmt.Sprintf("target must be a plain python command (found a subshell '%s'); pass one python command", shown))
	}
	return fail(fmt.Sprintf("only '< file' is accepted as a redirection (found '%s')", shown))
}
