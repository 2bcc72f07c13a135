package target

import (
	"testing"

	"github.com/adi-bridge/adi/adi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in    string
		want  Target
		canon string
	}{
		{"python t.py a b", Target{Python: "python", Mode: Script, Path: "t.py", Args: []string{"a", "b"}}, "python t.py a b"},
		{"python3 -m pytest tests/t.py::test_y -q",
			Target{Python: "python3", Mode: Module, Module: "pytest", Args: []string{"tests/t.py::test_y", "-q"}},
			"python3 -m pytest tests/t.py::test_y -q"},
		{`FOO=1 BAR="x y" python script.py`,
			Target{Env: []EnvVar{{"FOO", "1"}, {"BAR", "x y"}}, Python: "python", Mode: Script, Path: "script.py"},
			"FOO=1 BAR='x y' python script.py"},
		{"env FOO=1 python -u script.py",
			Target{Env: []EnvVar{{"FOO", "1"}}, Python: "python", PyFlags: []string{"-u"}, Mode: Script, Path: "script.py"},
			"FOO=1 python -u script.py"},
		{"A=1 /usr/bin/env B=2 python t.py",
			Target{Env: []EnvVar{{"A", "1"}, {"B", "2"}}, Python: "python", Mode: Script, Path: "t.py"},
			"A=1 B=2 python t.py"},
		{`python -c 'import pkg; pkg.run()'`,
			Target{Python: "python", Mode: Code, Code: "import pkg; pkg.run()"},
			`python -c 'import pkg; pkg.run()'`},
		{"/usr/bin/python3.11 -X dev -m pkg.mod --flag",
			Target{Python: "/usr/bin/python3.11", PyFlags: []string{"-X", "dev"}, Mode: Module, Module: "pkg.mod", Args: []string{"--flag"}},
			"/usr/bin/python3.11 -X dev -m pkg.mod --flag"},
		{"python sol.py < input.txt", Target{Python: "python", Mode: Script, Path: "sol.py", Stdin: "input.txt"}, "python sol.py < input.txt"},
		{"python sol.py <input.txt x", Target{Python: "python", Mode: Script, Path: "sol.py", Args: []string{"x"}, Stdin: "input.txt"}, "python sol.py x < input.txt"},
		{"< in.txt python sol.py", Target{Python: "python", Mode: Script, Path: "sol.py", Stdin: "in.txt"}, "python sol.py < in.txt"},
		{"python -m unittest t.T.test_x", Target{Python: "python", Mode: Module, Module: "unittest", Args: []string{"t.T.test_x"}}, "python -m unittest t.T.test_x"},
		{"python -W error -O -B t.py", Target{Python: "python", PyFlags: []string{"-W", "error", "-O", "-B"}, Mode: Script, Path: "t.py"}, "python -W error -O -B t.py"},
		{"python -Wignore::DeprecationWarning -Xdev -OO t.py", Target{Python: "python", PyFlags: []string{"-Wignore::DeprecationWarning", "-Xdev", "-OO"}, Mode: Script, Path: "t.py"}, "python -Wignore::DeprecationWarning -Xdev -OO t.py"},
		{"python -uc 'print(1)' x", Target{Python: "python", PyFlags: []string{"-u"}, Mode: Code, Code: "print(1)", Args: []string{"x"}}, "python -u -c 'print(1)' x"},
		{"python -uW error t.py", Target{Python: "python", PyFlags: []string{"-uW", "error"}, Mode: Script, Path: "t.py"}, "python -uW error t.py"},
		{"python -mpytest -x", Target{Python: "python", Mode: Module, Module: "pytest", Args: []string{"-x"}}, "python -m pytest -x"},
		{"python2 -Qnew t.py", Target{Python: "python2", PyFlags: []string{"-Qnew"}, Mode: Script, Path: "t.py"}, "python2 -Qnew t.py"},
		{"python --check-hash-based-pycs always t.py", Target{Python: "python", PyFlags: []string{"--check-hash-based-pycs", "always"}, Mode: Script, Path: "t.py"}, "python --check-hash-based-pycs always t.py"},
		{"python -- -odd.py", Target{Python: "python", Mode: Script, Path: "-odd.py"}, "python -- -odd.py"},
		{"python t.py -- -v", Target{Python: "python", Mode: Script, Path: "t.py", Args: []string{"--", "-v"}}, "python t.py -- -v"},
		{`python t.py "a b" 'c"d' e\ f "g\"h" "$" 'x|y' "it's"`,
			Target{Python: "python", Mode: Script, Path: "t.py", Args: []string{"a b", `c"d`, "e f", `g"h`, "$", "x|y", "it's"}},
			`python t.py 'a b' 'c"d' 'e f' 'g"h' '$' 'x|y' 'it'\''s'`},
		{"python t.py *.txt [ab] ~ {1,2}", Target{Python: "python", Mode: Script, Path: "t.py", Args: []string{"*.txt", "[ab]", "~", "{1,2}"}}, "python t.py '*.txt' '[ab]' '~' '{1,2}'"},
		{"python t.py a#b # a comment", Target{Python: "python", Mode: Script, Path: "t.py", Args: []string{"a#b"}}, "python t.py 'a#b'"},
		{"python t.py \\\n  more", Target{Python: "python", Mode: Script, Path: "t.py", Args: []string{"more"}}, "python t.py more"},
		{"python t.py ''", Target{Python: "python", Mode: Script, Path: "t.py", Args: []string{""}}, "python t.py ''"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		assert.Equal(t, tt.canon, got.String(), tt.in)
	}
}

func TestIsPytest(t *testing.T) {
	for in, want := range map[string]bool{
		"python -m pytest -q":       true,
		"python3 -m py.test":        true,
		"python pytest.py":          false,
		"python -m unittest t":      false,
		"python -c 'import pytest'": false,
	} {
		tg, err := Parse(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, tg.IsPytest(), in)
	}
}

func TestRunsTests(t *testing.T) {
	for in, want := range map[string]bool{
		"python -m pytest -q":            true,
		"python3 -m py.test t.py":        true,
		"python -m unittest test_x":      true,
		"python -m unittest.mock":        false,
		"python test_x.py":               false,
		"python -c 'import unittest'":    false,
		"FOO=1 python -m pytest t.py::x": true,
	} {
		tg, err := Parse(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, tg.RunsTests(), in)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, err string }{
		{"", "the target command is empty; write e.g. python t.py"},
		{"python t.py | grep x", "target must be a plain python command (found a pipeline '|'); run the pipeline's python part directly"},
		{"python a.py && python b.py", "target must be a plain python command (found a command list '&&'); pass one python command"},
		{"python a.py || true", "target must be a plain python command (found a command list '||'); pass one python command"},
		{"python a.py; echo", "target must be a plain python command (found a command list ';'); pass one python command"},
		{"python a.py\npython b.py", `target must be a plain python command (found a command list '\n'); pass one python command`},
		{"python a.py &", "target must be a plain python command (found a background job '&'); remove the '&'"},
		{"python t.py > out.txt", "target must not redirect output (found '>'); adi captures the program's output itself"},
		{"python t.py 2> err.txt", "target must not redirect output (found '2>'); adi captures the program's output itself"},
		{"python t.py 2>&1", "target must not redirect output (found '2>&'); adi captures the program's output itself"},
		{"python t.py >> log", "target must not redirect output (found '>>'); adi captures the program's output itself"},
		{"python t.py &> log", "target must not redirect output (found '&>'); adi captures the program's output itself"},
		{"python t.py <<EOF", "target must not use a here-document (found '<<'); put the input in a file and use '< file'"},
		{"python t.py < <(echo)", "target must be a plain python command (found process substitution '<('); write the input to a file"},
		{"python t.py 3< f", "only '< file' is accepted as a redirection (found '3<')"},
		{"python t.py < a < b", "the target may read stdin from one file only (found a second '<')"},
		{"python t.py <", "'<' must be followed by a file"},
		{"python t.py $(cat args)", "target must be a plain python command (found command substitution '$('); write the value itself"},
		{"python t.py `cat args`", "target must be a plain python command (found command substitution '`'); write the value itself"},
		{`python t.py "$(cat args)"`, "target must be a plain python command (found command substitution '$('); write the value itself"},
		{"python t.py $HOME/x", `the target uses shell variable expansion ("$HOME"); write the value itself`},
		{`python t.py "${X}"`, `the target uses shell variable expansion ("${X}"); write the value itself`},
		{"python t.py $'a'", "the target uses $'…' quoting; use plain quotes"},
		{"cd src && python t.py", "target must be a plain python command (found 'cd … &&'); run adi from that directory instead"},
		{"poetry run python t.py", `target must be a plain python command (found program "poetry"); activate its environment and pass the python command itself, e.g. python t.py`},
		{"bash x.sh", `target must be a plain python command (found program "bash"); activate its environment and pass the python command itself, e.g. python t.py`},
		{"pytest tests -q", `target must be a plain python command (found program "pytest"); write it as python -m pytest …`},
		{`"FOO=1" python t.py`, `target must be a plain python command (found program "FOO=1"); activate its environment and pass the python command itself, e.g. python t.py`},
		{"FOO=1", "the target has no command; write e.g. python t.py"},
		{"env -i python t.py", `env options are not supported (found "-i"); write NAME=value python … instead`},
		{"python", "the target runs no program; add a script, -m module or -c code, e.g. python t.py"},
		{"python -u", "the target runs no program; add a script, -m module or -c code, e.g. python t.py"},
		{"python -", "the target reads its program from stdin ('-'); pass the script path instead"},
		{"python -m", "python option -m needs an argument"},
		{"python -W", "python option -W needs an argument"},
		{"python -m 'not a module'", `-m needs a module name such as pkg.mod (got "not a module")`},
		{"python -Z t.py", `unknown python option -Z in "-Z"; see python -h`},
		{"python -uZ t.py", `unknown python option -Z in "-uZ"; see python -h`},
		{"python --frobnicate t.py", "unknown python option --frobnicate; see python --help"},
		{"python -V", "the target must run a program to its end (found -V, which prints and exits)"},
		{"python -i t.py", "the target must run a program to its end (found -i, which starts an interactive session)"},
		{"python --version", "the target must run a program (found --version, which prints and exits)"},
		{"python 't.py", "the target has an unterminated ' quote"},
		{`python "t.py`, `the target has an unterminated " quote`},
		{`python t.py \`, "the target ends with a backslash; remove it"},
		{"python ''", "the script path is empty"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		require.EqualError(t, err, tt.err, tt.in)
		assert.ErrorIs(t, err, adi.ErrBadInput)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"python t.py a b", `FOO=1 BAR="x y" python -u s.py`, "env A=1 python -m pytest -q", "python -c 'x' < in",
		"python -uW error t.py", "python -- -x", "python t.py | x", `python "a\"b" 'c'\''d'`, "python t.py $X", "2>x python"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := Parse(s)
		if err != nil {
			assert.ErrorIs(t, err, adi.ErrBadInput)
			return
		}
		again, err := Parse(tg.String())
		require.NoError(t, err, "reparsing %q (from %q)", tg.String(), s)
		assert.Equal(t, tg, again)
	})
}
