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
	"sort"
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

// expect is what one run of a documented command must do: exit with code and print stdout (a
// substring of its standard output) and stderr (a substring of its standard error; "" checks
// nothing).
type expect struct {
	code           int
	stdout, stderr string
}

// exampleExpect maps every adi command line of the bash blocks of exampleDocs, exactly as written
// after its "$ " prompt, to what its runs must do: the n-th run of a line (counted over the
// documents in order) is checked against the n-th entry. A command line that is in the documents
// but not here, or here but no longer in the documents, fails the test.
var exampleExpect = map[string][]expect{
	`adi call-tree "python orders.py" --depth 4`: {
		{0, demoTreeTail, ""},
		{0, demoTreeTail, "adi: recorded `python orders.py`: 12 call(s) in "},
	},
	`adi break bulk_rate --cond "rate > 0"`: {
		{0, "break → orders:bulk_rate#1  (the first of 2 invocations where the condition held; adi continue moves to the next)\n\n" +
			"Frame: orders:bulk_rate#1   (caller orders:line_total#1, line 22)\nArgs: qty = 12, rate = 0.1\n", ""},
	},
	`adi continue`: {
		{0, "continue → orders:bulk_rate#3  (breakpoint orders:bulk_rate if rate > 0; hit 2 of 2)\n\n" + // README
			"Frame: orders:bulk_rate#3   (caller orders:line_total#3, line 22)\nArgs: qty = 10, rate = 0.15\n", ""},
		{0, "continue → orders:bulk_rate#3  (breakpoint orders:bulk_rate if rate > 0; hit 2 of 2)\n", ""}, // docs/agents.md
	},
	`adi exec bulk_rate#3 -l 16 -s "qty, BULK_QUANTITY, qty > BULK_QUANTITY"`: {
		{0, "Exec at orders:bulk_rate#3, line 16, visit 1: qty, BULK_QUANTITY, qty > BULK_QUANTITY\nOutput: (none)\nValue: (10, 10, False)\n", ""},
	},
	`adi call-tree "python -m pytest test_cart.py -q"`: {
		{1, cartTreeHead, "adi: the target command failed (exit status 1); the answer above is still valid\n"},
		{1, cartTreeHead, "adi: the target command failed (exit status 1); the answer above is still valid\n"},
	},
	`adi exec "python -m pytest test_orders.py -q" "orders.py:bulk_rate#3" -l 16 --then-continue -s "qty = 11"`: {
		{1, "Then continued: the frame returned 0.15; the program ended: it now succeeds (exit 0; it exited 1 before).\n", "adi: the target command failed (exit status 1); the answer above is still valid\n"},
	},
	`adi live start "python orders.py"            # paused before the first line`: {
		{0, "Started `python orders.py` under debugpy as live session live-", ""},
	},
	`adi live start "python orders.py"`: {
		{0, "Started `python orders.py` under debugpy as live session live-", ""},
		{0, "Started `python orders.py` under debugpy as live session live-", ""}, // docs/agents.md, watching
	},
	`adi live watch bulk_rate`: {
		{0, "Watching bulk_rate: every following invocation is recorded (its FLT and the calls below it) as the program runs, without pausing it. The program has not started: the watch is in place before its first line. adi live caught lists what it caught; adi flt FUNC#N shows one.\n", ""},
	},
	`adi live continue                               # a server: adi live continue --background`: {
		{0, "continue → the program exited with status 0.\n", ""},
	},
	`adi live caught`: {
		{0, "bulk_rate: 3 caught: orders:bulk_rate#1, orders:bulk_rate#2, orders:bulk_rate#3\nEvery ADI command answers about them: adi flt FUNC#N, adi call-tree FUNC#N, adi diff A B.\n", ""},
	},
	`adi flt --session live bulk_rate#3              # also call-tree, diff, break/continue/prev, step-in`: {
		{0, "Frame: orders:bulk_rate#3   (entry frame)\nArgs: qty = 10, rate = 0.15\n\n  16 | if qty > BULK_QUANTITY:  → False\n  18 | return 0.0\n\nReturn: 0.0\n", ""},
	},
	`adi live break orders.py:16 --cond "qty == 10"`: {
		{0, "Breakpoint set at orders.py:16: if qty > BULK_QUANTITY:  (only when qty == 10)\n", ""},
		{0, "Breakpoint set at orders.py:16: if qty > BULK_QUANTITY:  (only when qty == 10)\n", ""},
	},
	`adi live continue`: {
		{0, "continue → paused at breakpoint orders.py:16 in bulk_rate after ", ""},
		{0, "continue → the program exited with status 0.\n", ""},
		{0, "continue → paused at breakpoint orders.py:16 in bulk_rate after ", ""},
		{0, "continue → the program exited with status 0.\n", ""},
	},
	`adi live interact 'qty, BULK_QUANTITY, qty > BULK_QUANTITY'`: {
		{0, "interact in frame #0, orders.py:16 in bulk_rate:\nOutput: (none)\nValue: (10, 10, False)\n", ""},
	},
	`adi live interact 'qty = 11'`: {
		{0, "interact in frame #0, orders.py:16 in bulk_rate:\nChanged: qty = 11 (the program runs on with the new values)\n", ""},
		{0, "interact in frame #0, orders.py:16 in bulk_rate:\nChanged: qty = 11 (the program runs on with the new values)\n", ""},
	},
	`adi live restart                             # again, with the same breakpoints`: {
		{0, "Restarted `python orders.py` (run 2); every process of run 1 has ended. 1 breakpoint(s) set again. No line has run yet: adi live continue starts it.\n", ""},
	},
	`adi live status                              # also live stack and live where, while paused`: {
		{0, " · Start · run 2: launched under debugpy; no line has run yet (adi live continue starts it)\n", ""},
	},
	`adi live close`: {
		{0, "; every process of it has ended.\n", ""},
		{0, "; every process of it has ended.\n", ""}, // docs/agents.md, watching
	},
	`adi break "python orders.py" "orders.py:bulk_rate" --cond "rate > 0"`: {
		{0, "break → orders:bulk_rate#1  (the first of 2 invocations where the condition held; adi continue moves to the next)\n\n" +
			"Frame: orders:bulk_rate#1   (caller orders:line_total#1, line 22)\nArgs: qty = 12, rate = 0.1\n", ""},
	},
	`adi step-out`: {
		{0, "step-out → orders:line_total#3  (the caller of orders:bulk_rate#3, at line 22)\n", ""},
	},
	`adi step-in "python orders.py" "orders.py:bulk_rate#3"`: {
		{0, "step-into → orders:bulk_rate#3  (called by orders:line_total#3 at line 22)\n", ""},
	},
	`adi exec "python orders.py" "orders.py:bulk_rate#3" -l 16 -s "qty, BULK_QUANTITY, qty > BULK_QUANTITY"`: {
		{0, "Exec at orders:bulk_rate#3, line 16, visit 1: qty, BULK_QUANTITY, qty > BULK_QUANTITY\nOutput: (none)\nValue: (10, 10, False)\n", ""},
	},
	`adi exec "python orders.py" "orders.py:bulk_rate#3" -l 16 --then-continue -s "qty = 11"`: {
		{0, "Then continued: the frame returned 0.15; the program ended: exit 0, the same as before.\nOutput after the statement (tail):\n  total: 26.0\n", ""},
	},
	`adi break "python -m pytest test_cart.py -q" "test_cart.py::test_total"`: {
		{1, "Breakpoint set: test_cart:test_total  (every call); test_cart:test_total was called 1 time(s); 1 breakpoint(s) in all.\nMatches 1 invocation(s): test_cart:test_total#1. Next: adi continue.\n", ""},
	},
	`adi flt "python -m pytest test_cart.py -q" "test_cart.py::TestLine::test_line[20-1.0]"`: {
		{1, "Frame: test_cart:TestLine.test_line#2   (entry frame)\nArgs: self = <test_cart.TestLine object at 0x…>, qty = 20, price = 1.0\n", ""},
	},
	`adi call-tree "python fail.py"`: {
		{1, "Call tree of fail:<module>#1 (depth 2, width 10):\nFailed: AssertionError: 29.0, raised in fail:check#1 at line 5, 1 level deep.\nfail:<module>#1() → raised AssertionError (the failure)\n  fail:check#1(total=29.0) → raised AssertionError (the failure)\n", "adi: the target command failed (exit status 1); the answer above is still valid\n"},
	},
}

// demoTreeTail is how the demo's call tree four levels deep ends, as the documents show it.
const demoTreeTail = "      orders:line_total#3(item={'name': 'melon', 'qty': 10, 'price': 2…, rules={'apple': 0.1, 'melon': 0.…) → 20.0\n" +
	"        orders:bulk_rate#3(qty=10, rate=0.15) → 0.0\n"

// cartTreeHead is how the call tree of the cart's tests begins, as the documents show it.
const cartTreeHead = "Tests: 1 failed, 2 passed\n  FAILED test_cart:test_total#1 → AssertionError: assert 29.0 == 27.0\n" +
	"  passed test_cart:TestLine.test_line#1 [1-2.0] → None\n  passed test_cart:TestLine.test_line#2 [20-1.0] → None\n" +
	"Call tree of the run: 4 entry frames, failing tests first, then the other tests (depth 2, width 10):\n"

// exampleSkipped are the documented adi command lines the test does not run, with the reason.
var exampleSkipped = map[string]string{
	"adi serve": "serves until it is stopped; TestServeBinarySignal runs it",
}

// docCommand is one command line of a bash block: where it is and its text after the prompt.
type docCommand struct {
	file string
	line int
	text string
}

var fence = regexp.MustCompile("^(\\s*)```(.*)$")

// docCommands returns the adi command lines of the bash blocks of a Markdown file, in order. In a
// block with "$ " prompts the command lines are the prompted ones (a line ending in a backslash
// goes on); in a block without them every line that is not blank or a comment is one. Every block
// must name its language (bash, text or json), and a text block may not hold a prompted adi
// command, so that no example escapes the test.
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
			out = append(out, bashCommands(file, start+1, block)...)
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

// bashCommands returns the adi command lines of one bash block whose first line is line first.
func bashCommands(file string, first int, block []string) []docCommand {
	prompted := false
	for _, l := range block {
		prompted = prompted || strings.HasPrefix(l, "$ ")
	}
	var out []docCommand
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
		if strings.HasPrefix(l, "adi ") {
			out = append(out, docCommand{file: file, line: at, text: l})
		}
	}
	return out
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
// directory holding the programs they name; each run must exit as expected, print its expected
// text and leave no file behind. The commands of one document are one session.
func TestReadmeExamples(t *testing.T) {
	var all []docCommand
	for _, f := range exampleDocs {
		all = append(all, docCommands(t, f)...)
	}
	seen := map[string]int{}
	for _, c := range all {
		seen[c.text]++
	}
	for cmd := range exampleExpect {
		if seen[cmd] == 0 {
			t.Errorf("exampleExpect has %q, which no document shows any more: remove it (or fix the document)", cmd)
		}
	}
	for cmd := range exampleSkipped {
		if seen[cmd] == 0 {
			t.Errorf("exampleSkipped has %q, which no document shows any more: remove it", cmd)
		}
	}
	for cmd, n := range seen {
		_, skipped := exampleSkipped[cmd]
		if got := len(exampleExpect[cmd]); !skipped && got != n {
			t.Errorf("the documents run %q %d time(s), and exampleExpect in integration/readme_test.go has %d expectation(s) for it: add what each run must answer (or list it in exampleSkipped with the reason)", cmd, n, got)
		}
	}
	if t.Failed() {
		return
	}

	bin := adiBinary(t)
	runs := map[string]int{}
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
				want := exampleExpect[c.text][runs[c.text]]
				runs[c.text]++
				before := strayFiles(t, dir)
				res := runBash(t, dir, env, c.text)
				where := fmt.Sprintf("%s:%d: %s", c.file, c.line, c.text)
				assert.Equal(t, want.code, res.code, "%s: exit status\nstdout:\n%s\nstderr:\n%s", where, res.stdout, res.stderr)
				assert.Contains(t, res.stdout, want.stdout, "%s: stdout", where)
				assert.Contains(t, res.stderr, want.stderr, "%s: stderr", where)
				assert.Equal(t, before, strayFiles(t, dir), "%s: files in the working directory before and after (a stray file is a redirection or a command the quoting broke)", where)
			}
		})
	}
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
