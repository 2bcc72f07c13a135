package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/examples"
)

// exampleDocs are the documents whose bash examples TestReadmeExamples runs, in this order; the
// commands of one document form one session (one working directory, one state directory).
var exampleDocs = []string{"README.md", "docs/agents.md"}

// exampleFiles are the programs the documents' examples run, copied into the working directory:
// name in the directory → the file under integration/testdata ("" for the demo's orders.py).
var exampleFiles = map[string]string{
	"orders.py":      "",
	"cart.py":        "pytest/cart.py",
	"test_cart.py":   "pytest/test_cart.py",
	"test_orders.py": "engine/test_orders.py",
	"fail.py":        "docs/fail.py",
}

// exampleByproducts are what Python and pytest write in the working directory by themselves;
// anything else a command leaves there is a stray file (a redirection bash made of an unquoted
// `>`, say).
var exampleByproducts = map[string]bool{"__pycache__": true, ".pytest_cache": true}

// exampleSkipped are the documented adi command lines the test does not run, with the reason.
var exampleSkipped = map[string]string{
	"adi serve": "serves until it is stopped; TestServeBinarySignal runs it",
}

// docCommand is one command line of a bash block: where it is, its text after the prompt, and
// what the document shows it answers.
type docCommand struct {
	file string
	line int
	text string
	// shown are the lines the document shows after the command, up to the next prompt or the end
	// of the block, without the blank lines that end them; none when it shows no answer.
	shown []string
	// exit is the exit status the document shows for it, on a `$ echo $?` line right after its
	// answer; -1 when it shows none.
	exit int
}

var fence = regexp.MustCompile("^(\\s*)```(.*)$")

// docCommands returns the adi command lines of the bash blocks of a Markdown file, in order. In a
// block with "$ " prompts the command lines are the prompted ones (a line ending in a backslash
// goes on), each followed by the answer the document shows; in a block without them every line
// that is not blank or a comment is one, with no answer shown. Every block must name its language
// (bash, text or json), and a text block may not hold a prompted adi command, so that no example
// escapes the test.
func docCommands(t *testing.T, file string) []docCommand {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", file))
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	var out []docCommand
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, lang, start := m[1], strings.TrimSpace(m[2]), i+1
		var block []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			block = append(block, strings.TrimPrefix(lines[i], indent))
		}
		require.Less(t, i, len(lines), "%s:%d: the code block is not closed", file, start)
		switch lang {
		case "bash":
			cmds, err := bashCommands(file, start+1, block)
			require.NoError(t, err)
			out = append(out, cmds...)
		case "text", "json":
			for k, l := range block {
				if strings.HasPrefix(l, "$ adi ") {
					t.Errorf("%s:%d: a shell session in a %s block: mark the block bash, so that TestReadmeExamples runs it", file, start+1+k, lang)
				}
			}
		default:
			t.Errorf("%s:%d: the code block's language is %q: mark it bash (commands a reader can run, which TestReadmeExamples runs), text (synopses, diagrams, output) or json", file, start, lang)
		}
	}
	return out
}

// exitShown is the prompt line after which a document shows the exit status of the command
// before it.
const exitShown = "echo $?"

// bashCommands returns the adi command lines of one bash block whose first line is line first,
// with the answers the block shows.
func bashCommands(file string, first int, block []string) ([]docCommand, error) {
	prompted := false
	for _, l := range block {
		prompted = prompted || strings.HasPrefix(l, "$ ")
	}
	var out []docCommand
	prev := -1 // the index in out of the command at the previous prompt (-1: not an adi command)
	for k := 0; k < len(block); k++ {
		l := block[k]
		if prompted {
			if !strings.HasPrefix(l, "$ ") {
				continue
			}
			l = strings.TrimPrefix(l, "$ ")
		} else if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		at := first + k
		for strings.HasSuffix(l, "\\") && k+1 < len(block) {
			k++
			l += "\n" + block[k]
		}
		var shown []string
		for prompted && k+1 < len(block) && !strings.HasPrefix(block[k+1], "$ ") {
			k++
			shown = append(shown, block[k])
		}
		for len(shown) > 0 && strings.TrimSpace(shown[len(shown)-1]) == "" {
			shown = shown[:len(shown)-1]
		}
		if len(shown) == 0 {
			shown = nil
		}
		switch {
		case l == exitShown:
			n, err := strconv.Atoi(strings.Join(shown, "\n"))
			if err != nil || prev < 0 || out[prev].exit >= 0 {
				return nil, fmt.Errorf("%s:%d: $ %s must come right after an adi command and show one number, its exit status", file, at, exitShown)
			}
			out[prev].exit = n
		case strings.HasPrefix(l, "adi "):
			out = append(out, docCommand{file: file, line: at, text: l, shown: shown, exit: -1})
			prev = len(out) - 1
		default:
			prev = -1
		}
	}
	return out, nil
}

// strayFiles lists what is in dir, the by-products of Python and pytest left out.
func strayFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if exampleByproducts[d.Name()] {
			return filepath.SkipDir
		}
		if p != dir {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return fmt.Errorf("relative path of %s: %w", p, err)
			}
			names = append(names, rel)
		}
		return nil
	}))
	sort.Strings(names)
	return names
}

// TestReadmeExamples runs every adi command line of the bash blocks of README.md and
// docs/agents.md through bash, in document order, with the freshly built adi first on PATH, in a
// directory holding the programs they name. Each run must print the whole answer the document
// shows (shownMatches), exit with the status it shows (docCommand.wantExit) and leave no file
// behind; a command shown without an answer must exit 0 and print nothing on stderr. The commands
// of one document are one session.
func TestReadmeExamples(t *testing.T) {
	var all []docCommand
	for _, f := range exampleDocs {
		cmds := docCommands(t, f)
		require.NotEmpty(t, cmds, "%s shows no adi command", f)
		all = append(all, cmds...)
	}
	seen := map[string]bool{}
	for _, c := range all {
		seen[c.text] = true
	}
	for cmd := range exampleSkipped {
		if !seen[cmd] {
			t.Errorf("exampleSkipped has %q, which no document shows any more: remove it", cmd)
		}
	}
	if t.Failed() {
		return
	}

	bin := adiBinary(t)
	for _, doc := range exampleDocs {
		t.Run(doc, func(t *testing.T) {
			dir := t.TempDir()
			for name, src := range exampleFiles {
				data := examples.Orders
				if src != "" {
					var err error
					data, err = os.ReadFile(testdata(t, src))
					require.NoError(t, err)
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
			}
			r := newCLI(t, dir)
			env := append(r.env, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			for _, c := range all {
				if c.file != doc {
					continue
				}
				if _, skip := exampleSkipped[c.text]; skip {
					continue
				}
				before := strayFiles(t, dir)
				res := runBash(t, dir, env, c.text)
				where := fmt.Sprintf("%s:%d: %s", c.file, c.line, c.text)
				assert.Equal(t, c.wantExit(), res.code, "%s: exit status\nstdout:\n%s\nstderr:\n%s", where, res.stdout, res.stderr)
				if len(c.shown) > 0 {
					stdout, stderr := splitShown(c.shown)
					assertShown(t, where+": stdout", stdout, res.stdout)
					assertShown(t, where+": stderr", stderr, res.stderr)
				} else {
					assert.Equal(t, "", res.stderr, "%s: stderr (the document shows no answer, so none of its lines)", where)
				}
				assert.Equal(t, before, strayFiles(t, dir), "%s: files in the working directory before and after (a stray file is a redirection or a command the quoting broke)", where)
			}
		})
	}
}

// targetFailed begins the line adi prints on stderr after an answer about a target that failed,
// when it exits 1 (docs/agents.md, exit codes).
const targetFailed = "adi: the target command failed "

// wantExit is the exit status the command must end with: the one its document shows (`$ echo
// $?`), else 1 when the answer it shows has the line about a failed target, else 0.
func (c docCommand) wantExit() int {
	if c.exit >= 0 {
		return c.exit
	}
	for _, l := range c.shown {
		if strings.HasPrefix(l, targetFailed) {
			return 1
		}
	}
	return 0
}

// splitShown separates the answer a document shows into its stdout and its stderr: adi writes
// to stderr only lines that begin with "adi: " (how the target was recorded, that it failed, an
// error), and no line of an answer on stdout begins so.
func splitShown(shown []string) (stdout, stderr []string) {
	for _, l := range shown {
		if strings.HasPrefix(l, "adi: ") {
			stderr = append(stderr, l)
		} else {
			stdout = append(stdout, l)
		}
	}
	return stdout, stderr
}

// elided is the line with which a document leaves lines of an answer out (none or more); every
// other line it shows is a whole line of the answer.
const elided = "…"

// runDependent are the parts of an answer that differ from run to run, each compared as the text
// that replaces it: durations, session ids (made from the working directory, a temporary one
// here) and the addresses in a repr that Python made (pytest's assertion messages).
var runDependent = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b\d+ ms\b`), "N ms"},
	{regexp.MustCompile(`\b(cli|live)-[0-9a-f]{12}\b`), "$1-ID"},
	{regexp.MustCompile(`\b0x[0-9a-f]{6,}\b`), "0x…"},
}

// normalise replaces the run-dependent parts of an answer.
func normalise(s string) string {
	for _, r := range runDependent {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

// assertShown checks that got (a whole stdout or stderr) is the lines a document shows
// (shownMatches).
func assertShown(t *testing.T, what string, shown []string, got string) {
	t.Helper()
	want, ok := shownMatches(shown, got)
	if !slices.Contains(shown, elided) {
		assert.Equal(t, want, normalise(got), "%s (the whole of it, as the document shows it)", what)
		return
	}
	assert.True(t, ok, "%s: the document shows (%s on a line of its own leaves lines out)\n%s\nthe command printed\n%s", what, elided, want, normalise(got))
}

// shownMatches reports whether got is the lines a document shows, once both are normalised:
// each shown line is a whole line of got, in order, with nothing between them or around them
// except where an elided line stands. want is the normalised text shown.
func shownMatches(shown []string, got string) (want string, ok bool) {
	for _, l := range shown {
		want += normalise(l) + "\n"
	}
	var pat strings.Builder
	pat.WriteString(`\A`)
	for _, l := range strings.SplitAfter(want, "\n") {
		if strings.TrimSuffix(l, "\n") == elided {
			pat.WriteString(`(?:.*\n)*?`)
		} else {
			pat.WriteString(regexp.QuoteMeta(l))
		}
	}
	pat.WriteString(`\z`)
	return want, regexp.MustCompile(pat.String()).MatchString(normalise(got))
}

// TestReadmeExampleParsing checks how TestReadmeExamples reads a bash block (the commands, the
// answers shown, a `$ echo $?`) and compares an answer with what is shown, without running adi.
func TestReadmeExampleParsing(t *testing.T) {
	block := []string{
		"$ adi call-tree \"python t.py\"",
		"adi: recorded `python t.py`: 2 call(s) in 92 ms, exit status 1 (session cli-0123456789ab)",
		"Call tree of t:<module>#1 (depth 2, width 10):",
		elided,
		"adi: the target command failed (exit status 1); the answer above is still valid",
		"$ echo $?",
		"1",
		"$ adi continue   # a comment",
		"",
		"$ curl -s http://x \\",
		"    -d '{}'",
		"{\"ok\": true}",
		"$ adi live close",
	}
	cmds, err := bashCommands("doc.md", 10, block)
	require.NoError(t, err)
	require.Len(t, cmds, 3)
	assert.Equal(t, docCommand{file: "doc.md", line: 10, text: `adi call-tree "python t.py"`, shown: block[1:5], exit: 1}, cmds[0])
	assert.Equal(t, docCommand{file: "doc.md", line: 17, text: "adi continue   # a comment", exit: -1}, cmds[1])
	assert.Equal(t, docCommand{file: "doc.md", line: 22, text: "adi live close", exit: -1}, cmds[2])
	assert.Equal(t, 1, cmds[0].wantExit())
	assert.Equal(t, 0, cmds[1].wantExit())

	stdout, stderr := splitShown(cmds[0].shown)
	assert.Equal(t, []string{"Call tree of t:<module>#1 (depth 2, width 10):", elided}, stdout)
	assert.Equal(t, []string{block[1], block[4]}, stderr)
	_, ok := shownMatches(stderr, "adi: recorded `python t.py`: 2 call(s) in 1375 ms, exit status 1 (session cli-ba9876543210)\n"+block[4]+"\n")
	assert.True(t, ok, "durations and session ids are normalised")
	for got, want := range map[string]bool{
		"Call tree of t:<module>#1 (depth 2, width 10):\n":               true,
		"Call tree of t:<module>#1 (depth 2, width 10):\nt:<module>#1\n": true,
		"Before\nCall tree of t:<module>#1 (depth 2, width 10):\n":       false,
		"Call tree of t:<module>#1 (depth 2, width 10): and more\n":      false,
	} {
		_, ok := shownMatches(stdout, got)
		assert.Equal(t, want, ok, got)
	}
	_, ok = shownMatches([]string{"a", "b"}, "a\nb\nc\n")
	assert.False(t, ok, "without an elided line the answer is whole")

	_, err = bashCommands("doc.md", 1, []string{"$ echo $?", "0"})
	assert.Error(t, err, "an exit status shown after no adi command")
	_, err = bashCommands("doc.md", 1, []string{"$ adi state", "$ echo $?", "zero"})
	assert.Error(t, err, "an exit status that is not a number")
}

// runBash runs one command line through bash -c.
func runBash(t *testing.T, dir string, env []string, line string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err, line)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// outsideRefs are references to files outside the repository that a clone does not have (the
// strings are split so that this file does not hold them).
var outsideRefs = []string{".." + "/shared", "/work" + "/shared", "shared" + "/ADI-SPEC", "shared" + "/DESIGN"}

// TestReadmeNoOutsideReferences fails when a tracked file of the repository refers to documents
// outside it: the semantics and the design are docs/semantics.md and docs/design.md.
func TestReadmeNoOutsideReferences(t *testing.T) {
	out, err := exec.Command("git", "-C", "..", "ls-files", "-z").Output()
	require.NoError(t, err, "git ls-files (the test runs in a checkout)")
	files := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("..", f))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		require.NoError(t, err)
		for n, line := range strings.Split(string(b), "\n") {
			for _, ref := range outsideRefs {
				if strings.Contains(line, ref) {
					t.Errorf("%s:%d refers to %s, which is outside the repository: link docs/semantics.md or docs/design.md instead", f, n+1, ref)
				}
			}
		}
	}
}
