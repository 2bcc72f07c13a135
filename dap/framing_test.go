package dap

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// editorLimits are the limits the DAP proxy reads an editor with.
func editorLimits(timeout time.Duration) Limits {
	return Limits{MaxBody: EditorMaxBody, BodyTimeout: timeout}
}

func TestFrameReader(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		bodies   []string
		err      string // the error after the bodies ("" : io.EOF)
	}{
		{name: "two messages", in: "Content-Length: 2\r\n\r\n{}Content-Length: 7\r\n\r\n{\"a\":1}", bodies: []string{"{}", `{"a":1}`}},
		{name: "other headers are tolerated", in: "Content-Type: x\r\ncontent-length:  2\r\n\r\n{}", bodies: []string{"{}"}},
		{name: "not a number", in: "Content-Length: abc\r\n\r\n{}",
			err: `malformed DAP message: Content-Length "abc" is not a byte count`},
		{name: "negative", in: "Content-Length: -5\r\n\r\n{}",
			err: `malformed DAP message: Content-Length "-5" is not a byte count`},
		{name: "too long", in: "Content-Length: 99999999999\r\n\r\n{}",
			err: "malformed DAP message: Content-Length 99999999999 is over the limit of 4194304 bytes"},
		{name: "no length", in: "Content-Type: x\r\n\r\n{}", err: "malformed DAP message: the message has no Content-Length header"},
		{name: "bare newline", in: "Content-Length: 2\n\n{}", err: `malformed DAP message: header line "Content-Length: 2" does not end in CRLF`},
		{name: "not a header", in: "hello\r\n\r\n{}", err: `malformed DAP message: header line "hello" is not "Name: value"`},
		{name: "JSON without a header", in: "{\"seq\":1}\r\n\r\n", err: "malformed DAP message: the message has no Content-Length header"},
		{name: "endless header", in: strings.Repeat("x", 5000), err: "malformed DAP message: the message header is longer than 4096 bytes"},
		{name: "cut body", in: "Content-Length: 10\r\n\r\n{}", err: "malformed DAP message: the stream ended inside a message of 10 bytes"},
		{name: "cut header", in: "Content-Length: 10\r\n", err: "malformed DAP message: the stream ended inside a message header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := newFrameReader(strings.NewReader(tc.in), nil, editorLimits(time.Second))
			for _, want := range tc.bodies {
				got, err := fr.read()
				require.NoError(t, err)
				assert.Equal(t, want, string(got))
			}
			_, err := fr.read()
			if tc.err == "" {
				assert.ErrorIs(t, err, io.EOF)
				return
			}
			assert.ErrorIs(t, err, ErrMalformed)
			assert.EqualError(t, err, tc.err)
		})
	}
}

// A Content-Length that promises more than comes must not hang the proxy: the rest of the
// message has a deadline (a socket's own, or a timer that closes the stream).
func TestFrameReaderBoundsAnIncompleteMessage(t *testing.T) {
	for _, socket := range []bool{true, false} {
		a, b := net.Pipe()
		var r io.Reader = a
		if !socket {
			r = struct{ io.Reader }{a} // no SetReadDeadline: the timer closes the stream
		}
		fr := newFrameReader(r, a, editorLimits(100*time.Millisecond))
		go func() { _, _ = b.Write([]byte("Content-Length: 50\r\n\r\n{\"seq\":1")) }()
		start := time.Now()
		_, err := fr.read()
		assert.ErrorIs(t, err, ErrMalformed)
		assert.EqualError(t, err, "malformed DAP message: the message did not arrive completely within 100ms (is its Content-Length right?)")
		assert.Less(t, time.Since(start), 5*time.Second)
		_ = a.Close()
		_ = b.Close()
	}
}

// Waiting between messages is not bounded: an editor may be idle as long as it likes.
func TestFrameReaderIdleIsNotAnError(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	fr := newFrameReader(a, a, editorLimits(50*time.Millisecond))
	got := make(chan error, 1)
	go func() {
		_, err := fr.read()
		got <- err
	}()
	time.Sleep(200 * time.Millisecond)
	_, err := b.Write([]byte("Content-Length: 2\r\n\r\n{}"))
	require.NoError(t, err)
	assert.NoError(t, <-got)
	_ = b.Close()
	_, err = fr.read()
	assert.True(t, errors.Is(err, io.EOF), "%v", err)
}

// FuzzFrameReader checks that no input makes the reader panic or return a body other than the
// bytes its Content-Length names.
func FuzzFrameReader(f *testing.F) {
	f.Add("Content-Length: 2\r\n\r\n{}")
	f.Add("Content-Length: 3\r\nX: y\r\n\r\nabc")
	f.Add("Content-Length: 1\r\n\r")
	f.Fuzz(func(t *testing.T, in string) {
		fr := newFrameReader(strings.NewReader(in), nil, editorLimits(time.Second))
		total := 0
		for i := 0; i < 100; i++ {
			body, err := fr.read()
			if err != nil {
				return
			}
			total += len(body)
			if total > len(in) {
				t.Fatalf("read %d body bytes from %d bytes of input", total, len(in))
			}
		}
	})
}

// Without a body timeout (the debugpy adapter's stream), a reader reads the same messages and
// reports the same errors.
func TestFrameReaderWithoutTimeout(t *testing.T) {
	fr := newFrameReader(strings.NewReader("Content-Length: 2\r\n\r\n{}Content-Length: 10\r\n"), nil, Limits{})
	body, err := fr.read()
	require.NoError(t, err)
	assert.Equal(t, "{}", string(body))
	_, err = fr.read()
	assert.EqualError(t, err, "malformed DAP message: the stream ended inside a message header")
	_, err = newFrameReader(strings.NewReader(""), nil, Limits{}).read()
	assert.ErrorIs(t, err, io.EOF)
	_, err = newFrameReader(strings.NewReader("Content-Length: 67108865\r\n\r\n"), nil, Limits{}).read()
	assert.EqualError(t, err, "malformed DAP message: Content-Length 67108865 is over the limit of 67108864 bytes")
}
