package bridge

import (
	"weak"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/fltpack"
	"github.com/adi-bridge/adi/probe"
)

// fltStore holds a session's FLTs, by index in T, packed (internal/fltpack): a daemon keeps its
// sessions for hours, and an FLT decoded holds 128 bytes a step before its changes, where packed
// a step is a few bytes (networkx's `_dijkstra_multisource`, 145 steps: 36 kB decoded, 4 kB
// packed). A command unpacks the FLT it shows (17 µs for that one). An FLT put or unpacked
// stays reachable weakly until the collector next runs, so that the commands of a burst unpack
// each FLT once, and a daemon that has gone idle (it collects then: memory.go) keeps none
// decoded. FLTs are never written once stored, which makes handing out one copy to every
// caller safe. The zero fltStore is empty; the session's lock guards it.
type fltStore struct {
	packed map[int][]byte
	recent map[int]weak.Pointer[adi.FLT]
	ended  map[int]bool // the frames whose stored FLT was read to its end
}

// put stores the FLT of T[j], replacing the one stored before.
func (fs *fltStore) put(j int, flt *adi.FLT) {
	if fs.packed == nil {
		fs.packed, fs.recent, fs.ended = map[int][]byte{}, map[int]weak.Pointer[adi.FLT]{}, map[int]bool{}
	}
	fs.packed[j] = fltpack.Pack(flt)
	fs.remember(j, flt)
	if flt.Ended {
		fs.ended[j] = true
	} else {
		delete(fs.ended, j)
	}
}

// putAll stores flts, by index in T, but for those whose stored FLT was read to its end as they
// were: an FLT that has ended does not change, and a live session reads every FLT of its
// recording again as the recording grows (live.go).
func (fs *fltStore) putAll(flts map[int]*adi.FLT) {
	for j, flt := range flts {
		if !(flt.Ended && fs.ended[j]) {
			fs.put(j, flt)
		}
	}
}

// take stores the FLTs of rec (putAll) and drops them from it: the store holds them packed, and
// rec stays with the session (its base run) for as long as it is open.
func (fs *fltStore) take(rec *probe.Recording) {
	fs.putAll(rec.FLTs)
	rec.FLTs = nil
}

// get returns the FLT of T[j] and whether one is stored.
func (fs *fltStore) get(j int) (*adi.FLT, bool) {
	if flt := fs.recent[j].Value(); flt != nil {
		return flt, true
	}
	b, ok := fs.packed[j]
	if !ok {
		return nil, false
	}
	flt, err := fltpack.Unpack(b)
	if err != nil { // bytes Pack made always unpack; if not, the FLT is recorded again
		delete(fs.packed, j)
		delete(fs.ended, j)
		return nil, false
	}
	fs.remember(j, flt)
	return flt, true
}

// has reports whether the FLT of T[j] is stored, without unpacking it.
func (fs *fltStore) has(j int) bool {
	_, ok := fs.packed[j]
	return ok
}

// len returns how many FLTs are stored.
func (fs *fltStore) len() int { return len(fs.packed) }

// reset forgets every FLT (a live session's new process starts a new T).
func (fs *fltStore) reset() {
	clear(fs.packed)
	clear(fs.recent)
	clear(fs.ended)
}

// remember keeps a weak pointer to the decoded FLT of T[j], first dropping those the collector
// has cleared when there are more than a few.
func (fs *fltStore) remember(j int, flt *adi.FLT) {
	if len(fs.recent) >= 32 {
		for k, w := range fs.recent {
			if w.Value() == nil {
				delete(fs.recent, k)
			}
		}
	}
	fs.recent[j] = weak.Make(flt)
}
