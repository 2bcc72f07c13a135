package probe

import (
	"os"
	"runtime/pprof"
	"testing"
	"time"
)

func TestZZFinishTime(t *testing.T) {
	dir := os.Getenv("ADI_RUN_DIR")
	if dir == "" {
		t.Skip()
	}
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		tl := NewTail(dir)
		tl.Poll()
		t1 := time.Now()
		if i == 2 {
			f, _ := os.Create("/tmp/fin.prof")
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
		rec, err := tl.Finish()
		if err != nil {
			t.Fatal(err)
		}
		t2 := time.Now()
		t.Logf("poll %v finish %v frames %d", t1.Sub(t0), t2.Sub(t1), rec.Trace.Len())
	}
}
