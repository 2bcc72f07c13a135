package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/internal/wire"
)

// rpcClient calls the daemon's HTTP API (POST /api/rpc) over one HTTP/1.1 connection it keeps
// for the process's calls. It writes the requests and reads the answers itself (httpresp.go)
// instead of going through net/http: a CLI command is a process that makes one or two calls and exits, and the
// client's transport (its goroutines, proxy lookup, connection pool) costs more than the call.
// The daemon runs each call to its end even when this process is killed meanwhile.
type rpcClient struct {
	info DaemonInfo
	// env, when set, lets a call start the daemon when the one in daemon.json does not answer
	// (it has exited, or another program now has its port), and call again.
	env *Env

	conn net.Conn
	br   *bufio.Reader
	// used is set once the connection has carried an answer: the daemon may have closed it
	// since, so a call that cannot be sent on it is sent again on a new one.
	used bool
}

// newRPC returns a client of the daemon described by info.
func newRPC(info DaemonInfo) *rpcClient {
	return &rpcClient{info: info}
}

// daemonRPC returns a client of the state directory's daemon. It reads daemon.json and trusts
// it: the first call finds out whether that daemon still answers, and starts one when not, so
// a command costs one request instead of a check and a request.
func daemonRPC(ctx context.Context, env *Env) (*rpcClient, error) {
	info, err := ReadDaemonInfo(daemonPath(env))
	if err != nil {
		if info, err = ensureDaemon(ctx, env); err != nil {
			return nil, err
		}
		return newRPC(info), nil
	}
	return &rpcClient{info: info, env: env}, nil
}

// errUnreachable is wrapped by errors about a daemon that does not answer at all.
var errUnreachable = errors.New("daemon unreachable")

// errNotSent is matched by errors after which the daemon has certainly not run the call: no
// connection, or an HTTP refusal before the call (another server on the port, a wrong token).
var errNotSent = errors.New("call not sent")

// notSent marks err as errNotSent without changing its text.
type notSent struct{ error }

func (e notSent) Unwrap() error        { return e.error }
func (e notSent) Is(target error) bool { return target == errNotSent }

// close closes the connection, if any.
func (c *rpcClient) close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn, c.br, c.used = nil, nil, false
	}
}

// call calls method and decodes the result into out (may be nil; a *json.RawMessage keeps the
// result as sent). A JSON-RPC error is returned as *wire.Error.
func (c *rpcClient) call(ctx context.Context, method string, params, out any) error {
	errs, err := c.calls(ctx, rpcCall{Method: method, Params: params, Out: out})
	if err != nil {
		return err
	}
	return errs[0]
}

// rpcCall is one call of a message: its method, its params (nil: none) and where its result is
// decoded (nil: skipped; a *json.RawMessage keeps it as sent).
type rpcCall struct {
	Method string
	Params any
	Out    any
}

// calls sends cs in one message (a JSON-RPC batch when there are several: the daemon runs them
// in order, one after the other) and decodes each result into its Out. errs[i] is call i's
// JSON-RPC error (*wire.Error), err an error of the exchange, which no call's answer came back
// from. One message instead of one per call saves a command a round trip and the daemon's
// answer to it: `adi prev "python3 repro.py"` sends session.create and adi.prev together.
func (c *rpcClient) calls(ctx context.Context, cs ...rpcCall) (errs []error, err error) {
	ids := make([]string, len(cs))
	msgs := make([]map[string]any, len(cs))
	for i, rc := range cs {
		params := rc.Params
		if params == nil {
			params = struct{}{}
		}
		ids[i] = callID()
		msgs[i] = map[string]any{"jsonrpc": "2.0", "id": ids[i], "method": rc.Method, "params": params}
	}
	body, err := encodeMessage(msgs)
	if err != nil {
		return nil, fmt.Errorf("adi: cannot encode the params of %s: %w", cs[0].Method, err)
	}
	data, err := c.post(ctx, body)
	if err != nil && ctx.Err() != nil && !errors.Is(err, errNotSent) {
		// Interrupted (Ctrl-C) while the daemon runs the calls: cancel them there, so that their
		// runs end now instead of holding the session.
		return nil, c.cancelRemote(cs[len(cs)-1].Method, ids)
	}
	if err != nil && errors.Is(err, errNotSent) && c.env != nil {
		// The daemon of daemon.json is gone: start one (or find the one another command
		// started meanwhile) and call it once more.
		env := c.env
		c.env = nil
		c.close()
		info, serr := ensureDaemon(ctx, env)
		if serr != nil {
			return nil, serr
		}
		c.info = info
		data, err = c.post(ctx, body)
	}
	if err != nil {
		return nil, err
	}
	c.env = nil // this daemon answers; later calls go to it
	errs = make([]error, len(cs))
	if len(cs) == 1 {
		errs[0] = decodeReply(data, cs[0].Out)
		return errs, nil
	}
	var replies []json.RawMessage
	if err := json.Unmarshal(data, &replies); err != nil {
		return nil, fmt.Errorf("adi: the daemon's answer is not a JSON-RPC batch: %w", err)
	}
	byID := make(map[string]json.RawMessage, len(replies))
	for _, r := range replies {
		var head struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(r, &head)
		byID[head.ID] = r
	}
	for i, rc := range cs {
		r, ok := byID[ids[i]]
		if !ok {
			return nil, fmt.Errorf("adi: the daemon's answer has no reply to %s", rc.Method)
		}
		errs[i] = decodeReply(r, rc.Out)
	}
	return errs, nil
}

// encodeMessage encodes requests as one JSON-RPC message: the request itself when there is one,
// else a batch.
func encodeMessage(msgs []map[string]any) ([]byte, error) {
	if len(msgs) == 1 {
		return json.Marshal(msgs[0])
	}
	return json.Marshal(msgs)
}

// decodeReply decodes one JSON-RPC reply: its result into out (see rpcCall.Out), or its error.
func decodeReply(data []byte, out any) error {
	if raw, ok := out.(*json.RawMessage); ok {
		var rep struct {
			Result json.RawMessage `json:"result"`
			Error  *wire.Error     `json:"error"`
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			return fmt.Errorf("adi: the daemon's answer is not JSON-RPC: %w", err)
		}
		if rep.Error != nil {
			return rep.Error
		}
		*raw = rep.Result
		return nil
	}
	// One pass: the result is decoded into out as the envelope is read (out may be nil: the
	// result is skipped).
	rep := struct {
		Result any         `json:"result"`
		Error  *wire.Error `json:"error"`
	}{Result: out}
	if out == nil {
		rep.Result = new(struct{})
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("adi: the daemon's answer is not JSON-RPC: %w", err)
	}
	if rep.Error != nil {
		return rep.Error
	}
	return nil
}

// ErrInterrupted is wrapped by the error of a call interrupted by the user (Ctrl-C).
// Its kind is errkind.Cancelled.
var ErrInterrupted = errkind.Sentinel(errkind.Cancelled, "interrupted")

// callID returns a JSON-RPC id no other client uses, so that $/cancelRequest (which the daemon
// matches by id among the HTTP requests it runs) cancels this call only.
func callID() string {
	return "cli-" + strconv.FormatUint(rand.Uint64(), 16)
}

// cancelRemote asks the daemon to cancel the calls ids, the last of method (on a connection of
// its own: the calls' is given up), and returns the error that says what happened.
func (c *rpcClient) cancelRemote(method string, ids []string) error {
	c.close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	other := newRPC(c.info)
	defer other.close()
	msgs := make([]map[string]any, len(ids))
	for i, id := range ids {
		msgs[i] = map[string]any{"jsonrpc": "2.0", "id": callID(), "method": "$/cancelRequest", "params": map[string]any{"id": id}}
	}
	body, _ := encodeMessage(msgs)
	if _, err := other.post(ctx, body); err != nil {
		return fmt.Errorf("adi: interrupted; could not cancel %s in the daemon (%w), which finishes it on its own", method, err)
	}
	return interrupted{fmt.Errorf("adi: interrupted: %s was cancelled; the runs it started were ended and the session is still usable", faces.CLI.Name(method, ""))}
}

// interrupted marks err as ErrInterrupted without changing its text.
type interrupted struct{ error }

func (e interrupted) Unwrap() error        { return e.error }
func (e interrupted) Is(target error) bool { return target == ErrInterrupted }

// post sends one JSON-RPC message and returns the body of the answer.
func (c *rpcClient) post(ctx context.Context, body []byte) ([]byte, error) {
	u, err := url.Parse(c.info.URL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("adi: the daemon's address %q is not http://HOST:PORT; run `adi stop` and try again: %w", c.info.URL, errUnreachable)
	}
	req := make([]byte, 0, 256+len(body))
	req = append(req, "POST /api/rpc HTTP/1.1\r\nHost: "...)
	req = append(req, u.Host...)
	req = append(req, "\r\nAuthorization: Bearer "...)
	req = append(req, c.info.Token...)
	req = append(req, "\r\n"+wire.FaceHeader+": cli\r\nContent-Type: application/json\r\nContent-Length: "...)
	req = strconv.AppendInt(req, int64(len(body)), 10)
	req = append(req, "\r\n\r\n"...)
	req = append(req, body...)

	for attempt := 0; ; attempt++ {
		reused := c.conn != nil && c.used
		if c.conn == nil {
			var d net.Dialer
			conn, err := d.DialContext(ctx, "tcp", u.Host)
			if err != nil {
				return nil, notSent{fmt.Errorf("adi: the daemon at %s does not answer: %w: %w", c.info.URL, errUnreachable, err)}
			}
			c.conn, c.br = conn, bufio.NewReaderSize(conn, 16<<10)
		}
		data, sent, err := c.exchange(ctx, req)
		if err == nil {
			return data, nil
		}
		c.close()
		if !sent && reused && attempt == 0 {
			continue // the daemon closed the idle connection: send the call on a new one
		}
		return nil, err
	}
}

// exchange writes one request on the connection and reads its answer. sent reports whether the
// daemon may have received the request (then it is not sent again).
func (c *rpcClient) exchange(ctx context.Context, req []byte) (data []byte, sent bool, err error) {
	stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := c.conn.Write(req); err != nil {
		return nil, false, fmt.Errorf("adi: the daemon at %s does not answer: %w: %w", c.info.URL, errUnreachable, ctxErr(ctx, err))
	}
	if _, err := c.br.Peek(1); err != nil {
		// Nothing came back: a closed idle connection, or a daemon that died on the call.
		return nil, !errors.Is(err, io.EOF), fmt.Errorf("adi: the daemon at %s does not answer: %w: %w", c.info.URL, errUnreachable, ctxErr(ctx, err))
	}
	resp, err := readResponse(c.br)
	if err != nil {
		return nil, true, fmt.Errorf("adi: the daemon at %s does not answer: %w: %w", c.info.URL, errUnreachable, ctxErr(ctx, err))
	}
	data = resp.body
	if resp.close {
		c.close()
	} else {
		c.used = true
	}
	if resp.status != 200 {
		var e struct {
			Error json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(data, &e)
		return nil, true, notSent{fmt.Errorf("adi: the daemon refused the call (HTTP %d): %s: %w", resp.status, bytes.TrimSpace(e.Error), errUnreachable)}
	}
	return data, true, nil
}

// ctxErr returns the context's error when it ended (the call was interrupted), else err.
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}
