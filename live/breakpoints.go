package live

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/adi-bridge/adi/adi"
)

// breakpoint is one line breakpoint of a session. It outlives runs: restart arms every one again.
type breakpoint struct {
	File      string // absolute, symlinks resolved
	Line      int
	Condition string
	Keep      bool // stays after a hit; otherwise it is disarmed once hit
	Armed     bool // sent to debugpy in this run
	Hits      int  // stops at it in this run
	Source    string
	Message   string // debugpy's word when it could not verify it
}

// Breakpoint describes a breakpoint in answers.
type Breakpoint struct {
	Location  string `json:"location"` // FILE:LINE as given back to the agent
	File      string `json:"file"`
	Line      int    `json:"line"`
	Condition string `json:"condition,omitempty"`
	Keep      bool   `json:"keep"`
	Armed     bool   `json:"armed"`
	Hits      int    `json:"hits"`
	Message   string `json:"message,omitempty"`
}

// info describes b, its file relative to dir where that is shorter.
func (b *breakpoint) info(dir string) Breakpoint {
	return Breakpoint{Location: shortPath(dir, b.File) + ":" + strconv.Itoa(b.Line), File: b.File, Line: b.Line,
		Condition: b.Condition, Keep: b.Keep, Armed: b.Armed, Hits: b.Hits, Message: b.Message}
}

// text renders b for a summary: "t.py:12 if x > 3 (keep, hit 2)".
func (b *breakpoint) text(dir string) string {
	s := shortPath(dir, b.File) + ":" + strconv.Itoa(b.Line)
	if b.Condition != "" {
		s += " if " + b.Condition
	}
	var notes []string
	if b.Keep {
		notes = append(notes, "keep")
	}
	notes = append(notes, fmt.Sprintf("hit %d", b.Hits))
	if !b.Armed {
		notes = append(notes, "removed")
	}
	if b.Message != "" {
		notes = append(notes, "debugpy: "+b.Message)
	}
	return s + " (" + strings.Join(notes, ", ") + ")"
}

// shortPath writes path relative to dir when it lies below it.
func shortPath(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// canonical makes a path absolute (against dir) with symlinks resolved, as debugpy reports it.
func canonical(dir, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	path = filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// parseLocation reads FILE:LINE (or LINE alone, meaning the target script) against dir and checks
// that the line holds a statement. It returns the canonical file, the line and its source text.
func parseLocation(dir, script, loc string) (string, int, string, error) {
	loc = strings.TrimSpace(loc)
	file, lineText := script, loc
	if i := strings.LastIndexByte(loc, ':'); i >= 0 {
		file, lineText = loc[:i], loc[i+1:]
	}
	line, err := strconv.Atoi(strings.TrimSpace(lineText))
	if err != nil || line <= 0 {
		return "", 0, "", adi.BadInputf("location %q is not FILE:LINE with a line number from 1, e.g. t.py:12", loc)
	}
	if strings.TrimSpace(file) == "" {
		return "", 0, "", adi.BadInputf("location %q names no file (the target is not a script); give FILE:LINE, e.g. t.py:12", loc)
	}
	path := canonical(dir, strings.TrimSpace(file))
	src, err := sourceLines(path)
	if err != nil {
		return "", 0, "", adi.BadInputf("cannot set a breakpoint in %s: %v; give a Python file of the program", path, err)
	}
	if line > len(src) {
		return "", 0, "", adi.BadInputf("%s has %d lines; line %d does not exist", shortPath(dir, path), len(src), line)
	}
	text := strings.TrimSpace(src[line-1])
	if text == "" || strings.HasPrefix(text, "#") {
		return "", 0, "", adi.BadInputf("line %d of %s is %s; a breakpoint needs a line with a statement%s",
			line, shortPath(dir, path), map[bool]string{true: "blank", false: "a comment"}[text == ""], nearest(src, line))
	}
	return path, line, text, nil
}

// nearest suggests the closest statement lines above and below line (within five lines).
func nearest(src []string, line int) string {
	isCode := func(n int) bool {
		t := strings.TrimSpace(src[n-1])
		return t != "" && !strings.HasPrefix(t, "#")
	}
	var found []string
	for n := line - 1; n >= 1 && n >= line-5; n-- {
		if isCode(n) {
			found = append(found, strconv.Itoa(n))
			break
		}
	}
	for n := line + 1; n <= len(src) && n <= line+5; n++ {
		if isCode(n) {
			found = append(found, strconv.Itoa(n))
			break
		}
	}
	if len(found) == 0 {
		return ""
	}
	return " (e.g. line " + strings.Join(found, " or ") + ")"
}

// sourceLines reads a file's lines (at most 1 MiB per line).
func sourceLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("it is a directory")
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}
