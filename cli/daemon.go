package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Files of the daemon under the state directory.
const (
	daemonFile = "daemon.json" // DaemonInfo, 0600
	daemonLock = "daemon.lock" // held while a daemon is being started
	daemonLog  = "daemon.log"  // the daemon's stderr
)

// startTimeout bounds how long a starting daemon may take to print its address.
const startTimeout = 20 * time.Second

// ensureDaemon returns a running daemon for the state directory, starting one when none answers.
// A lock file makes concurrent commands start one daemon, not several.
func ensureDaemon(ctx context.Context, env *Env) (DaemonInfo, error) {
	path := daemonPath(env)
	if info, err := ReadDaemonInfo(path); err == nil && alive(ctx, info) {
		return info, nil
	}
	if err := os.MkdirAll(env.StateDir, 0o700); err != nil {
		return DaemonInfo{}, fmt.Errorf("adi: cannot create the state directory %s (set ADI_STATE_DIR): %w", env.StateDir, err)
	}
	unlock, err := lockFile(filepath.Join(env.StateDir, daemonLock))
	if err != nil {
		return DaemonInfo{}, err
	}
	defer unlock()
	if info, err := ReadDaemonInfo(path); err == nil && alive(ctx, info) {
		return info, nil // another command started it meanwhile
	}
	return startDaemon(ctx, env, path)
}

// daemonPath is the daemon's state file.
func daemonPath(env *Env) string { return filepath.Join(env.StateDir, daemonFile) }

// alive reports whether the daemon answers.
func alive(ctx context.Context, info DaemonInfo) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c := newRPC(info)
	defer c.close()
	return c.call(ctx, "server.info", nil, nil) == nil
}

// startDaemon starts `adi-server serve` detached (its own session and process group, stdin from
// /dev/null, stderr to daemon.log) and waits for the two lines it prints when it listens.
func startDaemon(ctx context.Context, env *Env, path string) (DaemonInfo, error) {
	logPath := filepath.Join(env.StateDir, daemonLog)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return DaemonInfo{}, fmt.Errorf("adi: cannot open the daemon log %s: %w", logPath, err)
	}
	defer logf.Close()
	args := []string{"serve", "--listen", "127.0.0.1:0", "--idle-timeout", env.IdleTimeout.String(),
		"--exit-when-idle", env.DaemonIdle.String(), "--state-file", path, "--log-level", env.LogLevel}
	if env.Python != "" {
		args = append(args, "--python", env.Python)
	}
	exe, err := env.Server()
	if err != nil {
		return DaemonInfo{}, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append([]string(nil), env.Environ...), "ADI_STATE_DIR="+env.StateDir)
	cmd.Dir = env.StateDir
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return DaemonInfo{}, err
	}
	if err := cmd.Start(); err != nil {
		return DaemonInfo{}, fmt.Errorf("adi: cannot start the daemon %s: %w", exe, err)
	}
	lines := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(out)
		for len(got) < 2 && sc.Scan() {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	var got []string
	select {
	case got = <-lines:
	case <-time.After(startTimeout):
	case <-ctx.Done():
	}
	info := DaemonInfo{PID: cmd.Process.Pid}
	ok := len(got) == 2
	if ok {
		var ok1, ok2 bool
		info.URL, ok1 = strings.CutPrefix(got[0], "adi listening at ")
		info.Token, ok2 = strings.CutPrefix(got[1], "adi token ")
		ok = ok1 && ok2 && info.URL != "" && info.Token != ""
	}
	if !ok {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		return DaemonInfo{}, fmt.Errorf("adi: the daemon did not start; see %s (last line: %s)", logPath, lastLogLine(logPath))
	}
	_ = cmd.Process.Release()
	return info, nil
}

func lastLogLine(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// lockFile takes an exclusive lock on path, waiting for it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("adi: cannot open the lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("adi: cannot lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// stopDaemon asks the daemon to stop, waits for its process to end (signalling it if it does
// not), and removes its state file. It reports the pid it stopped (0: none was running).
func stopDaemon(ctx context.Context, env *Env) (int, error) {
	path := daemonPath(env)
	info, err := ReadDaemonInfo(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	c := newRPC(info)
	err = c.call(ctx, "server.shutdown", nil, nil)
	c.close()
	if err != nil && !errors.Is(err, errUnreachable) {
		return 0, err
	}
	if !waitGone(info.PID, 15*time.Second) {
		_ = syscall.Kill(info.PID, syscall.SIGTERM)
		if !waitGone(info.PID, 5*time.Second) {
			_ = syscall.Kill(info.PID, syscall.SIGKILL)
			waitGone(info.PID, 5*time.Second)
		}
	}
	RemoveDaemonInfo(path, info.PID)
	return info.PID, nil
}

// waitGone waits until process pid has ended, up to d.
func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if ProcessGone(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ProcessGone reports whether process pid has ended (a zombie waiting to be reaped counts as
// ended, where the system says so: see isZombie).
func ProcessGone(pid int) bool {
	if pid <= 0 {
		return true
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	return isZombie(pid)
}
