package bridge

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/adi-bridge/adi/adi"
)

// BenchmarkLoadSessionMemory measures the live heap a session holds in the bridge: each session
// directory in ADI_MEM_SESSIONS (separated by ':') is loaded with LoadSession, and the heap live
// after a full collection, minus the heap before, is reported next to the bytes of the session's
// first recording on disk (calls.bin + flt.bin). Skipped without ADI_MEM_SESSIONS, for example:
//
//	ADI_MEM_SESSIONS=$(echo /tmp/mem/state/sessions/*) go test ./bridge -run - -bench LoadSessionMemory -benchtime 1x
func BenchmarkLoadSessionMemory(b *testing.B) {
	dirs := filepath.SplitList(os.Getenv("ADI_MEM_SESSIONS"))
	if len(dirs) == 0 {
		b.Skip("ADI_MEM_SESSIONS names no session to load")
	}
	for _, dir := range dirs {
		b.Run(filepath.Base(dir), func(b *testing.B) {
			var live int64
			var s *Session
			// a first load makes what any load allocates once per process, which is not the session's
			if s, err := LoadSession(context.Background(), dir, nil, nil); err == nil {
				s.Close()
			}
			for i := 0; i < b.N; i++ {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				var err error
				if s, err = LoadSession(context.Background(), dir, nil, nil); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				live = int64(after.HeapAlloc) - int64(before.HeapAlloc)
				runtime.KeepAlive(s)
			}
			disk := recordingSize(filepath.Join(dir, "runs", "0000"))
			frames := s.Trace().Len()
			if frames == 0 || disk == 0 {
				b.Fatalf("%s holds no recording (%d frames, %d bytes on disk): give a session directory", dir, frames, disk)
			}
			b.ReportMetric(float64(live), "live-B")
			b.ReportMetric(float64(live)/float64(max(frames, 1)), "live-B/frame")
			b.ReportMetric(float64(disk), "disk-B")
			b.ReportMetric(float64(live)/float64(max(disk, 1)), "live/disk")
			b.Logf("%s: %d frames, live heap %d B, first recording on disk %d B", dir, frames, live, disk)
			s.Close()
		})
	}
}

// recordingSize is the size of the recording in the run directory dir on disk.
func recordingSize(dir string) int64 {
	var n int64
	for _, f := range []string{"calls.bin", "flt.bin"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil {
			n += st.Size()
		}
	}
	return n
}

// TestCloseReleasesMemory: closing a session makes its recording garbage, so the close asks for
// that memory to be returned to the OS once the daemon is idle (releaseSoon), and the release,
// when it runs, returns the freed heap.
func TestCloseReleasesMemory(t *testing.T) {
	m, err := NewManager(ManagerConfig{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown()
	// a session holding a recording of a few MB (built here: no Python runs)
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i)
	}
	tr := &adi.Trace{Frames: []adi.Frame{{N: 1, Arguments: &adi.Arguments{Code: &adi.Code{Func: "t:f"}}, Caller: -1, Outcome: adi.Returning(string(big))}}}
	tr.Index()
	big = nil
	s := &Session{ID: "held", trace: tr, state: &adi.State{}, prog: &Program{}, base: &Run{}, emit: func(Event) {}}
	m.mu.Lock()
	m.sessions[s.ID] = s
	m.mu.Unlock()
	s = nil

	release.Lock()
	release.pending = time.Time{}
	if release.timer != nil {
		release.timer.Stop()
	}
	release.Unlock()
	if err := m.Close("held"); err != nil {
		t.Fatal(err)
	}
	release.Lock()
	asked := !release.pending.IsZero()
	if release.timer != nil {
		release.timer.Stop() // the test runs the release itself, not a second later
	}
	release.Unlock()
	if !asked {
		t.Fatal("closing a session asked for no release of its memory")
	}
	m.mu.Lock()
	_, kept := m.sessions["held"]
	m.mu.Unlock()
	if kept {
		t.Fatal("the manager still holds the closed session")
	}
	releaseNow()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 6<<20 {
		t.Errorf("after the release the heap still holds %d bytes live: the closed session's recording is still reachable", ms.HeapAlloc)
	}
	if held := ms.HeapInuse + ms.HeapIdle - ms.HeapReleased; held > 8<<20 {
		t.Errorf("after the release the heap keeps %d bytes from the OS; the closed recording's 8 MiB should be returned", held)
	}
}
