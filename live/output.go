package live

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// OutputTail bounds the target output an answer shows per stream: the last OutputTail characters
// since the previous answer.
const OutputTail = 2000

// keepBytes bounds what a stream buffers between two answers; older output is counted, not kept.
const keepBytes = 64 << 10

// outputs collects the target's stdout and stderr (DAP output events) between two answers. The
// run's event goroutine writes; commands take.
type outputs struct {
	mu      sync.Mutex
	streams [2]stream // stdout, stderr
}

type stream struct {
	buf     []byte
	dropped int // bytes written since the last take that were not kept
	total   int // bytes written in the whole session
}

// Output is the target's output since the previous answer, cut to its tail.
type Output struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// StdoutCut and StderrCut count the bytes left out before the tail.
	StdoutCut int `json:"stdout_cut,omitempty"`
	StderrCut int `json:"stderr_cut,omitempty"`
}

func (o *outputs) write(category string, text string) {
	i := 0
	switch category {
	case "stdout":
	case "stderr":
		i = 1
	default:
		return // console, telemetry, important: debugpy's own messages
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	s := &o.streams[i]
	s.total += len(text)
	s.buf = append(s.buf, text...)
	// trimmed back to keepBytes only once it holds twice that: a chatty program does not cost a
	// keepBytes copy per output event
	if len(s.buf) > 2*keepBytes {
		over := len(s.buf) - keepBytes
		s.dropped += over
		s.buf = append(s.buf[:0], s.buf[over:]...)
	}
}

// take returns what was written since the last take, each stream cut to its last OutputTail
// characters, and starts over.
func (o *outputs) take() Output {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out Output
	out.Stdout, out.StdoutCut = tailOf(&o.streams[0])
	out.Stderr, out.StderrCut = tailOf(&o.streams[1])
	return out
}

func tailOf(s *stream) (string, int) {
	text := strings.ToValidUTF8(string(s.buf), "\uFFFD")
	cut := s.dropped
	if n := utf8.RuneCountInString(text); n > OutputTail {
		r := []rune(text)
		cut += len(string(r[:n-OutputTail]))
		text = string(r[n-OutputTail:])
	}
	s.buf, s.dropped = s.buf[:0], 0
	return text, cut
}

// lines renders the output for an answer's summary.
func (out Output) lines() []string {
	if out.Stdout == "" && out.Stderr == "" && out.StdoutCut == 0 && out.StderrCut == 0 {
		return []string{"Output since the last answer: (none)"}
	}
	lines := []string{"Output since the last answer:"}
	add := func(name, text string, cut int) {
		if text == "" && cut == 0 {
			return
		}
		head := "  " + name + ":"
		if cut > 0 {
			head += fmt.Sprintf(" [%d earlier bytes cut]", cut)
		}
		lines = append(lines, head)
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			lines = append(lines, "    "+l)
		}
	}
	add("stdout", out.Stdout, out.StdoutCut)
	add("stderr", out.Stderr, out.StderrCut)
	return lines
}
