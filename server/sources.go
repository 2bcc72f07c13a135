package server

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
)

// Every CLI command that names its target asks session.create to reuse the session's recording,
// which it may only do while no source file of the recording has changed since it was made
// (stale). Stat-ing each of those files made that check most of a navigation command's time in
// the daemon (networkx's recording comes from 250 files: 180 µs of a 250 µs session.create, of a
// 3 ms command). So the daemon watches the directories of those files (inotify) and stats them
// again only when one of them had an event since the last check: a check reads the events queued
// so far (the kernel queues an event before the write that makes it returns, so an edit made
// before the command is always seen) and costs a map lookup per file. A file that cannot be
// watched (no inotify, the watch limit reached, a directory removed) is stat-ed at every check,
// as before; a queue that overflowed makes every session's next check stat its files.

// recordedFiles is the list of source files of one recording, cached by session id, with what
// the watch knew when they were last stat-ed.
type recordedFiles struct {
	created time.Time // the session's creation time and number of frames identify the recording
	frames  int
	files   []string
	// checked is the watch's event count when the files were last found unchanged; watched
	// whether every one of their directories is watched (else they are stat-ed every time).
	checked uint64
	watched bool
}

// sourceWatch is the daemon's inotify instance over the directories of recorded source files.
// Nothing reads it in the background: stale drains it, under mu.
type sourceWatch struct {
	mu      sync.Mutex
	opened  bool              // fd was tried
	fd      int               // the inotify instance; -1 when none could be made
	dirs    map[int32]string  // watch descriptor → directory
	wds     map[string]int32  // directory → watch descriptor
	lost    map[string]bool   // directories whose watch ended (removed, unmounted)
	files   map[string]bool   // the files recordings come from: only their events count
	last    map[string]uint64 // file → the event count at its last event
	events  uint64            // events counted so far
	reset   uint64            // the event count at the last overflow: every check before it stats
	scratch []byte
}

// watchMask is what changes a file's contents or replaces it: written, closed after writing,
// its times changed (touch), renamed or created over, removed.
const watchMask = syscall.IN_MODIFY | syscall.IN_CLOSE_WRITE | syscall.IN_ATTRIB | syscall.IN_MOVED_TO |
	syscall.IN_MOVED_FROM | syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF

// stale reports whether a source file of the recording changed after it was made: a reused
// recording would then describe code that no longer exists. The list of those files is made once
// per recording (walking every frame of a big recording takes milliseconds); they are stat-ed
// when the watch saw an event on one of them since they were last (see above).
func (h *Handler) stale(s *bridge.Session) bool {
	t := s.Trace()
	if t == nil {
		return false
	}
	created := s.Info().Created
	rf := h.sourceFiles(s.ID, created, t)
	w := &h.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drain()
	if rf.watched && rf.checked >= w.reset && !w.changedSince(rf) {
		return false
	}
	// watched first, then stat-ed: a change after the stat is an event the next check sees (the
	// watch is asked for again each time: a directory's may have ended)
	rf.watched = w.add(rf.files)
	w.drain()
	at := w.events
	for _, f := range rf.files {
		if st, err := os.Stat(f); err == nil && st.ModTime().After(created) {
			return true // (checked stays: until it is recorded again, every check stats)
		}
	}
	rf.checked = at
	return false
}

// changedSince reports whether a file of rf had an event since rf was last checked.
func (w *sourceWatch) changedSince(rf *recordedFiles) bool {
	for _, f := range rf.files {
		if w.last[f] > rf.checked {
			return true
		}
	}
	return false
}

// sourceFiles returns the source files of a session's recording t (cached by session id; a new
// recording of the session gets a new list).
func (h *Handler) sourceFiles(id string, created time.Time, t *adi.Trace) *recordedFiles {
	if v, ok := h.sources.Load(id); ok {
		if rf := v.(*recordedFiles); rf.created.Equal(created) && rf.frames == len(t.Frames) {
			return rf
		}
	}
	seen := map[string]bool{}
	var files []string
	for i := range t.Frames {
		f := t.Frames[i].File
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		files = append(files, f)
	}
	rf := &recordedFiles{created: created, frames: len(t.Frames), files: files}
	h.sources.Store(id, rf)
	return rf
}

// add watches the directories of files and reports whether all of them are watched.
func (w *sourceWatch) add(files []string) bool {
	if !w.opened {
		w.opened = true
		fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
		if err != nil {
			w.fd = -1
			return false
		}
		w.fd = fd
		w.dirs, w.wds, w.lost = map[int32]string{}, map[string]int32{}, map[string]bool{}
		w.files, w.last = map[string]bool{}, map[string]uint64{}
	}
	if w.fd < 0 {
		return false
	}
	all := true
	for _, f := range files {
		w.files[f] = true
		dir := filepath.Dir(f)
		if w.lost[dir] {
			all = false
			continue
		}
		if _, ok := w.wds[dir]; ok {
			continue
		}
		wd, err := syscall.InotifyAddWatch(w.fd, dir, watchMask)
		if err != nil {
			all = false
			continue
		}
		w.wds[dir], w.dirs[int32(wd)] = int32(wd), dir
	}
	return all
}

// close ends the watch.
func (w *sourceWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.opened && w.fd >= 0 {
		_ = syscall.Close(w.fd)
		w.fd = -1
	}
}

// drain reads the events queued on the watch, without waiting.
func (w *sourceWatch) drain() {
	if !w.opened || w.fd < 0 {
		return
	}
	if w.scratch == nil {
		w.scratch = make([]byte, 64<<10)
	}
	for {
		n, err := syscall.Read(w.fd, w.scratch)
		if err != nil || n <= 0 {
			return // EAGAIN: nothing more queued
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&w.scratch[off]))
			end := off + syscall.SizeofInotifyEvent + int(ev.Len)
			if end > n {
				break
			}
			name := bytes.TrimRight(w.scratch[off+syscall.SizeofInotifyEvent:end], "\x00") // (padded with NULs)
			w.event(ev.Wd, ev.Mask, string(name))
			off = end
		}
	}
}

// event counts one inotify event.
func (w *sourceWatch) event(wd int32, mask uint32, name string) {
	w.events++
	if mask&syscall.IN_Q_OVERFLOW != 0 {
		w.reset = w.events // events were lost: every recording is stat-ed at its next check
		return
	}
	dir, ok := w.dirs[wd]
	if !ok {
		return
	}
	if mask&(syscall.IN_IGNORED|syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF) != 0 {
		// the directory's watch ends: its files are stat-ed at every check from now on
		w.lost[dir] = true
		delete(w.wds, dir)
		w.reset = w.events
		if mask&syscall.IN_IGNORED != 0 {
			delete(w.dirs, wd)
		}
		return
	}
	if f := filepath.Join(dir, name); w.files[f] {
		w.last[f] = w.events
	}
}
