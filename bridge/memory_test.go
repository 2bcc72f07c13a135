package bridge

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
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
