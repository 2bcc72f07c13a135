package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/adi-bridge/adi/adi"
)

// The trace.* methods read T for the browser viewer, without waiting for a running command: T's
// frames do not change after recording, except that a command may give frames recorded bare
// their values (bridge/values.go), so they read frames in Session.ReadTrace. trace.children
// records the values of callees recorded bare first, which waits for a running command.
func init() {
	register(
		&method{name: "trace.frames", usage: "{session, offset?, limit?, query?}",
			summary: "page through T in order, optionally filtered by a substring of fid, args or return", call: traceFrames},
		&method{name: "trace.children", usage: "{session, frame}",
			summary: "the direct callees of a frame (func#N or its index in T)", call: traceChildren},
		&method{name: "trace.source", usage: "{session, file}",
			summary: "the source lines of a file that appears in T (absolute, or relative to the session's dir)", call: traceSource},
	)
}

const (
	defaultFrameLimit = 100
	maxFrameLimit     = 5000
	maxSource         = 4 << 20
)

func traceFrames(c *call) (any, error) {
	id := c.p.String("session", true)
	offset, limit := c.p.Int("offset", false, 0), c.p.Int("limit", false, 1)
	query := strings.ToLower(c.p.String("query", false))
	if err := c.p.done(); err != nil {
		return nil, err
	}
	if limit == 0 {
		limit = defaultFrameLimit
	}
	limit = min(limit, maxFrameLimit)
	s, err := c.session(id)
	if err != nil {
		return nil, err
	}
	frames := []adi.FrameJSON{}
	total := 0
	s.ReadTrace(func(t *adi.Trace) {
		for i := range t.Frames {
			f := &t.Frames[i]
			if query != "" && !frameMatches(f, query) {
				continue
			}
			if total >= offset && len(frames) < limit {
				frames = append(frames, t.FrameJSON(i))
			}
			total++
		}
	})
	return map[string]any{"total": total, "frames": frames}, nil
}

// frameMatches reports whether q (lower case) occurs in the frame's fid, args or return.
func frameMatches(f *adi.Frame, q string) bool {
	if strings.Contains(strings.ToLower(f.FID().String()), q) || strings.Contains(strings.ToLower(f.Return), q) {
		return true
	}
	for _, a := range f.Args {
		if strings.Contains(strings.ToLower(a.Name+"="+a.Value), q) {
			return true
		}
	}
	return f.Exception != nil && strings.Contains(strings.ToLower(f.Exception.String()), q)
}

func traceChildren(c *call) (any, error) {
	id := c.p.String("session", true)
	raw := c.p.raw("frame", true)
	index, isIndex := -1, false
	var ref *adi.Ref
	if raw != nil && c.p.err == nil {
		if err := json.Unmarshal(raw, &index); err == nil {
			isIndex = true
		} else {
			ref = c.p.Ref("frame", true, true)
		}
	}
	if err := c.p.done(); err != nil {
		return nil, err
	}
	s, err := c.session(id)
	if err != nil {
		return nil, err
	}
	t := s.Trace()
	if !isIndex {
		if index, err = t.ResolveFrame(*ref); err != nil {
			return nil, err
		}
	}
	f := t.Frame(index)
	if f == nil {
		return nil, newError(CodeNotFound, "trace.children: no frame %d; T has frames 0 to %d", index, t.Len()-1)
	}
	callees := t.Callees(index)
	kids := make([]adi.FrameJSON, 0, len(callees))
	frames := make([]int, len(callees))
	for i, k := range callees {
		frames[i] = int(k)
	}
	if err := s.FillValues(c.ctx, frames); err != nil { // callees recorded bare get their values first
		return nil, err
	}
	s.ReadTrace(func(t *adi.Trace) {
		for _, k := range callees {
			kids = append(kids, t.FrameJSON(int(k)))
		}
	})
	return map[string]any{"frames": kids}, nil
}

func traceSource(c *call) (any, error) {
	id := c.p.String("session", true)
	file := c.p.String("file", true)
	if err := c.p.done(); err != nil {
		return nil, err
	}
	s, err := c.session(id)
	if err != nil {
		return nil, err
	}
	t := s.Trace()
	if !filepath.IsAbs(file) {
		// A relative path is relative to the session's directory, where the target ran.
		file = filepath.Join(s.Info().Dir, file)
	}
	known := false
	for i := range t.Frames {
		if t.Frames[i].File == file {
			known = true
			break
		}
	}
	if !known {
		return nil, newError(CodeNotFound, "trace.source: %s is not a file of this recording; only files that appear in T can be read", file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("trace.source: cannot read %s: %w", file, err)
	}
	if len(b) > maxSource {
		b = b[:maxSource]
	}
	lines := []string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), maxSource)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return map[string]any{"file": file, "lines": lines}, nil
}
