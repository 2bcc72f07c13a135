package bench

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

//go:embed realbugs/*.patch realbugs/*_repro.py
var realBugFiles embed.FS

// bugCommand is every real bug's target command: its reproduce script, run in the scratch
// directory that holds the patched package.
const bugCommand = "python3 repro.py"

// RealBug is one bug of the "real bugs" table: a known upstream fix undone in a Debian-packaged
// library copied into a scratch directory (so that it is user code, the SWE-bench setting), and
// the commands an agent types to find it, the same for adi and for the reference tool.
type RealBug struct {
	// Name names the bug in the table and its files: realbugs/NAME.patch re-introduces it,
	// realbugs/NAME_repro.py shows it.
	Name string
	// Instance is the SWE-bench instance whose fix the patch undoes.
	Instance string
	// Package is the importable package copied from dist-packages; Debian installs it.
	Package, Debian string
	// Func is the function where the bug is, FILE:QUALNAME relative to the scratch directory.
	Func string
	// Shows is a text of the reproduce script's output (standard output and error) that shows
	// the bug: a run without it means the patch did not take.
	Shows string
	// Steps are the commands, each as typed after `adi` or `python3 -m ADI`.
	Steps [][]string
	// Decisive is the answer that shows the bug.
	Decisive Decisive
}

// Decisive says which answer shows a bug: one with a line that matches Line, about the frame
// that Frame matches somewhere in it (any answer when Frame is empty).
type Decisive struct {
	Frame, Line string
}

// line returns the number (from 1) of the first line of out that shows the decisive evidence,
// or 0 when out does not show it.
func (d Decisive) line(out string) int {
	if d.Frame != "" && !regexp.MustCompile(d.Frame).MatchString(out) {
		return 0
	}
	re := regexp.MustCompile(d.Line)
	for i, l := range strings.Split(out, "\n") {
		if re.MatchString(l) {
			return i + 1
		}
	}
	return 0
}

// RealBugs are the bugs of the table. Each function is called more than once, several calls
// deep; requests' and scikit-learn's are reached in a loop (continue), django-11880's is an
// in-place mutation of a dict its copies share.
var RealBugs = []RealBug{
	{Name: "requests-1963", Instance: "psf__requests-1963", Package: "requests", Debian: "python3-requests",
		Func:  "requests/sessions.py:SessionRedirectMixin.resolve_redirects",
		Shows: "'POST /receipt/v2'",
		Steps: [][]string{
			{"call-tree", bugCommand, "repro.py:checkout#1"},
			{"break", bugCommand, "requests/sessions.py:SessionRedirectMixin.rebuild_method#1"},
			{"continue", bugCommand},
			{"continue", bugCommand},
		},
		Decisive: Decisive{Frame: `rebuild_method#3\b`, Line: `\+ method = 'POST'`}},
	{Name: "django-12700", Instance: "django__django-12700", Package: "django", Debian: "python3-django",
		Func:  "django/views/debug.py:SafeExceptionReporterFilter.cleanse_setting",
		Shows: "secret shown: True",
		Steps: [][]string{
			{"call-tree", bugCommand, "repro.py:debug_page_settings#1"},
			{"break", bugCommand, "django/views/debug.py:SafeExceptionReporterFilter.cleanse_setting", "--condition", "key == 'fallbacks'"},
			{"continue", bugCommand},
		},
		Decisive: Decisive{Frame: `cleanse_setting#104\b`, Line: `\+ cleansed = \[\{'NAME': 'paypal', 'API_KEY': 'sk_live_fallback'\}\]`}},
	{Name: "django-11880", Instance: "django__django-11880", Package: "django", Debian: "python3-django",
		Func:  "django/forms/fields.py:Field.__deepcopy__",
		Shows: "['Tell us your name, friend']",
		Steps: [][]string{
			{"call-tree", bugCommand, "repro.py:main#1"},
			{"break", bugCommand, "repro.py:make_form#1"},
			{"step-in", bugCommand, "django/forms/fields.py:Field.__deepcopy__#3"},
			{"exec", bugCommand, "django/forms/fields.py:Field.__deepcopy__#3", "-s", "print('shared:', result.error_messages is self.error_messages)"},
		},
		Decisive: Decisive{Line: `shared: True`}},
	{Name: "sklearn-15100", Instance: "scikit-learn__scikit-learn-15100", Package: "sklearn", Debian: "python3-sklearn",
		Func:  "sklearn/feature_extraction/text.py:strip_accents_unicode",
		Shows: "'nai'",
		Steps: [][]string{
			{"call-tree", bugCommand, "repro.py:vocabulary#1"},
			{"break", bugCommand, "sklearn/feature_extraction/text.py:strip_accents_unicode#1"},
			{"continue", bugCommand},
			{"continue", bugCommand},
		},
		Decisive: Decisive{Frame: `strip_accents_unicode#3\b`, Line: `^\s*152 \| return s\s*$`}},
	{Name: "sympy-18189", Instance: "sympy__sympy-18189", Package: "sympy", Debian: "python3-sympy",
		Func:  "sympy/solvers/diophantine/diophantine.py:diophantine",
		Shows: "syms=(n, m): [(3, 2)]",
		Steps: [][]string{
			{"call-tree", bugCommand, "repro.py:main#1"},
			{"break", bugCommand, "sympy/solvers/diophantine/diophantine.py:diophantine#2"},
		},
		Decisive: Decisive{Frame: `diophantine#2\b`, Line: `for t in diophantine\(eq, param\)\}`}},
	{Name: "matplotlib-24149", Instance: "matplotlib__matplotlib-24149", Package: "matplotlib", Debian: "python3-matplotlib",
		Func:  "matplotlib/axes/_axes.py:Axes._convert_dx",
		Shows: "StopIteration",
		Steps: [][]string{
			{"call-tree", bugCommand, "repro.py:main#1"},
			{"break", bugCommand, "matplotlib/axes/_axes.py:Axes._convert_dx#3"},
		},
		Decisive: Decisive{Frame: `_convert_dx#3\b`, Line: `\bx0 ?= ?\[nan\]`}},
}

// file returns one of the bug's embedded files: "patch" or "repro".
func (b RealBug) file(kind string) ([]byte, error) {
	name := "realbugs/" + b.Name + ".patch"
	if kind == "repro" {
		name = "realbugs/" + b.Name + "_repro.py"
	}
	return realBugFiles.ReadFile(name)
}

// bugAnswer is one command's answer as the agent's terminal shows it.
type bugAnswer struct {
	Args   []string
	Output string // standard output and error, merged (2>&1)
	Time   time.Duration
	// Failed is the command's failure, when it did not answer ("" when it did).
	Failed string
}

// BugRun is one tool's investigation of one bug: its commands until the first answer that shows
// the decisive evidence (all of them when none does).
type BugRun struct {
	Commands int           // commands typed
	Chars    int           // characters of their answers
	Time     time.Duration // their wall time, each a whole process
	Shown    bool          // the last of them shows the decisive evidence
	Line     int           // the decisive line's number in that answer (from 1)
	// PerAnswer is each answer's characters, in order.
	PerAnswer []int
	// Failed lists the commands that did not answer, with their failure.
	Failed  []string
	Answers []bugAnswer
}

// decisiveLines is how far into its answer the decisive line must be (the bar).
const decisiveLines = 40

// Within reports whether the decisive evidence was shown within the answer's first 40 lines.
func (r *BugRun) Within() bool { return r.Shown && r.Line <= decisiveLines }

// scoreBug counts answers until and including the first that shows d's evidence.
func scoreBug(d Decisive, answers []bugAnswer) *BugRun {
	r := &BugRun{}
	for _, a := range answers {
		r.Commands++
		n := utf8.RuneCountInString(a.Output)
		r.Chars += n
		r.PerAnswer = append(r.PerAnswer, n)
		r.Time += a.Time
		r.Answers = append(r.Answers, a)
		if a.Failed != "" {
			r.Failed = append(r.Failed, fmt.Sprintf("`%s` %s", shellWords(a.Args), a.Failed))
		}
		if line := d.line(a.Output); line > 0 {
			r.Shown, r.Line = true, line
			break
		}
	}
	return r
}

// shellWords renders a command's arguments as a shell would take them back: words with spaces
// or quotes quoted.
func shellWords(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case a == "" || strings.ContainsAny(a, " '\"#$()"):
			if !strings.Contains(a, "'") {
				out[i] = "'" + a + "'"
			} else {
				out[i] = `"` + strings.ReplaceAll(a, `"`, `\"`) + `"`
			}
		default:
			out[i] = a
		}
	}
	return strings.Join(out, " ")
}

// RealBugRow is one bug of the table: adi's investigation and the reference tool's (nil when
// the reference tool was not given).
type RealBugRow struct {
	Bug      RealBug
	ADI, Ref *BugRun
}

// RealBugWorkload prepares b's scratch directory (once per benchmark run): its package copied
// from the Debian python's dist-packages, the patch applied, the reproduce script as repro.py;
// then runs the script once (which also warms the disk cache for both tools) and checks that its
// output shows the bug. It returns the directory.
func (e *Env) RealBugWorkload(ctx context.Context, b RealBug) (string, error) {
	dir := filepath.Join(e.Work, "realbugs", b.Name)
	fresh := false
	if _, err := os.Stat(filepath.Join(dir, b.Package)); os.IsNotExist(err) {
		fresh = true
	}
	if err := e.copyPackage(ctx, b.Package, b.Debian, dir); err != nil {
		return "", err
	}
	if fresh {
		patch, err := b.file("patch")
		if err != nil {
			return "", err
		}
		cmd := exec.CommandContext(ctx, "patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "-d", dir)
		cmd.Stdin = bytes.NewReader(patch)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("patch realbugs/%s.patch (another %s version?): %w: %s", b.Name, b.Debian, err, lastLines(string(out), 3))
		}
	}
	repro, err := b.file("repro")
	if err != nil {
		return "", err
	}
	if err := writeFile(dir, "repro.py", string(repro)); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, DebianPython, "repro.py")
	cmd.Dir = dir
	cmd.Env = workloadEnv(nil)
	res, err := runProcess(cmd, cmd.Args[1:], true)
	if err != nil {
		return "", err
	}
	if !strings.Contains(res.Output, b.Shows) {
		return "", fmt.Errorf("%s's reproduce script does not show the bug (no %q in its output): %s", b.Name, b.Shows, lastLines(res.Output, 3))
	}
	return dir, nil
}

// RealBugBench investigates b with adi's CLI binary exe and, when ref is not empty, with the
// reference tool whose src/ directory ref is: each in a fresh state directory, command after
// command until an answer shows the decisive evidence.
func (e *Env) RealBugBench(ctx context.Context, exe, ref string, b RealBug) (*RealBugRow, error) {
	dir, err := e.RealBugWorkload(ctx, b)
	if err != nil {
		return nil, err
	}
	row := &RealBugRow{Bug: b}
	state, err := os.MkdirTemp(e.Work, "state-bug-")
	if err != nil {
		return nil, err
	}
	c := &cli{exe: exe, state: state, dir: dir, merged: true, env: workloadVars}
	defer c.stop(ctx)
	row.ADI, err = investigate(b, dir, func(args []string) (cliResult, error) { return c.run(ctx, "", args...) },
		func(r cliResult) bool { return answered(r.Code, r.Output, r.Output) })
	if err != nil {
		return nil, err
	}
	if ref == "" {
		return row, nil
	}
	refState, err := os.MkdirTemp(e.Work, "state-ref-")
	if err != nil {
		return nil, err
	}
	rc := &refCLI{src: ref, state: refState, dir: dir}
	row.Ref, err = investigate(b, dir, func(args []string) (cliResult, error) { return rc.run(ctx, args...) }, refAnswered)
	if err != nil {
		return nil, err
	}
	return row, nil
}

// testbed is where SWE-bench puts the repository under test: the answers are counted with the
// scratch directory's path written so (asPrinted), as if the bug's directory were there.
const testbed = "/testbed"

// asPrinted returns an answer as it reads with the bug's directory dir at /testbed: the
// reference tool prints absolute paths (about 50 characters each for the scratch directory of
// this benchmark), so its counts would otherwise depend on where the scratch directory is.
func asPrinted(out, dir string) string { return strings.ReplaceAll(out, dir, testbed) }

// investigate types b's commands with run in b's directory dir, one after the other, until an
// answer shows the decisive evidence, and scores them; ok says whether a command answered.
func investigate(b RealBug, dir string, run func([]string) (cliResult, error), ok func(cliResult) bool) (*BugRun, error) {
	var answers []bugAnswer
	for _, args := range b.Steps {
		res, err := run(args)
		if err != nil {
			return nil, err
		}
		res.Output = asPrinted(res.Output, dir)
		a := bugAnswer{Args: args, Output: res.Output, Time: res.Time}
		if !ok(res) {
			a.Failed = fmt.Sprintf("exited %d: %s", res.Code, lastLines(res.Output, 1))
		}
		answers = append(answers, a)
		if b.Decisive.line(res.Output) > 0 {
			break
		}
	}
	return scoreBug(b.Decisive, answers), nil
}

// refCLI runs the reference tool (the ADI artifact's CLI, `python3 -m ADI`) from its src/
// directory against one state directory, in a bug's directory, with the Debian python first on
// PATH (its commands run `python3 repro.py` from PATH).
type refCLI struct {
	src, state, dir string
}

// run runs `python3 -m ADI ARGS...` with its output merged, as a terminal shows it.
func (r *refCLI) run(ctx context.Context, args ...string) (cliResult, error) {
	cmd := exec.CommandContext(ctx, DebianPython, append([]string{"-m", "ADI"}, args...)...)
	cmd.Dir = r.dir
	var env []string
	for _, kv := range workloadEnv(nil) {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PYTHONPATH", "ADI_STATE_DIR", "PATH":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "PYTHONPATH="+r.src, "ADI_STATE_DIR="+r.state,
		"PATH="+filepath.Dir(DebianPython)+string(os.PathListSeparator)+os.Getenv("PATH"))
	res, err := runProcess(cmd, args, true)
	if err != nil {
		return res, fmt.Errorf("python3 -m ADI %s: %w", strings.Join(args, " "), err)
	}
	return res, nil
}

// refAnswered reports whether the reference tool answered: it exits 1 both when the target
// failed and the answer is still there and when the command failed, which then says so first
// ("Error: …", "No FLT captured …", after its "[command] …" progress lines).
func refAnswered(r cliResult) bool {
	if r.Code == 0 {
		return true
	}
	for _, l := range strings.Split(r.Output, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "[") {
			continue
		}
		return !strings.HasPrefix(l, "Error") && !strings.HasPrefix(l, "No FLT captured")
	}
	return false
}

// ReferenceEnv is the environment variable that names the reference tool's src/ directory.
const ReferenceEnv = "ADI_REFERENCE"

// ReferenceSkipped is the line printed when the reference tool's columns were skipped.
const ReferenceSkipped = "The reference tool's columns were skipped: set " + ReferenceEnv + " to the src/ directory of the ADI artifact " +
	"(git clone https://github.com/GhabiX/ADI; " + ReferenceEnv + "=$PWD/ADI/src), which is run as `python3 -m ADI` with PYTHONPATH there."

// CheckReference returns the reference tool's src/ directory from ADI_REFERENCE: "" when it is
// not set, an error when it does not hold the tool.
func CheckReference() (string, error) {
	src := os.Getenv(ReferenceEnv)
	if src == "" {
		return "", nil
	}
	src, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(src, "ADI", "__main__.py")); err != nil {
		return "", fmt.Errorf("%s=%s holds no ADI/__main__.py (it should name the artifact's src/ directory)", ReferenceEnv, src)
	}
	return src, nil
}

// WriteAnswers writes every answer of the row into dir/BUG/, one file each: adi-N.txt and
// reference-N.txt, each the command line then its answer.
func (r *RealBugRow) WriteAnswers(dir string) error {
	dir = filepath.Join(dir, r.Bug.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for tool, run := range map[string]*BugRun{"adi": r.ADI, "reference": r.Ref} {
		if run == nil {
			continue
		}
		for i, a := range run.Answers {
			text := "$ " + shellWords(a.Args) + "\n" + a.Output
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.txt", tool, i+1)), []byte(text), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
