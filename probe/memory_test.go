package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/adi-bridge/adi/adi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BenchmarkReadMemory measures how much memory a read recording keeps: the live Go heap that
// Read leaves (after a full collection, minus the heap before it), in total and per frame of T,
// next to the recording's bytes on disk (calls.bin + flt.bin). It reads the run directories
// listed in ADI_MEM_RUNS (separated by the OS path list separator, ':' on Linux) and is skipped
// without them, for example:
//
//	ADI_MEM_RUNS=$(echo /tmp/mem/state/sessions/*/runs/0000) go test ./probe -run - -bench ReadMemory -benchtime 1x
//
// The metrics are live-B (heap bytes), live-B/frame, disk-B and live/disk (the bar is <= 1).
func BenchmarkReadMemory(b *testing.B) {
	runs := filepath.SplitList(os.Getenv("ADI_MEM_RUNS"))
	if len(runs) == 0 {
		b.Skip("ADI_MEM_RUNS names no recording to measure")
	}
	for _, dir := range runs {
		name := filepath.Base(filepath.Dir(filepath.Dir(dir)))
		b.Run(name, func(b *testing.B) {
			var m ReadMemory
			for i := 0; i < b.N; i++ {
				var err error
				if m, err = MeasureRead(dir); err != nil {
					b.Fatal(err)
				}
			}
			if m.Frames == 0 || m.DiskBytes == 0 {
				b.Fatalf("%s holds no recording (%d frames, %d bytes on disk): give a run directory", dir, m.Frames, m.DiskBytes)
			}
			b.ReportMetric(float64(m.LiveBytes), "live-B")
			b.ReportMetric(float64(m.LiveBytes)/float64(max(m.Frames, 1)), "live-B/frame")
			b.ReportMetric(float64(m.DiskBytes), "disk-B")
			b.ReportMetric(float64(m.LiveBytes)/float64(max(m.DiskBytes, 1)), "live/disk")
			b.ReportMetric(float64(m.PeakBytes), "peak-B")
			b.Logf("%s: %d frames, %d FLTs, live heap %d B (%.0f B/frame), on disk %d B", dir, m.Frames,
				m.FLTs, m.LiveBytes, float64(m.LiveBytes)/float64(max(m.Frames, 1)), m.DiskBytes)
		})
	}
}

// ReadMemory is what MeasureRead found.
type ReadMemory struct {
	Frames, FLTs int
	LiveBytes    int64 // live heap the read recording holds
	PeakBytes    int64 // the heap's largest size during the read (objects live or not yet swept)
	DiskBytes    int64 // calls.bin + flt.bin
}

// MeasureRead reads the run directory dir and reports the live heap its recording holds (of a
// second read: the first warms the process up).
func MeasureRead(dir string) (ReadMemory, error) {
	var m ReadMemory
	for _, f := range []string{CallsFile, FLTFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil {
			m.DiskBytes += st.Size()
		}
	}
	// a first read makes what any read allocates once per process (the CRC table, encoding/json's
	// type cache), which is not the recording's
	if _, err := Read(dir); err != nil {
		return m, err
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	stop, peak := samplePeak()
	rec, err := Read(dir)
	close(stop)
	m.PeakBytes = <-peak - int64(before.HeapAlloc)
	if err != nil {
		return m, err
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	m.Frames, m.FLTs = rec.Trace.Len(), len(rec.FLTs)
	m.LiveBytes = int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(rec)
	return m, nil
}

// samplePeak samples the heap's size (its objects, live or not yet swept: what the collector
// lets grow to its goal) every 100µs until stop is closed, then sends the largest.
func samplePeak() (stop chan struct{}, peak chan int64) {
	stop, peak = make(chan struct{}), make(chan int64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var most int64
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			most = max(most, int64(s[0].Value.Uint64()))
			select {
			case <-stop:
				peak <- most
				return
			case <-t.C:
			}
		}
	}()
	return stop, peak
}

// BenchmarkRead times Read of the run directories in ADI_MEM_RUNS (see BenchmarkReadMemory).
func BenchmarkRead(b *testing.B) {
	runs := filepath.SplitList(os.Getenv("ADI_MEM_RUNS"))
	if len(runs) == 0 {
		b.Skip("ADI_MEM_RUNS names no recording to read")
	}
	for _, dir := range runs {
		b.Run(filepath.Base(filepath.Dir(filepath.Dir(dir))), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Read(dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReadAllocatesLittle reads a generated recording of 20,000 calls of a few functions whose
// arguments repeat (as T's summarised reprs do) and checks what the decoded records hold until T
// is built (the read's peak holds them and T): at most 1.4 times the recording's size on disk (a
// read that kept a copy of each record's reprs held 1.85 times it); and that the read allocates at
// most 10 times that size in all (11.2 times before).
func TestReadAllocatesLittle(t *testing.T) {
	const calls = 20000
	var b strings.Builder
	b.WriteString(`[["code",0,"t:<module>","/p/t.py",1,[]],["thread",0,"MainThread"],["code",1,"t:f","/p/t.py",3,["x","y"]],["code",2,"t:g","/p/t.py",9,["self"]]]` + "\n")
	for i := 1; i < calls; i++ {
		if i%1000 == 1 {
			b.WriteString("[")
		} else {
			b.WriteString(",")
		}
		if i%2 == 1 {
			fmt.Fprintf(&b, `["callret",%d,1,0,0,7,[%d,"'<Add, not rendered>'"],"#%016d","%d"]`, i, i%7, i%5, i)
		} else {
			fmt.Fprintf(&b, `["callret",%d,2,%d,0,4,["<Poly object at 0x7f%d>"],null,"None"]`, i, i-1, i%3)
		}
		if i%1000 == 0 || i == calls-1 {
			b.WriteString("]\n")
		}
	}
	b.WriteString(`[["call",0,0,-1,0,0,[],null]]` + "\n")
	bin := callsBin(t, b.String())
	dir := writeFiles(t, map[string]string{CallsFile: bin,
		ResultFile: fmt.Sprintf(`{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":%d}`, calls)})
	if _, err := Read(dir); err != nil { // what any read allocates once per process
		t.Fatal(err)
	}
	var before, decoded, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tail := NewTail(dir)
	tail.Poll() // every record decoded, T not built yet: what the read's peak holds
	runtime.GC()
	runtime.ReadMemStats(&decoded)
	rec, err := tail.Finish()
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Equal(t, calls, rec.Trace.Len())
	f := rec.Trace.Frame(3)
	assert.Same(t, f.Arguments, rec.Trace.Frame(3+2*35).Arguments, "equal argument lists are shared")
	assert.Equal(t, []adi.Arg{{Name: "x", Value: "3"}, {Name: "y", Value: "'<Add, not rendered>'"}}, f.Args)
	held := decoded.HeapAlloc - before.HeapAlloc
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d calls, %d bytes on disk; decoded records hold %d bytes (%.2fx), the read allocates %d (%.1fx)", calls,
		len(bin), held, float64(held)/float64(len(bin)), allocated, float64(allocated)/float64(len(bin)))
	assert.LessOrEqual(t, held, uint64(len(bin))*7/5, "heap held by the decoded records")
	assert.LessOrEqual(t, allocated, uint64(10*len(bin)), "bytes allocated by the read")
	runtime.KeepAlive(tail)
}

// TestSmallReadKeepsLittle checks that a recording of a few calls keeps a few kilobytes once read:
// the chunks its argument lists and Args are cut from start small (slab), where fixed
// chunks of a thousand Args kept 42 kB for every run of every session, however small.
func TestSmallReadKeepsLittle(t *testing.T) {
	bin := callsBin(t, `[["code",0,"t:<module>","/p/t.py",1,[]],["thread",0,"MainThread"],["code",1,"t:f","/p/t.py",3,["x","y"]],`+
		`["callret",1,1,0,0,7,[1,"'a'"],null,"2"],["callret",2,1,0,0,7,[2,"'b'"],null,"3"],["callret",0,0,-1,0,0,[],null,"None"]]`+"\n")
	dir := writeFiles(t, map[string]string{CallsFile: bin,
		ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":3}`})
	if _, err := Read(dir); err != nil { // what any read allocates once per process
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC() // (a sync.Pool's garbage goes at the second)
	runtime.ReadMemStats(&before)
	rec, err := Read(dir)
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	require.Equal(t, 3, rec.Trace.Len())
	assert.Equal(t, []adi.Arg{{Name: "x", Value: "2"}, {Name: "y", Value: "'b'"}}, rec.Trace.Frame(2).Args)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("a read of %d calls keeps %d bytes", rec.Trace.Len(), held)
	assert.Less(t, held, int64(8<<10), "heap kept by a recording of 3 calls")
	runtime.KeepAlive(rec)
}

func TestSlabGrows(t *testing.T) {
	var s slab[int]
	var sizes []int
	for range 200 {
		last := s.size
		e := s.take(1, 64)
		e[0] = 1
		if s.size != last || len(s.free) == s.size-1 {
			sizes = append(sizes, s.size)
		}
	}
	// each chunk fills its span (spans.Len): 16 ints, then 24 asked → 192 bytes → 256 bytes, 32 ints
	assert.Equal(t, []int{16, 32, 64, 64, 64}, sizes, "chunk sizes (240 elements for 200 takes)")
	big := s.take(100, 64)
	assert.Len(t, big, 100)
	assert.Equal(t, 100, cap(big), "a take is cut to its length")
}

// TestArgumentsShared reads calls whose argument lists differ in their fingerprint alone (T's
// summaries of values past a function's first calls) and calls without arguments of two
// functions: the first share their Args, the second have one Arguments each (which holds its
// function's Code), shared by the calls of one function.
func TestArgumentsShared(t *testing.T) {
	bin := callsBin(t, `[["code",0,"t:<module>","/p/t.py",1,[]],["thread",0,"MainThread"],["code",1,"t:f","/p/t.py",3,["d"]],["code",2,"t:g","/p/t.py",5,[]],`+
		`["callret",1,1,0,0,7,["<dict, not rendered>"],"#a","None"],["callret",2,1,0,0,7,["<dict, not rendered>"],"#b","None"],`+
		`["callret",3,1,0,0,7,["<dict, not rendered>"],"#a","None"],["callret",4,2,0,0,8,[],null,"None"],["callret",5,2,0,0,9,[],null,"None"],["callret",0,0,-1,0,0,[],null,"None"]]`+"\n")
	dir := writeFiles(t, map[string]string{CallsFile: bin,
		ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":6}`})
	rec, err := Read(dir)
	require.NoError(t, err)
	fr := rec.Trace.Frames
	require.Len(t, fr, 6)
	want := []adi.Arg{{Name: "d", Value: "<dict, not rendered>"}}
	for _, i := range []int{1, 2, 3} {
		assert.Equal(t, want, fr[i].Args, "frame %d", i)
	}
	assert.Equal(t, []string{"#a", "#b", "#a"}, []string{fr[1].ArgsFP, fr[2].ArgsFP, fr[3].ArgsFP})
	assert.Same(t, fr[1].Arguments, fr[3].Arguments, "f#1 and f#3: the same reprs and fingerprint")
	assert.NotSame(t, fr[1].Arguments, fr[2].Arguments, "f#1 and f#2: another fingerprint")
	assert.Same(t, &fr[1].Args[0], &fr[2].Args[0], "f#1 and f#2 share their Args")
	assert.Same(t, fr[4].Arguments, fr[5].Arguments, "g#1 and g#2: no arguments, one list")
	assert.NotSame(t, fr[0].Arguments, fr[4].Arguments, "t:<module>#1 and g#1: no arguments, a list each")
	for i, fn := range []string{"t:<module>", "t:f", "t:f", "t:f", "t:g", "t:g"} {
		assert.Equal(t, fn, fr[i].Func, "frame %d's Code, held by its Arguments", i)
	}
	assert.Equal(t, []adi.Arg{}, fr[4].Args, "no arguments: an empty list, not nil")
	assert.Equal(t, "=", fr[4].ArgsFP)
}

// TestCodesShared reads two recordings of one program: their frames share one Code per function
// (the second recording adds none), a function defined elsewhere in another file gets its own,
// and once neither recording is held their Codes are freed and the pool forgets them.
func TestCodesShared(t *testing.T) {
	const file = "/p/shared_codes.py" // (no other test's recording names it)
	record := func(gLine int) string {
		bin := callsBin(t, fmt.Sprintf(`[["code",0,"t:<module>","%[1]s",1,[]],["thread",0,"MainThread"],["code",1,"t:f","%[1]s",3,["x"]],`+
			`["code",2,"t:g","%[1]s",%[2]d,[]],["callret",1,1,0,0,7,[1],null,"None"],["callret",2,2,0,0,8,[],null,"None"],`+
			`["callret",0,0,-1,0,0,[],null,"None"]]`+"\n", file, gLine))
		return writeFiles(t, map[string]string{CallsFile: bin,
			ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":3}`})
	}
	pooled := func() int { // the pool's Codes of file
		codes.Lock()
		defer codes.Unlock()
		n := 0
		for k := range codes.m {
			if k.file == file {
				n++
			}
		}
		return n
	}
	a, err := Read(record(5))
	require.NoError(t, err)
	b, err := Read(record(5))
	require.NoError(t, err)
	c, err := Read(record(6)) // g moved a line down: another function definition
	require.NoError(t, err)
	for i, fn := range []string{"t:<module>", "t:f", "t:g"} {
		fa, fb := a.Trace.Frame(i), b.Trace.Frame(i)
		assert.Same(t, fa.Code, fb.Code, "frame %d (%s): one Code for both recordings", i, fn)
		assert.Equal(t, adi.Code{Func: fn, File: file, Line: int32([]int{1, 3, 5}[i])}, *fa.Code)
	}
	assert.Same(t, a.Trace.Frame(1).Code, c.Trace.Frame(1).Code, "t:f is where it was")
	assert.NotSame(t, a.Trace.Frame(2).Code, c.Trace.Frame(2).Code, "t:g moved")
	assert.Equal(t, int32(6), c.Trace.Frame(2).Line)
	assert.Equal(t, 4, pooled(), "four distinct Codes in the pool")
	for i := 1; i < 3; i++ {
		assert.Equal(t, unsafe.StringData(a.Trace.Frame(0).File), unsafe.StringData(a.Trace.Frame(i).File),
			"frame %d: the Codes of one file share its path", i)
	}
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	runtime.GC()
	codes.Lock()
	sweepCodes() // (what a miss does once the pool has grown)
	codes.Unlock()
	assert.Equal(t, 0, pooled(), "the Codes no recording holds are swept out")
}
