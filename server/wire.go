package server

import (
	"bytes"
	"encoding/json"
)

// MaxMessage bounds one incoming message (a request or a batch), over WebSocket and HTTP alike.
const MaxMessage = 4 << 20

// tooLarge is the error for a message over MaxMessage.
func tooLarge() *Error {
	return newError(CodeInvalidRequest, "message too large: the limit is %d bytes (4 MiB); send smaller requests", MaxMessage)
}

// request is one decoded JSON-RPC request or notification.
type request struct {
	ID     json.RawMessage // nil for a notification
	Method string
	Params json.RawMessage
}

// notification reports whether no response is expected.
func (r *request) notification() bool { return r.ID == nil }

// response is a JSON-RPC response.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Notification is a message the server sends unasked.
type Notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

var nullID = json.RawMessage("null")

// decodeMessage splits one incoming message into requests. batch says whether it was an array.
// A message that is not JSON gives a parse error; each element that is not a request gives its
// own invalid-request error (in errs, by position), so the rest of a batch still runs.
func decodeMessage(data []byte) (reqs []*request, errs []*Error, batch bool, perr *Error) {
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		return nil, nil, false, newError(CodeParseError, "the message is not valid JSON; send one JSON-RPC 2.0 request object (or an array of them)")
	}
	if len(data) > 0 && data[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(data, &elems); err != nil {
			return nil, nil, true, newError(CodeParseError, "the batch is not a JSON array: %v", err)
		}
		if len(elems) == 0 {
			return nil, nil, false, newError(CodeInvalidRequest, "empty batch: send at least one request")
		}
		reqs = make([]*request, len(elems))
		errs = make([]*Error, len(elems))
		for i, e := range elems {
			reqs[i], errs[i] = decodeRequest(e)
		}
		return reqs, errs, true, nil
	}
	r, err := decodeRequest(data)
	return []*request{r}, []*Error{err}, false, nil
}

// decodeRequest checks one request object. On error the returned request still carries the id
// when one could be read, so the error response can name it.
func decodeRequest(data json.RawMessage) (*request, *Error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return &request{ID: nullID}, newError(CodeInvalidRequest, "a request must be a JSON object with jsonrpc, method, params and id")
	}
	r := &request{Params: fields["params"]}
	if id, ok := fields["id"]; ok {
		r.ID = id
		if !validID(id) {
			r.ID = nullID
			return r, newError(CodeInvalidRequest, "the id must be a string, a number or null")
		}
	}
	var version string
	if err := json.Unmarshal(fields["jsonrpc"], &version); err != nil || version != "2.0" {
		if r.ID == nil {
			r.ID = nullID
		}
		return r, newError(CodeInvalidRequest, `"jsonrpc" must be "2.0"`)
	}
	raw, ok := fields["method"]
	if !ok || json.Unmarshal(raw, &r.Method) != nil || r.Method == "" {
		if r.ID == nil {
			r.ID = nullID
		}
		return r, newError(CodeInvalidRequest, `"method" must be a non-empty string, e.g. "adi.state"`)
	}
	return r, nil
}

// validID reports whether a raw id is a string, a number or null.
func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// encode marshals a response; a result that cannot be marshalled becomes an internal error
// naming the id, so the client is never left waiting.
func encode(r *response) []byte {
	b, err := marshal(r)
	if err == nil {
		return b
	}
	b, _ = json.Marshal(&response{JSONRPC: "2.0", ID: r.ID,
		Error: newError(CodeInternal, "cannot encode the result: %v (please report this)", err)})
	return b
}

// marshal is json.Marshal without HTML escaping: texts travel as written ("<module>", "→ 0.0").
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
