package dap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingWriter records each Write call, to check that a message leaves in one write.
type countingWriter struct {
	writes [][]byte
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, append([]byte(nil), p...))
	return len(p), nil
}

func TestWriteRawIsOneWrite(t *testing.T) {
	w := &countingWriter{}
	c := NewConn(strings.NewReader(""), w, nil)
	body := []byte(`{"seq":1,"type":"request","command":"threads"}`)
	require.NoError(t, c.WriteRaw(body))
	require.Len(t, w.writes, 1, "header and body must leave in one write (no Nagle split)")
	assert.Equal(t, "Content-Length: 46\r\n\r\n"+string(body), string(w.writes[0]))
}

func TestReadKeepsRawAndDecodesEnvelope(t *testing.T) {
	msgs := []string{
		`{"seq":3,"type":"event","event":"debugpyAttach","body":{"connect":{"host":"127.0.0.1","port":5678}},"extra":1}`,
		`{"seq":4,"type":"response","request_seq":2,"command":"initialize","success":true,"body":{"supportsDebuggerProperties":true}}`,
		`{"seq":5,"type":"response","request_seq":3,"command":"evaluate","success":false,"message":"boom","body":{"error":{"format":"Traceback: x"}}}`,
	}
	var in bytes.Buffer
	for _, m := range msgs {
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	c := NewConn(&in, io.Discard, nil)
	m, err := c.Read()
	require.NoError(t, err)
	assert.Equal(t, "event", m.Type)
	assert.Equal(t, "debugpyAttach", m.Event)
	assert.Equal(t, msgs[0], string(m.Raw), "the message passes through byte for byte")

	m, err = c.Read()
	require.NoError(t, err)
	assert.Equal(t, 2, m.RequestSeq)
	assert.True(t, m.Success)
	var caps map[string]any
	require.NoError(t, m.Body(&caps))
	assert.Equal(t, true, caps["supportsDebuggerProperties"])

	m, err = c.Read()
	require.NoError(t, err)
	assert.False(t, m.Success)
	assert.Equal(t, "Traceback: x", responseErrorText(m))

	_, err = c.Read()
	assert.ErrorIs(t, err, io.EOF)
}

func TestReadRejectsMalformed(t *testing.T) {
	for name, in := range map[string]string{
		"bad header":      "Content-Type: x\r\n\r\n{}",
		"not json":        "Content-Length: 3\r\n\r\n{x}",
		"no type":         "Content-Length: 9\r\n\r\n{\"seq\":1}",
		"request no cmd":  "Content-Length: 28\r\n\r\n{\"seq\":1,\"type\":\"request\"}  ",
		"event no name":   "Content-Length: 26\r\n\r\n{\"seq\":1,\"type\":\"event\"}  ",
		"unknown type":    "Content-Length: 24\r\n\r\n{\"seq\":1,\"type\":\"other\"}",
		"delimiter wrong": "Content-Length: 2\r\n\n{}",
	} {
		t.Run(name, func(t *testing.T) {
			c := NewConn(strings.NewReader(in), io.Discard, nil)
			_, err := c.Read()
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrMalformed), "got %v", err)
		})
	}
}

// FuzzConnRead feeds arbitrary bytes to the reader: it must never panic, and every message it
// accepts must have a valid envelope and keep its raw bytes.
func FuzzConnRead(f *testing.F) {
	f.Add([]byte("Content-Length: 46\r\n\r\n{\"seq\":1,\"type\":\"request\",\"command\":\"threads\"}"))
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := NewConn(bytes.NewReader(data), io.Discard, nil)
		for i := 0; i < 8; i++ {
			m, err := c.Read()
			if err != nil {
				return
			}
			if m.Type != "request" && m.Type != "response" && m.Type != "event" {
				t.Fatalf("accepted a message of type %q", m.Type)
			}
			if len(m.Raw) == 0 {
				t.Fatal("accepted a message without its raw bytes")
			}
		}
	})
}

// FuzzDecodeEnvelope checks envelope decoding on arbitrary JSON-ish input.
func FuzzDecodeEnvelope(f *testing.F) {
	f.Add([]byte(`{"seq":1,"type":"event","event":"stopped","body":{}}`))
	f.Add([]byte(`{"seq":"1","type":"response"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeEnvelope(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if !bytes.Equal(m.Raw, data) {
			t.Fatal("raw bytes changed")
		}
		var v map[string]any
		_ = m.Body(&v)
	})
}
