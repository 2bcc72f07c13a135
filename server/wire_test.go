package server

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeMessage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		perr    int // code of a whole-message error
		batch   bool
		errs    []int // per element: 0 for a good request
		notices []bool
	}{
		{name: "request", in: `{"jsonrpc":"2.0","id":1,"method":"adi.state","params":{"session":"a"}}`, errs: []int{0}, notices: []bool{false}},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"adi.state"}`, errs: []int{0}, notices: []bool{true}},
		{name: "null id is a request", in: `{"jsonrpc":"2.0","id":null,"method":"adi.state"}`, errs: []int{0}, notices: []bool{false}},
		{name: "not json", in: `{"jsonrpc":`, perr: CodeParseError},
		{name: "empty batch", in: `[]`, perr: CodeInvalidRequest},
		{name: "not an object", in: `42`, errs: []int{CodeInvalidRequest}, notices: []bool{false}},
		{name: "wrong version", in: `{"jsonrpc":"1.0","id":1,"method":"x"}`, errs: []int{CodeInvalidRequest}, notices: []bool{false}},
		{name: "no method", in: `{"jsonrpc":"2.0","id":1}`, errs: []int{CodeInvalidRequest}, notices: []bool{false}},
		{name: "object id", in: `{"jsonrpc":"2.0","id":{},"method":"x"}`, errs: []int{CodeInvalidRequest}, notices: []bool{false}},
		{name: "batch", in: `[{"jsonrpc":"2.0","id":1,"method":"a"}, 5, {"jsonrpc":"2.0","method":"b"}]`, batch: true,
			errs: []int{0, CodeInvalidRequest, 0}, notices: []bool{false, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reqs, errs, batch, perr := decodeMessage([]byte(tc.in))
			if tc.perr != 0 {
				require.NotNil(t, perr)
				assert.Equal(t, tc.perr, perr.Code)
				return
			}
			require.Nil(t, perr)
			assert.Equal(t, tc.batch, batch)
			require.Len(t, reqs, len(tc.errs))
			for i, code := range tc.errs {
				if code == 0 {
					assert.Nil(t, errs[i], "element %d", i)
				} else {
					require.NotNil(t, errs[i], "element %d", i)
					assert.Equal(t, code, errs[i].Code)
				}
				assert.Equal(t, tc.notices[i], reqs[i].notification(), "element %d", i)
			}
		})
	}
}

func TestEncodeUnencodableResult(t *testing.T) {
	b := encode(&response{JSONRPC: "2.0", ID: json.RawMessage("7"), Result: map[string]any{"f": func() {}}})
	var r struct {
		ID    int    `json:"id"`
		Error *Error `json:"error"`
	}
	require.NoError(t, json.Unmarshal(b, &r))
	assert.Equal(t, 7, r.ID)
	require.NotNil(t, r.Error)
	assert.Equal(t, CodeInternal, r.Error.Code)
}
