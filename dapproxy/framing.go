package dapproxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/adi-bridge/adi/dap"
)

// Limits of what the proxy reads from an editor. go-dap's reader waits for a carriage return
// without bound and trusts the length; an editor is less trusted than debugpy, so its messages
// are read here with every part bounded.
const (
	maxHeaderBytes = 4096    // all header lines of one message
	maxBodyBytes   = 4 << 20 // what go-dap's writer and debugpy accept too
)

// DefaultBodyTimeout bounds the time from the first byte of a message to its last: a message
// whose Content-Length promises more bytes than come is a framing error, not a reason to hang.
const DefaultBodyTimeout = 10 * time.Second

// deadliner is what net.Conn offers to bound a read.
type deadliner interface{ SetReadDeadline(time.Time) error }

// frameReader reads DAP base-protocol messages from an editor.
type frameReader struct {
	r       *bufio.Reader
	dl      deadliner // may be nil: then timeout closes closer
	closer  io.Closer
	timeout time.Duration
}

func newFrameReader(r io.Reader, closer io.Closer, timeout time.Duration) *frameReader {
	fr := &frameReader{r: bufio.NewReaderSize(r, 64<<10), closer: closer, timeout: timeout}
	if d, ok := r.(deadliner); ok {
		fr.dl = d
	}
	if fr.timeout <= 0 {
		fr.timeout = DefaultBodyTimeout
	}
	return fr
}

// read returns the body of the next message. Framing errors wrap dap.ErrMalformed; io.EOF means
// the editor closed the stream between messages.
func (fr *frameReader) read() ([]byte, error) {
	if _, err := fr.r.Peek(1); err != nil {
		return nil, err // idle until the editor says something (or closes)
	}
	stop := fr.arm()
	body, err := fr.readMessage()
	timedOut := stop()
	if err != nil && (timedOut || errors.Is(err, os.ErrDeadlineExceeded)) {
		return nil, fmt.Errorf("%w: the message did not arrive completely within %v (is its Content-Length right?)", dap.ErrMalformed, fr.timeout)
	}
	return body, err
}

// arm bounds the rest of the message in time; the returned function disarms and reports whether
// the time ran out.
func (fr *frameReader) arm() func() bool {
	if fr.dl != nil && fr.dl.SetReadDeadline(time.Now().Add(fr.timeout)) == nil {
		return func() bool {
			_ = fr.dl.SetReadDeadline(time.Time{})
			return false
		}
	}
	fired := make(chan struct{})
	t := time.AfterFunc(fr.timeout, func() {
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
	for {
		line, err := fr.line(maxHeaderBytes - total)
		if err != nil {
			return nil, err
		}
		total += len(line) + 2
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line %q is not \"Name: value\"", dap.ErrMalformed, clip(line))
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // DAP defines no other header; tolerate ones LSP clients add
		}
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: Content-Length %q is not a byte count", dap.ErrMalformed, clip(strings.TrimSpace(value)))
		}
		if n > maxBodyBytes {
			return nil, fmt.Errorf("%w: Content-Length %d is over the limit of %d bytes", dap.ErrMalformed, n, maxBodyBytes)
		}
		length = n
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: the message has no Content-Length header", dap.ErrMalformed)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(fr.r, body); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: the stream ended inside a message of %d bytes", dap.ErrMalformed, length)
		}
		return nil, err
	}
	return body, nil
}

// line reads one header line ending in CRLF, of at most room bytes.
func (fr *frameReader) line(room int) (string, error) {
	var b []byte
	for {
		c, err := fr.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "", fmt.Errorf("%w: the stream ended inside a message header", dap.ErrMalformed)
			}
			return "", err
		}
		if c == '\n' {
			if len(b) == 0 || b[len(b)-1] != '\r' {
				return "", fmt.Errorf("%w: header line %q does not end in CRLF", dap.ErrMalformed, clip(string(b)))
			}
			return string(b[:len(b)-1]), nil
		}
		b = append(b, c)
		if len(b) > room {
			return "", fmt.Errorf("%w: the message header is longer than %d bytes", dap.ErrMalformed, maxHeaderBytes)
		}
	}
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
