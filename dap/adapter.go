package dap

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// AdapterOptions says how to start a debugpy adapter.
type AdapterOptions struct {
	Python *Python
	// Stock leaves out the TCP_NODELAY fix (for measurements); every real run keeps it.
	Stock bool
	// Env is the adapter's environment (default os.Environ()); the debuggee inherits it, plus what
	// the launch request adds. The run tag and, unless Stock, the NODELAY directory are added.
	Env []string
	// Dir is the adapter's working directory.
	Dir string
	// Tag marks every process of the run (see RunTagVar); NewRunTag() when empty.
	Tag string
	Log hclog.Logger
	// Raw leaves the adapter's stdio as a bare Conn (Adapter.Conn) with no Client reading it, for
	// callers that forward messages themselves (the DAP proxy).
	Raw bool
}

// Adapter is a running `python -m debugpy.adapter` talking DAP over its stdio, in its own process
// group, with a Client connected to it.
type Adapter struct {
	Client *Client
	// Conn is the adapter's stdio when AdapterOptions.Raw was set (Client is then nil).
	Conn *Conn
	Tag  string

	cmd       *exec.Cmd
	log       hclog.Logger
	waited    chan struct{}
	closeOnce sync.Once
}

// StartAdapter starts the adapter and connects a client. The caller must Close it.
func StartAdapter(ctx context.Context, opts AdapterOptions) (*Adapter, error) {
	if opts.Python == nil {
		return nil, fmt.Errorf("start debugpy adapter: no python given")
	}
	log := opts.Log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(append([]string(nil), env...), "PYDEVD_DISABLE_FILE_VALIDATION=1")
	if !opts.Stock {
		dir, err := InstallNoDelay()
		if err != nil {
			return nil, fmt.Errorf("start debugpy adapter: %w", err)
		}
		env = PrependPath(env, "PYTHONPATH", dir)
		env = append(env, "ADI_NODELAY_DIR="+dir)
	}
	tag := opts.Tag
	if tag == "" {
		tag = NewRunTag()
	}
	env = append(env, RunTagVar+"="+tag)

	cmd := exec.Command(opts.Python.Path, "-m", "debugpy.adapter")
	cmd.Env = env
	cmd.Dir = opts.Dir
	cmd.SysProcAttr = NewGroupAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start debugpy adapter: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start debugpy adapter: %w", err)
	}
	cmd.Stderr = &logWriter{log: log.Named("debugpy")}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start debugpy adapter with %s: %w", opts.Python.Path, err)
	}
	a := &Adapter{Tag: tag, cmd: cmd, log: log, waited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(a.waited)
	}()
	conn := NewConn(stdout, stdin, multiCloser{stdin, stdout})
	if opts.Raw {
		a.Conn = conn
	} else {
		a.Client = NewClient(conn, log.Named("dap"))
	}
	go func() {
		select {
		case <-ctx.Done():
			a.Close()
		case <-a.waited:
		}
	}()
	return a, nil
}

// Pid returns the adapter's process id.
func (a *Adapter) Pid() int { return a.cmd.Process.Pid }

// Exited is closed when the adapter process has exited.
func (a *Adapter) Exited() <-chan struct{} { return a.waited }

// Close ends every process of the run (adapter, debugpy launcher, debuggee and its children) and
// the client. It does not wait for debugpy to end the debuggee politely: callers that want that
// send disconnect first.
func (a *Adapter) Close() error {
	a.closeOnce.Do(func() {
		KillRun(a.cmd.Process.Pid, a.Tag)
		if a.Client != nil {
			_ = a.Client.Close()
		} else {
			_ = a.Conn.Close()
		}
		<-a.waited
	})
	return nil
}

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// logWriter turns a process's stderr into debug log lines.
type logWriter struct {
	log hclog.Logger
	mu  sync.Mutex
	buf []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.log.Debug(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}
