package dapproxy

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetIntKeepsEveryOtherByte(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"seq": 1, "type": "event", "body": {"seq": 9, "s": "a\"}{"}}`, `{"seq": 5, "type": "event", "body": {"seq": 9, "s": "a\"}{"}}`},
		{`{ "type":"event" , "seq" :12 }`, `{ "type":"event" , "seq" :5 }`},
		{`{"seq":5,"x":[1,{"y":"}"}]}`, `{"seq":5,"x":[1,{"y":"}"}]}`}, // unchanged value: same bytes
		{`{"seq":1,"seq":2}`, `{"seq":1,"seq":5}`},                     // the last of duplicates, as encoding/json reads
		{`{"type":"event"}`, `{"type":"event","seq":5}`},
		{`{}`, `{"seq":5}`},
		{"{\"a\":true,\n\"seq\":\t3}", "{\"a\":true,\n\"seq\":\t5}"},
		{`{"se\u0071":1}`, `{"se\u0071":5}`}, // an escaped key is still "seq"
	} {
		got, err := setInt([]byte(tc.in), "seq", 5)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, string(got), tc.in)
	}
}

func TestDeleteAndSetPath(t *testing.T) {
	for _, tc := range []struct{ in, key, want string }{
		{`{"a":1,"b":2,"c":3}`, "b", `{"a":1,"c":3}`},
		{`{"a":1,"b":2,"c":3}`, "a", `{"b":2,"c":3}`},
		{`{"a":1,"b":2,"c":3}`, "c", `{"a":1,"b":2}`},
		{`{"a":1}`, "a", `{}`},
		{`{"a":1,"b":{"a":2},"a":3}`, "a", `{"b":{"a":2}}`},
		{`{"a":1}`, "z", `{"a":1}`},
	} {
		got, err := deleteMember([]byte(tc.in), tc.key)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, string(got), tc.in)
		assert.True(t, json.Valid(got), string(got))
	}
	raw := []byte(`{"seq":3,"event":"debugpyAttach","body":{"name":"x","connect":{"host":"127.0.0.1","port":40001},"subProcessId":7}}`)
	got, err := setPath(raw, []string{"body", "connect", "port"}, []byte("4711"))
	require.NoError(t, err)
	assert.Equal(t, `{"seq":3,"event":"debugpyAttach","body":{"name":"x","connect":{"host":"127.0.0.1","port":4711},"subProcessId":7}}`, string(got))
	_, err = setPath(raw, []string{"body", "missing", "port"}, []byte("1"))
	assert.ErrorContains(t, err, `body.no "missing" member`)
	_, err = setMember([]byte(`[1,2]`), "seq", []byte("1"))
	assert.ErrorIs(t, err, errNotObject)
}

// FuzzSetInt checks that renumbering any JSON object gives valid JSON whose seq is the new
// number and whose other members are unchanged.
func FuzzSetInt(f *testing.F) {
	for _, s := range []string{`{"seq":1,"type":"response","request_seq":4,"body":{}}`, `{}`, `{"a":"\\\"","b":[{},[]],"c":-1.5e3}`, `{"seq":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var before map[string]any
		if json.Unmarshal([]byte(in), &before) != nil || before == nil {
			return
		}
		out, err := setInt([]byte(in), "seq", 42)
		if err != nil {
			t.Fatalf("setInt(%q): %v", in, err)
		}
		var after map[string]any
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("setInt(%q) = %q: not JSON: %v", in, out, err)
		}
		if after["seq"] != float64(42) {
			t.Fatalf("setInt(%q) = %q: seq is %v", in, out, after["seq"])
		}
		delete(before, "seq")
		delete(after, "seq")
		assert.Equal(t, before, after)
	})
}

// BenchmarkRenumber is the proxy's own work on a forwarded message: finding and replacing its
// seq (and request_seq for a response).
func BenchmarkRenumber(b *testing.B) {
	raw := []byte(`{"seq": 41, "type": "response", "request_seq": 17, "success": true, "command": "stackTrace", "body": {"stackFrames": [{"id": 3, "name": "add", "line": 5, "column": 1, "source": {"path": "/work/proj/app.py", "sourceReference": 0}}, {"id": 4, "name": "main", "line": 12, "column": 1, "source": {"path": "/work/proj/app.py", "sourceReference": 0}}], "totalFrames": 3}}`)
	b.SetBytes(int64(len(raw)))
	for i := 0; i < b.N; i++ {
		out, err := setInt(raw, "seq", 40)
		if err == nil {
			out, err = setInt(out, "request_seq", 16)
		}
		if err != nil || len(out) != len(raw) {
			b.Fatal(err)
		}
	}
}
