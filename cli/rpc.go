package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/adi-bridge/adi/server"
)

// rpcClient calls the daemon's HTTP API (POST /api/rpc): one request per call, which suits a
// process that makes a few calls and exits. The daemon runs each call to its end even when this
// process is killed meanwhile.
type rpcClient struct {
	info DaemonInfo
	http *http.Client
}

func newRPC(info DaemonInfo) *rpcClient {
	return &rpcClient{info: info, http: &http.Client{}}
}

// errUnreachable is wrapped by errors about a daemon that does not answer at all.
var errUnreachable = errors.New("daemon unreachable")

// call calls method and decodes the result into out (may be nil). A JSON-RPC error is returned
// as *server.Error.
func (c *rpcClient) call(ctx context.Context, method string, params, out any) error {
	if params == nil {
		params = struct{}{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("adi: cannot encode the params of %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.info.URL+"/api/rpc", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.info.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("adi: the daemon at %s does not answer: %w: %w", c.info.URL, errUnreachable, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("adi: reading the daemon's answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(data, &e)
		return fmt.Errorf("adi: the daemon refused the call (HTTP %d): %s: %w", resp.StatusCode, bytes.TrimSpace(e.Error), errUnreachable)
	}
	var rep struct {
		Result json.RawMessage `json:"result"`
		Error  *server.Error   `json:"error"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("adi: the daemon's answer is not JSON-RPC: %w", err)
	}
	if rep.Error != nil {
		return rep.Error
	}
	if out != nil {
		if raw, ok := out.(*json.RawMessage); ok {
			*raw = rep.Result
			return nil
		}
		return json.Unmarshal(rep.Result, out)
	}
	return nil
}
