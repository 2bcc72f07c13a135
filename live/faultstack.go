package live

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/adi-bridge/adi/probe"
)

// faultLine is one frame of a faulthandler dump: `  File "/p/t.py", line 3 in f`.
var faultLine = regexp.MustCompile(`^\s+File "(.*)", line (\d+) in (.*)$`)

// faultStack asks the launcher's faulthandler (SIGUSR2) for the Python stack of the debuggee's
// main thread, for a program that cannot pause. It returns the program's own frames, innermost
// first, or nothing when the dump does not come within half a second.
func (s *Session) faultStack() []Frame {
	pid := s.run.debuggeePid()
	if pid <= 0 {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGUSR2); err != nil {
		return nil
	}
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if frames, ok := s.readDump(); ok {
			return frames
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// readDump parses the dump: its first line names the main thread ("main 0x..."), then come
// faulthandler's blocks, one per thread. ok is false until the main thread's block is complete.
func (s *Session) readDump() ([]Frame, bool) {
	f, err := os.Open(s.run.dump)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	main := ""
	if sc.Scan() {
		main = strings.TrimPrefix(sc.Text(), "main ")
	}
	var frames []Frame
	in, done := false, false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Thread ") || strings.HasPrefix(line, "Current thread ") {
			if in {
				done = true
				break
			}
			in = main != "" && strings.Contains(line, main)
			continue
		}
		if !in {
			continue
		}
		if line == "" {
			done = true
			break
		}
		m := faultLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if !s.ownCode(m[1]) {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		frames = append(frames, Frame{Index: len(frames), File: m[1], Line: n, Function: m[3]})
	}
	if in && !done {
		done = true // the main thread's block was the last one
	}
	return frames, done && len(frames) > 0
}

// ownCode reports whether a file belongs to the program rather than to adi, debugpy or Python.
func (s *Session) ownCode(file string) bool {
	if strings.HasPrefix(file, "<") {
		return false
	}
	for _, install := range []func() (string, error){installLauncher, probe.Install} {
		if dir, err := install(); err == nil && strings.HasPrefix(file, dir+string(filepath.Separator)) {
			return false // the launcher's and the probe's own frames
		}
	}
	for _, skip := range []string{"/debugpy/", "/pydevd", "/_pydevd", "/_pydev_", "/lib/python3"} {
		if strings.Contains(file, skip) {
			return false
		}
	}
	return true
}
