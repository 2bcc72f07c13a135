package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cli runs adi's real command-line binary against one state directory (so one daemon), in a
// workload's directory, as an agent's shell would.
type cli struct {
	exe   string // the adi binary
	state string // ADI_STATE_DIR
	dir   string // the workload's directory
	// merged captures standard output and error through one pipe, as a terminal shows
	// `adi ... 2>&1`, into the result's Output (its Stdout and Stderr stay empty).
	merged bool
	// env adds KEY=VALUE pairs to adi's environment (and so to its target's).
	env []string
}

// cliResult is one command: its wall time as a whole process, exit status and output, and
// whether it ran the target (a new run directory appeared in the session).
type cliResult struct {
	Args           []string
	Time           time.Duration
	Code           int
	Stdout, Stderr string
	// Output is both streams in the order they were written (2>&1), when captured merged.
	Output string
	Reran  bool
}

// Answered reports whether the command answered: exit status 0, or 1 with an answer on stdout
// and no error line saying a run failed to reach its frame (adi's CLI exits 1 both when the
// target failed but the answer is useful and when the command failed).
func (r cliResult) Answered() bool { return answered(r.Code, r.Stdout, r.Stderr) }

func answered(code int, stdout, stderr string) bool {
	switch {
	case code == 0:
		return true
	case code != 1 || strings.TrimSpace(stdout) == "":
		return false
	}
	// a re-run refused (the frame is not the same invocation), or an exec that could not stop
	return !strings.Contains(stderr, "cannot record the FLT of") && !strings.Contains(stderr, "cannot stop in")
}

// Error is the command's one-line failure, for notes: its last stderr line.
func (r cliResult) Error() string {
	return fmt.Sprintf("`adi %s` exited %d: %s", strings.Join(r.Args, " "), r.Code, lastLines(r.Stderr, 1))
}

// BuildADI builds adi's two binaries from the repository into the scratch directory, as `make
// build` does (the thin adi and adi-server beside it, which adi starts as its daemon), and
// returns the thin adi's path: the real-repository table drives it as an agent's shell would.
func (e *Env) BuildADI(ctx context.Context) (string, error) {
	dir := filepath.Join(e.Work, "bin")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), "./cmd/adi", "./cmd/adi-server")
	cmd.Dir = e.Repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as `make build` builds them
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/adi ./cmd/adi-server: %w: %s", err, lastLines(string(out), 5))
	}
	return filepath.Join(dir, "adi"), nil
}

// run runs `adi ARGS...` and times it. session names the session whose run directories show
// whether the command ran the target ("" before the first command). An error means adi could
// not be started; a command that failed is a result with its exit status.
func (c *cli) run(ctx context.Context, session string, args ...string) (cliResult, error) {
	before := c.runs(session)
	cmd := exec.CommandContext(ctx, c.exe, args...)
	cmd.Dir = c.dir
	cmd.Env = c.environ()
	res, err := runProcess(cmd, args, c.merged)
	if err != nil {
		return res, fmt.Errorf("adi %s: %w", strings.Join(args, " "), err)
	}
	res.Reran = session != "" && c.runs(session) > before
	return res, nil
}

// runProcess runs cmd (args are its arguments, for the result) and times it as a whole process.
// merged captures standard output and error through one pipe, in the order they were written,
// into Output; otherwise each into its own field. An error means it could not be started; a
// command that failed is a result with its exit status.
func runProcess(cmd *exec.Cmd, args []string, merged bool) (cliResult, error) {
	var out, errb strings.Builder
	if merged {
		cmd.Stdout, cmd.Stderr = &out, &out // the same writer: one pipe, as 2>&1
	} else {
		cmd.Stdout, cmd.Stderr = &out, &errb
	}
	start := time.Now()
	err := cmd.Run()
	res := cliResult{Args: args, Time: time.Since(start)}
	if merged {
		res.Output = out.String()
	} else {
		res.Stdout, res.Stderr = out.String(), errb.String()
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		return res, err
	}
	return res, nil
}

// environ is the agent's environment with the benchmark's state directory and the Debian python;
// no session is preset.
func (c *cli) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "ADI_STATE_DIR", "ADI_PYTHON", "ADI_SESSION":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, c.env...)
	return append(env, "ADI_STATE_DIR="+c.state, "ADI_PYTHON="+DebianPython)
}

// sessionDir is where the daemon keeps a session.
func (c *cli) sessionDir(session string) string { return filepath.Join(c.state, "sessions", session) }

// runs counts a session's run directories (each run of the target makes one).
func (c *cli) runs(session string) int {
	if session == "" {
		return 0
	}
	ents, err := os.ReadDir(filepath.Join(c.sessionDir(session), "runs"))
	if err != nil {
		return 0
	}
	return len(ents)
}

// settleTime is how long the daemon is left alone before its memory is read: it returns freed
// memory to the system a second after its last command (bridge/memory.go), and a session idle for
// 2 s starts its probe process kept ready, returning what that start allocated a second later
// (bridge/ready.go).
const settleTime = 4500 * time.Millisecond

// settledMemory waits for the daemon to settle and returns its resident memory.
func (c *cli) settledMemory(ctx context.Context) (int64, error) {
	select {
	case <-time.After(settleTime):
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	pid, err := c.daemonPID()
	if err != nil {
		return 0, err
	}
	return residentMemory(pid)
}

// daemonPID returns the process id of the state directory's `adi serve` daemon.
func (c *cli) daemonPID() (int, error) {
	b, err := os.ReadFile(filepath.Join(c.state, "daemon.json"))
	if err != nil {
		return 0, fmt.Errorf("the daemon's state file: %w", err)
	}
	var info struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(b, &info); err != nil || info.PID == 0 {
		return 0, fmt.Errorf("the daemon's state file has no pid: %v", err)
	}
	return info.PID, nil
}

// recordedRE matches the line adi prints when a command recorded its target.
var recordedRE = regexp.MustCompile(`adi: recorded .*: (\d+) call\(s\) in \d+ ms, exit status -?\d+(?:; [^(]*)? \(session ([^)]+)\)`)

// parseRecorded returns the calls in T and the session id from a command's stderr, or ok=false
// when it recorded nothing.
func parseRecorded(stderr string) (calls int, session string, ok bool) {
	m := recordedRE.FindStringSubmatch(stderr)
	if m == nil {
		return 0, "", false
	}
	calls, _ = strconv.Atoi(m[1])
	return calls, m[2], true
}

// parseVmRSS returns the resident memory in bytes from the text of /proc/PID/status.
func parseVmRSS(status string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		v, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("VmRSS line %q: %w", line, err)
		}
		return kb * 1024, nil
	}
	return 0, errors.New("no VmRSS line")
}

// residentMemory returns a process's resident memory in bytes.
func residentMemory(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("the status of process %d: %w", pid, err)
	}
	return parseVmRSS(string(b))
}

// diskUsage returns the bytes the files under dir take on disk (allocated blocks, as du counts).
func diskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed meanwhile (the FIFO of a run kept ready, taken)
		}
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("disk usage of %s: %w", dir, err)
	}
	return total, nil
}
