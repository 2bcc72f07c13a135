package dap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// The DAP base protocol: each message is "Content-Length: N\r\n\r\n" followed by N bytes of JSON.
// This is adi's one framer; dap.Conn reads and writes with it for debugpy and for editors alike.
// Unlike go-dap's reader, which waits for a line end without bound and trusts the length, every
// part of a message is bounded here.

// MaxHeaderBytes bounds all the header lines of one message.
const MaxHeaderBytes = 4096

// Body limits. An editor is less trusted than the debugpy adapter adi starts: its messages are
// held to what go-dap's writer and debugpy accept; debugpy's own messages (a large evaluate
// result in clipboard context) may be bigger.
const (
	EditorMaxBody  = 4 << 20
	AdapterMaxBody = 64 << 20
)

// DefaultBodyTimeout bounds the time from the first byte of a message to its last when a Conn
// has a body timeout: a message whose Content-Length promises more bytes than come is a framing
// error, not a reason to hang.
const DefaultBodyTimeout = 10 * time.Second

// Limits bound what a Conn reads.
type Limits struct {
	// MaxBody is the largest Content-Length accepted (AdapterMaxBody when zero).
	MaxBody int
	// BodyTimeout, when positive, bounds the arrival of the rest of a message once its first
	// byte came; the wait between messages is never bounded. The stream's own read deadline is
	// used when it has one (a net.Conn); otherwise the stream is closed when the time runs out.
	BodyTimeout time.Duration
}

// deadliner is what net.Conn offers to bound a read.
type deadliner interface{ SetReadDeadline(time.Time) error }

// frameReader reads DAP base-protocol messages. It is used by one goroutine at a time.
type frameReader struct {
	r      *bufio.Reader
	dl     deadliner // may be nil: then a timeout closes closer
	closer io.Closer
	lim    Limits
}

func newFrameReader(r io.Reader, closer io.Closer, lim Limits) *frameReader {
	if lim.MaxBody <= 0 {
		lim.MaxBody = AdapterMaxBody
	}
	fr := &frameReader{r: bufio.NewReaderSize(r, 64<<10), closer: closer, lim: lim}
	if d, ok := r.(deadliner); ok {
		fr.dl = d
	}
	return fr
}

// read returns the body of the next message. Framing errors wrap ErrMalformed; io.EOF means the
// peer closed the stream between messages.
func (fr *frameReader) read() ([]byte, error) {
	if fr.lim.BodyTimeout <= 0 {
		return fr.readMessage()
	}
	if _, err := fr.r.Peek(1); err != nil {
		return nil, err // idle until the peer says something (or closes)
	}
	stop := fr.arm()
	body, err := fr.readMessage()
	timedOut := stop()
	if err != nil && (timedOut || errors.Is(err, os.ErrDeadlineExceeded)) {
		return nil, fmt.Errorf("%w: the message did not arrive completely within %v (is its Content-Length right?)", ErrMalformed, fr.lim.BodyTimeout)
	}
	return body, err
}

// arm bounds the rest of the message in time; the returned function disarms and reports whether
// the time ran out.
func (fr *frameReader) arm() func() bool {
	if fr.dl != nil && fr.dl.SetReadDeadline(time.Now().Add(fr.lim.BodyTimeout)) == nil {
		return func() bool {
			_ = fr.dl.SetReadDeadline(time.Time{})
			return false
		}
	}
	fired := make(chan struct{})
	t := time.AfterFunc(fr.lim.BodyTimeout, func() {
		close(fired)
		if fr.closer != nil {
			_ = fr.closer.Close()
		}
	})
	return func() bool {
		if t.Stop() {
			return false
		}
		<-fired
		return true
	}
}

func (fr *frameReader) readMessage() ([]byte, error) {
	length := -1
	total := 0
	for first := true; ; first = false {
		line, err := fr.line(MaxHeaderBytes-total, first)
		if err != nil {
			return nil, err
		}
		total += len(line) + 2
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line %q is not \"Name: value\"", ErrMalformed, clip(line))
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // DAP defines no other header; tolerate ones LSP clients add
		}
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: Content-Length %q is not a byte count", ErrMalformed, clip(strings.TrimSpace(value)))
		}
		if n > fr.lim.MaxBody {
			return nil, fmt.Errorf("%w: Content-Length %d is over the limit of %d bytes", ErrMalformed, n, fr.lim.MaxBody)
		}
		length = n
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: the message has no Content-Length header", ErrMalformed)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(fr.r, body); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: the stream ended inside a message of %d bytes", ErrMalformed, length)
		}
		return nil, err
	}
	return body, nil
}

// line reads one header line ending in CRLF, of at most room bytes. An end of stream before the
// first byte of a message is io.EOF.
func (fr *frameReader) line(room int, first bool) (string, error) {
	b, err := fr.r.ReadSlice('\n')
	n := len(b)
	if err == nil {
		n-- // room counts the CR, not the LF
	}
	if n > room || errors.Is(err, bufio.ErrBufferFull) {
		return "", fmt.Errorf("%w: the message header is longer than %d bytes", ErrMalformed, MaxHeaderBytes)
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			if first && len(b) == 0 {
				return "", io.EOF
			}
			return "", fmt.Errorf("%w: the stream ended inside a message header", ErrMalformed)
		}
		return "", err
	}
	b = b[:len(b)-1]
	if len(b) == 0 || b[len(b)-1] != '\r' {
		return "", fmt.Errorf("%w: header line %q does not end in CRLF", ErrMalformed, clip(string(b)))
	}
	return string(b[:len(b)-1]), nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// appendFrame appends body with its header to buf.
func appendFrame(buf, body []byte) []byte {
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(body)), 10)
	buf = append(buf, "\r\n\r\n"...)
	return append(buf, body...)
}
