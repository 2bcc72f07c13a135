package probe

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/adi-bridge/adi/adi"
)

// ControlTimeout bounds one exchange with a probe's control server (it answers in microseconds;
// this only bounds a program that stopped answering).
const ControlTimeout = 5 * time.Second

// Control is a client of the control server a running probe serves on a unix socket
// (PROTOCOL.md, "Watching in a live process": ops add, remove, list, flush, ping, one JSON object
// per line each way): the live watch recorder's, and an editor's recording run's (config
// "control"). Exchanges are serialised; a nil *Control's Close does nothing.
type Control struct {
	path string
	mu   sync.Mutex
	conn net.Conn
	rd   *bufio.Reader
	seq  int
}

// NewControl returns a client of the control server at path; it dials at the first call.
func NewControl(path string) *Control { return &Control{path: path} }

// Path returns the socket's path.
func (p *Control) Path() string { return p.path }

// Call sends one request and decodes the answer's result into out (nil: dropped). An error
// answer is an adi.BadInput error with the probe's message. A connection that fails is dropped;
// the next call dials again.
func (p *Control) Call(ctx context.Context, op string, params map[string]any, out any) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		d := net.Dialer{Timeout: ControlTimeout}
		c, err := d.DialContext(ctx, "unix", p.path)
		if err != nil {
			return fmt.Errorf("the program's watch recorder does not answer (%w)", err)
		}
		p.conn, p.rd = c, bufio.NewReader(c)
	}
	p.seq++
	req := map[string]any{"id": p.seq, "op": op}
	for k, v := range params {
		req[k] = v
	}
	b, _ := json.Marshal(req)
	deadline := time.Now().Add(ControlTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = p.conn.SetDeadline(deadline)
	fail := func(err error) error {
		_ = p.conn.Close()
		p.conn = nil
		return fmt.Errorf("the program's watch recorder did not answer %s (%w)", op, err)
	}
	if _, err := p.conn.Write(append(b, '\n')); err != nil {
		return fail(err)
	}
	line, err := p.rd.ReadBytes('\n')
	if err != nil {
		return fail(err)
	}
	var ans struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(line, &ans); err != nil {
		return fail(fmt.Errorf("bad answer %q: %w", line, err))
	}
	if ans.Error != "" {
		return adi.BadInputf("%s", ans.Error)
	}
	if out != nil {
		return json.Unmarshal(ans.Result, out)
	}
	return nil
}

// Close closes the connection (the next Call dials again).
func (p *Control) Close() {
	if p == nil { // a run with no control server (attached to a program adi did not start)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		_ = p.conn.Close()
		p.conn = nil
	}
}

// WatchText describes a watch as every face shows it: "FUNC", "FUNC if COND", "FUNC, at most N".
func WatchText(fn, cond string, max int) string {
	if cond != "" {
		fn += " if " + cond
	}
	if max > 0 {
		fn += fmt.Sprintf(", at most %d", max)
	}
	return fn
}
