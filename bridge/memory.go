package bridge

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"

	"github.com/adi-bridge/adi/probe"
)

// bigRecording is the size on disk (calls.bin + flt.bin) from which reading a recording is worth
// returning memory to the OS afterwards: decoding it leaves garbage of a few times that size,
// which the Go runtime would otherwise keep mapped (a daemon's RSS would stay at its peak).
const bigRecording = 4 << 20

// releasing is set while a release started by afterRead runs.
var releasing atomic.Bool

// afterRead returns the garbage of reading the recording in dir to the OS when the recording is
// big: in the background, so that the command that read it answers first, and once at a time.
func afterRead(dir string) {
	if recordingSize(dir) < bigRecording || !releasing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer releasing.Store(false)
		debug.FreeOSMemory()
	}()
}

// recordingSize is the size of the recording in the run directory dir on disk.
func recordingSize(dir string) int64 {
	var n int64
	for _, f := range []string{probe.CallsFile, probe.FLTFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil {
			n += st.Size()
		}
	}
	return n
}
