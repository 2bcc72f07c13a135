package server

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
)

// Every CLI command that names its target asks session.create to reuse the session's recording,
// which it may only do while no source file of the recording has changed since it was made
// (stale). Stat-ing each of those files made that check most of a navigation command's time in
// the daemon (networkx's recording comes from 250 files: 180 µs of a 250 µs session.create, of a
// 3 ms command). So the daemon watches the directories of those files (fsnotify: inotify on Linux,
// kqueue on macOS) and stats them again only when one of them had an event since the last check.
// A check first syncs with the watch: it touches a file of a private directory the watch also
// watches and reads the events until that file's; the kernel queues an event before the change
// that makes it returns, in order, so an edit made before the command is always seen, and a check
// costs that touch and its event (about 20 µs on a loaded 2-core machine, where stat-ing 250 files
// took 1.1 ms) and a map lookup per file. A file that cannot be watched (no watch could be
// made, its limit reached, a directory removed) is stat-ed at every check, as before; a queue that
// overflowed, or a sync that did not come back, makes every session's next check stat its files.

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

// sourceWatch is the daemon's fsnotify watch over the directories of recorded source files.
// Nothing reads its events in the background but fsnotify's own reader: stale drains them, under mu.
type sourceWatch struct {
	mu     sync.Mutex
	opened bool              // a watch was tried
	w      *fsnotify.Watcher // nil when none could be made
	sync   string            // the private directory whose two files drain touches in turn
	syncs  int               // the number of syncs so far
	wds    map[string]bool   // the directories watched
	lost   map[string]bool   // directories whose watch ended (removed, renamed)
	files  map[string]bool   // the files recordings come from: only their events count
	last   map[string]uint64 // file → the event count at its last event
	events uint64            // events counted so far
	reset  uint64            // the event count at the last overflow: every check before it stats
}

// syncWait is how long drain waits for its own event before it gives the watch up (and makes a
// new one at the next check).
const syncWait = 2 * time.Second

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
		w.open()
		if w.files == nil {
			w.lost, w.files, w.last = map[string]bool{}, map[string]bool{}, map[string]uint64{}
		}
	}
	if w.w == nil {
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
		if w.wds[dir] {
			continue
		}
		if err := w.w.Add(dir); err != nil {
			all = false
			continue
		}
		w.wds[dir] = true
	}
	return all
}

// open makes the watch and its sync directory; w.w stays nil when either cannot be made.
func (w *sourceWatch) open() {
	fw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return
	}
	dir, err := os.MkdirTemp("", "adi-watch-")
	if err == nil {
		for _, name := range []string{"0", "1"} {
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, name), nil, 0o600)
			}
		}
	}
	if err == nil {
		err = fw.Add(dir)
	}
	if err != nil {
		_ = fw.Close()
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
		return
	}
	w.w, w.sync, w.wds = fw, filepath.Clean(dir), map[string]bool{}
}

// close ends the watch.
func (w *sourceWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.giveUp()
}

// giveUp ends the watch: every file is stat-ed at its next check, which makes a new watch.
func (w *sourceWatch) giveUp() {
	if w.w == nil {
		return
	}
	_ = w.w.Close()
	_ = os.RemoveAll(w.sync)
	w.w, w.sync, w.wds, w.opened = nil, "", nil, false
	w.events++
	w.reset = w.events
}

// drain reads the events queued on the watch up to now: it touches one of its sync files and
// reads events until that file's (its two files are taken in turn, so that an event of the sync
// before, had it come late, is not taken for this one's).
func (w *sourceWatch) drain() {
	if w.w == nil {
		return
	}
	name := filepath.Join(w.sync, strconv.Itoa(w.syncs%2))
	w.syncs++
	now := time.Now()
	if err := os.Chtimes(name, now, now); err != nil {
		w.giveUp()
		return
	}
	timer := time.NewTimer(syncWait)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-w.w.Events:
			switch {
			case !ok:
				w.giveUp()
				return
			case ev.Name == name:
				return
			case ev.Name == w.sync && ev.Has(fsnotify.Remove|fsnotify.Rename):
				w.giveUp() // (a cleaner of the temporary directory removed it)
				return
			case filepath.Dir(ev.Name) != w.sync:
				w.event(ev)
			}
		case err, ok := <-w.w.Errors:
			if !ok {
				w.giveUp()
				return
			}
			w.error(err)
		case <-timer.C:
			w.giveUp()
			return
		}
	}
}

// event counts one event of the watch.
func (w *sourceWatch) event(ev fsnotify.Event) {
	w.events++
	if w.wds[ev.Name] && ev.Has(fsnotify.Remove|fsnotify.Rename) {
		// the directory's watch ends: its files are stat-ed at every check from now on
		w.lost[ev.Name] = true
		delete(w.wds, ev.Name)
		_ = w.w.Remove(ev.Name) // (a renamed directory's watch would follow it)
		w.reset = w.events
		return
	}
	if w.files[ev.Name] {
		w.last[ev.Name] = w.events
	}
}

// error counts an error of the watch: events were lost (an overflow of the kernel's queue, or a
// failed read), so every recording is stat-ed at its next check.
func (w *sourceWatch) error(error) {
	w.events++
	w.reset = w.events
}
