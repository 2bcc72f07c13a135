package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// httpResponse is an HTTP/1.1 response as the daemon client reads it.
type httpResponse struct {
	status int
	// close is set when the server closes the connection after this response.
	close bool
	body  []byte
}

// maxHeaderLine bounds one line of a response's head.
const maxHeaderLine = 64 << 10

// readResponse reads one HTTP/1.x response to a POST from br: the status line, the headers
// (only the framing ones matter: Content-Length, Transfer-Encoding: chunked, Connection) and the
// body. It is what the client needs of net/http's ReadResponse, without linking net/http, whose
// package initialisation and size (TLS, HTTP/2) cost the CLI's process more than the call.
func readResponse(br *bufio.Reader) (*httpResponse, error) {
	line, err := readLine(br)
	if err != nil {
		return nil, err
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || len(code) != 3 {
		return nil, fmt.Errorf("malformed HTTP status line %q", line)
	}
	r := &httpResponse{status: status, close: proto == "HTTP/1.0"}
	length, chunked := -1, false
	for {
		line, err := readLine(br)
		if err != nil {
			return nil, err
		}
		if line == "" {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("malformed HTTP header %q", line)
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			if length, err = strconv.Atoi(v); err != nil || length < 0 {
				return nil, fmt.Errorf("malformed Content-Length %q", v)
			}
		case "transfer-encoding":
			chunked = strings.EqualFold(v, "chunked")
			if !chunked && !strings.EqualFold(v, "identity") {
				return nil, fmt.Errorf("unsupported Transfer-Encoding %q", v)
			}
		case "connection":
			for _, t := range strings.Split(v, ",") {
				switch strings.ToLower(strings.TrimSpace(t)) {
				case "close":
					r.close = true
				case "keep-alive":
					if proto == "HTTP/1.0" {
						r.close = false
					}
				}
			}
		}
	}
	switch {
	case status/100 == 1 || status == 204 || status == 304:
		if status/100 == 1 {
			return readResponse(br) // an interim answer: the real one follows
		}
	case chunked:
		r.body, err = readChunked(br)
	case length >= 0:
		r.body = make([]byte, length)
		_, err = io.ReadFull(br, r.body)
	default: // the body ends with the connection
		r.close = true
		r.body, err = io.ReadAll(br)
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return r, err
}

// readChunked reads a chunked body and its trailer.
func readChunked(br *bufio.Reader) ([]byte, error) {
	var body []byte
	for {
		line, err := readLine(br)
		if err != nil {
			return nil, err
		}
		size, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
		if err != nil || n < 0 || n > 1<<40 {
			return nil, fmt.Errorf("malformed chunk size %q", line)
		}
		if n == 0 {
			for { // the trailer, up to its empty line
				if line, err = readLine(br); err != nil || line == "" {
					return body, err
				}
			}
		}
		start := len(body)
		body = append(body, make([]byte, n)...)
		if _, err := io.ReadFull(br, body[start:]); err != nil {
			return nil, err
		}
		if line, err = readLine(br); err != nil || line != "" {
			return nil, fmt.Errorf("malformed chunk end")
		}
	}
}

// readLine reads one CRLF- (or LF-) terminated line without its end.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		part, more, err := br.ReadLine()
		if err != nil {
			return "", err
		}
		b = append(b, part...)
		if len(b) > maxHeaderLine {
			return "", fmt.Errorf("HTTP header line longer than %d bytes", maxHeaderLine)
		}
		if !more {
			return string(b), nil
		}
	}
}
