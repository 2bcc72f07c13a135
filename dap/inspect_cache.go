package dap

import (
	"context"
	"os"
	"sync"
	"time"
)

// inspectTTL bounds how long an interpreter's inspection is reused. Inspecting costs a python
// start that imports debugpy and pydevd (~0.3 s of CPU); a server creating many sessions would
// otherwise pay it for every one.
const inspectTTL = 5 * time.Minute

type inspected struct {
	py    *Python
	err   error
	mtime time.Time
	size  int64
	at    time.Time
}

var (
	inspectMu    sync.Mutex
	inspectCache = map[string]inspected{}
)

// cachedInspect is InspectPython remembered per path for inspectTTL, as long as the file at
// path has not changed. It returns a copy the caller may modify.
func cachedInspect(ctx context.Context, path string) (*Python, error) {
	st, statErr := os.Stat(path)
	inspectMu.Lock()
	c, ok := inspectCache[path]
	inspectMu.Unlock()
	if ok && statErr == nil && time.Since(c.at) < inspectTTL && st.ModTime().Equal(c.mtime) && st.Size() == c.size {
		if c.err != nil {
			return nil, c.err
		}
		cp := *c.py
		return &cp, nil
	}
	py, err, ok := diskLookup(path)
	if !ok {
		py, err = inspect(ctx, path, inspectScript)
		diskStore(path, py, err)
		if err != nil {
			py = nil
		}
	}
	if statErr == nil && ctx.Err() == nil {
		e := inspected{py: py, err: err, mtime: st.ModTime(), size: st.Size(), at: time.Now()}
		if py != nil {
			cp := *py
			e.py = &cp
		}
		inspectMu.Lock()
		inspectCache[path] = e
		inspectMu.Unlock()
	}
	return py, err
}
