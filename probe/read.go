package probe

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adi-bridge/adi/adi"
)

// EngineMonitoring is Result.Engine for the sys.monitoring engine (Python 3.12+), which records
// every function: it does not take the config's "only" (PROTOCOL.md).
const EngineMonitoring = "monitoring"

// Result is result.json: how the target ended and what the run found besides T and the FLTs.
type Result struct {
	Version         int               `json:"version"`
	Complete        bool              `json:"complete"`
	Exit            Exit              `json:"exit"`
	Calls           int               `json:"calls"`
	UnrecordedCalls int               `json:"unrecorded_calls"`
	Bytes           int64             `json:"bytes"`
	Limit           string            `json:"limit"`
	Conditions      []ConditionResult `json:"conditions"`
	Divergence      *Divergence       `json:"divergence"`
	DurationMS      float64           `json:"duration_ms"`
	Engine          string            `json:"engine"` // how the probe received events: trace, profile, EngineMonitoring
	Error           string            `json:"error,omitempty"`
	// InternalErrors are bugs the probe caught in itself (at most 5); the recording may miss what they hit.
	InternalErrors []string `json:"internal_errors,omitempty"`
	// Stopped says why the probe ended the run before the target ended, when it did: "exec" (the
	// run ended at a stop with an Exec statement, right after running it; exec.json holds its
	// result) or StoppedTimeout (the bridge asked it to stop at the run's time limit; what ran
	// until then is recorded). Empty when the target ran to its end.
	Stopped string `json:"stopped,omitempty"`
	// Watches are the watches an editor added while the run ran (its control server's list).
	Watches []RunWatch `json:"watches,omitempty"`
}

// RunWatch is one watch added to an editor's run while it ran (PROTOCOL.md, "Watching in an
// editor's run"), as its control server's list op and result.json give it.
type RunWatch struct {
	ID   int    `json:"watch"`
	Func string `json:"func"`
	Cond string `json:"cond,omitempty"`
	Max  int    `json:"max,omitempty"`
	// Caught counts the invocations it caught; FIDs are theirs (func#n, fids of T), oldest first.
	Caught     int      `json:"caught"`
	FIDs       []string `json:"fids"`
	Active     bool     `json:"active"`
	Removed    bool     `json:"removed"`
	CondErrors []string `json:"cond_errors,omitempty"`
}

// StoppedTimeout is Result.Stopped for a run stopped at its wall-clock time limit.
const StoppedTimeout = "timeout"

// Exit says how the target ended.
type Exit struct {
	Kind      string         `json:"kind"` // "exit", "exception", "os_exit", "stopped"
	Code      int            `json:"code"`
	Exception *ExitException `json:"exception"`
}

// ExitException is the uncaught exception that ended the target.
type ExitException struct {
	Type      string `json:"type"`
	Message   string `json:"message"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Traceback string `json:"traceback"`
}

// ConditionResult lists the invocations (numbers n of the condition's function, func#n) where a
// condition held, and the errors it raised (n, error text).
type ConditionResult struct {
	ID   int   `json:"id"`
	Hits []int `json:"hits"`
	// Visits holds, for a condition checked at a line, where each hit held: the statement's line
	// and the visit (the k-th step at that line of the invocation's FLT), as [line, visit].
	Visits    [][2]int          `json:"visits,omitempty"`
	Evaluated int               `json:"evaluated"`
	Errors    []json.RawMessage `json:"errors"`
}

// Divergence is the first call of a re-run that did not match the recording.
type Divergence struct {
	FID      string `json:"fid"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

// ConditionError is one failure of a condition: the invocation number n, and the exception text.
type ConditionError struct {
	N     int
	Error string
}

// DecodedErrors returns the condition's errors.
func (c *ConditionResult) DecodedErrors() []ConditionError {
	var out []ConditionError
	for _, raw := range c.Errors {
		var pair []json.RawMessage
		if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 {
			continue
		}
		var e ConditionError
		_ = json.Unmarshal(pair[0], &e.N)
		_ = json.Unmarshal(pair[1], &e.Error)
		out = append(out, e)
	}
	return out
}

// Recording is everything one probe run wrote.
type Recording struct {
	Trace  *adi.Trace
	FLTs   map[int]*adi.FLT // by index in T
	Result *Result          // nil when the process died before writing it
	// Gaps holds the invocations of a run that recorded some functions only (Config.Only) whose
	// direct user caller is a function it did not record: their recorded caller is a further one.
	Gaps map[int]bool
	// Strays holds, by index, the stepped invocations of such a run that called a function it did
	// not record (the first one's name): their FLTs do not show that call.
	Strays map[int]string
}

// The output files of a run (probe/PROTOCOL.md).
const (
	CallsFile  = "calls.bin"
	FLTFile    = "flt.bin"
	ResultFile = "result.json"
)

// Read decodes a run's output directory. A missing result.json, or a calls.bin whose last batch
// was cut off, makes a Partial trace rather than an error: what was written is kept. Call records
// come in any order (an invocation is written when it ends, or "open" when a batch is written while
// it runs); they are placed by idx, and T ends before the first idx that no record names.
func Read(dir string) (*Recording, error) { return NewTail(dir).Finish() }

// Tail reads a run's output while the run writes it: Poll decodes the batches of calls.bin
// written so far (the probe writes each batch with one write), so that decoding T, a third of a
// second for 200,000 calls, overlaps the run instead of following it; Finish reads the rest and
// returns the Recording as Read does. Not safe for concurrent use.
type Tail struct {
	dir   string
	d     *decoder
	calls *batchFile
}

// NewTail starts reading the run whose output directory is dir.
func NewTail(dir string) *Tail {
	return &Tail{dir: dir, d: &decoder{trace: &adi.Trace{}},
		calls: &batchFile{path: filepath.Join(dir, CallsFile), magic: callsMagic}}
}

// Poll decodes every complete batch of calls.bin written since the last call; a batch being
// written waits for the next call. Errors are kept for Finish.
func (t *Tail) Poll() { t.calls.read(t.interner, t.d.callRecord) }

// interner returns the decoder's string interner, made at the first batch: its chunks are sized
// by the record files' size then (a run still writing them is only starting to).
func (t *Tail) interner() *interner {
	if t.d.strs == nil {
		var size int64
		for _, f := range []string{CallsFile, FLTFile} {
			if st, err := os.Stat(filepath.Join(t.dir, f)); err == nil {
				size += st.Size()
			}
		}
		t.d.strs = newInterner(size)
	}
	return t.d.strs
}

// Finish reads what remains of the run's output (the rest of calls.bin, result.json, flt.bin) and
// builds the Recording.
func (t *Tail) Finish() (*Recording, error) { return t.read(false) }

// Snapshot decodes the batches of calls.bin written since the last Poll or Snapshot and returns
// the Recording of the run so far, as Read would return it now; the Tail keeps its decoded records
// and reads on from where it stopped, so that a reader of a live run (an editor's session, at
// every stop) decodes each byte of calls.bin once. result.json and flt.bin are read whole each
// time (the live run writes neither until it ends, or few FLTs).
func (t *Tail) Snapshot() (*Recording, error) { return t.read(true) }

// Decoded counts the bytes of calls.bin decoded so far (its batches with their length prefixes).
func (t *Tail) Decoded() int64 { return t.calls.decoded }

// read builds the Recording from what was written; keep builds it from a copy of the decoded
// records (build consumes them), for a Tail that reads on.
func (t *Tail) read(keep bool) (*Recording, error) {
	defer t.calls.close()
	rec := &Recording{FLTs: map[int]*adi.FLT{}}
	res, err := readResult(filepath.Join(t.dir, ResultFile))
	if err != nil {
		return nil, err
	}
	rec.Result = res
	d := t.d
	t.interner()
	if !keep && res != nil && res.Calls > 0 && len(d.calls) == 0 {
		// one allocation for the call records instead of a slice grown record by record (the
		// count is the probe's; bounded so that a corrupt result.json cannot ask for much)
		d.calls = make([]call, 0, min(res.Calls, 1<<22))
	}
	cut := t.calls.read(t.interner, t.d.callRecord) // a batch still incomplete now was cut off
	if t.calls.err != nil {
		return nil, t.calls.err
	}
	if keep {
		c := *t.d
		c.calls = slices.Clone(t.d.calls) // build merges duplicates into them, then drops them
		c.trace = &adi.Trace{Threads: slices.Clone(t.d.trace.Threads)}
		c.codeOf = nil
		d = &c
	}
	gap, err := d.build()
	if err != nil {
		return nil, err
	}
	t.d.args.unnamed = d.args.unnamed // named once: the next snapshot's T shares them
	tr := d.trace
	// a run the probe stopped wrote all it recorded: it is cut, not partial (the bridge notes why)
	tr.Partial = res == nil || (!res.Complete && res.Stopped == "") || cut || gap
	if res != nil {
		tr.Unrecorded = res.UnrecordedCalls
		tr.Limit = res.Limit
	}
	tr.Index()
	rec.Trace = tr
	rec.Gaps, rec.Strays = d.gaps, d.strays
	// The probe writes a batch's calls, then its FLT records: a snapshot taken between the two
	// writes has a frame that ended in T and an FLT without its last steps. Its flt.bin is read
	// again until every ended frame's FLT has its end (the second write is a moment away), for at
	// most fltEndWait.
	for deadline := time.Now().Add(fltEndWait); ; time.Sleep(fltEndPoll) {
		if rec.FLTs, err = t.readFLTs(d); err != nil {
			return nil, err
		}
		if !keep || fltsEnded(tr, rec.FLTs) || time.Now().After(deadline) {
			break
		}
	}
	for _, flt := range rec.FLTs { // those without an end record (the others are clipped already)
		clipSteps(flt)
	}
	return rec, nil
}

// How long, and how often, a snapshot re-reads flt.bin for the end of an ended frame's FLT.
const (
	fltEndWait = 200 * time.Millisecond
	fltEndPoll = 2 * time.Millisecond
)

// readFLTs decodes flt.bin whole, with the calls d decoded.
func (t *Tail) readFLTs(d *decoder) (map[int]*adi.FLT, error) {
	fd := &fltDecoder{d: d, flts: map[int]*adi.FLT{}, stmts: map[int]map[int]string{}}
	flt := &batchFile{path: filepath.Join(t.dir, FLTFile), magic: fltMagic}
	flt.read(t.interner, fd.record)
	flt.close()
	return fd.flts, flt.err
}

// fltsEnded reports whether every FLT whose frame has ended in tr has its end record.
func fltsEnded(tr *adi.Trace, flts map[int]*adi.FLT) bool {
	for j, flt := range flts {
		if f := tr.Frame(j); f != nil && f.Status != adi.Unfinished && !flt.Ended {
			return false
		}
	}
	return true
}

func readResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read probe result: %w", err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("probe result %s is not valid JSON: %w", path, err)
	}
	return &r, nil
}

// The headers of calls.bin and flt.bin; batches follow, each a 4-byte little-endian length and a
// marshal (version 2) list of records (probe/PROTOCOL.md).
const (
	callsMagic = "adi-calls 1\n"
	fltMagic   = "adi-flt 1\n"
)

// batchFile reads one record file (calls.bin or flt.bin: a header, then batches of a 4-byte
// little-endian length and that many bytes), possibly while it is being written: read decodes the
// batches complete so far and remembers where the next one starts.
type batchFile struct {
	path, magic string
	f           *os.File
	off         int64 // where the next batch starts (0: the header is not read yet)
	decoded     int64 // bytes of batches decoded (with their length prefixes)
	buf         []byte
	err         error // the first error; nothing more is read after it
}

// read calls fn for every record of the batches written since the last read. A missing file, or
// a header or batch not complete yet (after the writer ended: cut off), ends it with cut=true;
// strs gives the interner the strings are kept in.
func (b *batchFile) read(strs func() *interner, fn func(tag string, rec []any) error) (cut bool) {
	if b.err != nil {
		return false
	}
	if b.f == nil {
		f, err := os.Open(b.path)
		if errors.Is(err, os.ErrNotExist) {
			return true
		}
		if err != nil {
			b.err = fmt.Errorf("read probe output: %w", err)
			return false
		}
		b.f = f
	}
	if b.off == 0 {
		magic := make([]byte, len(b.magic))
		n, err := b.f.ReadAt(magic, 0)
		switch {
		case err != nil && err != io.EOF:
			b.err = fmt.Errorf("read probe output: %w", err)
			return false
		case n < len(magic) && string(magic[:n]) == b.magic[:n]:
			return true // the writer has not written its header yet, or died before
		case string(magic) != b.magic:
			b.err = fmt.Errorf("probe output %s is not a probe file (%q expected; written by another version of the probe?)", b.path, strings.TrimSpace(b.magic))
			return false
		}
		b.off = int64(len(magic))
	}
	var head [4]byte
	for {
		n, err := b.f.ReadAt(head[:], b.off)
		if err != nil && err != io.EOF {
			b.err = fmt.Errorf("read probe output: %w", err)
			return false
		}
		if n < len(head) {
			return n > 0
		}
		size := int(binary.LittleEndian.Uint32(head[:]))
		if size > maxBatch {
			b.err = fmt.Errorf("probe output %s is corrupt: a batch of %d bytes", b.path, size)
			return false
		}
		if cap(b.buf) < size {
			b.buf = make([]byte, size)
		}
		buf := b.buf[:size]
		if got, err := b.f.ReadAt(buf, b.off+4); got < size {
			if err != nil && err != io.EOF {
				b.err = fmt.Errorf("read probe output: %w", err)
				return false
			}
			return true // being written (or, once the writer ended, cut off)
		}
		if err := decodeBatch(b.path, buf, strs(), fn); err != nil {
			b.err = err
			return false
		}
		b.off += int64(4 + size)
		b.decoded += int64(4 + size)
	}
}

// close closes the file (read may open it again).
func (b *batchFile) close() {
	if b.f != nil {
		b.f.Close()
		b.f = nil
	}
}

// decodeBatch decodes one batch of records (a marshal list of tuples) and calls fn for each.
func decodeBatch(path string, buf []byte, strs *interner, fn func(tag string, rec []any) error) error {
	v, rest, err := unmarshalInterned(buf, strs)
	if err == nil && len(rest) > 0 {
		err = errors.New("data after the batch")
	}
	batch, ok := v.([]any)
	if err == nil && !ok {
		err = fmt.Errorf("batch is a %T, not a list", v)
	}
	if err != nil {
		return fmt.Errorf("probe output %s is corrupt: %w", path, err)
	}
	for _, item := range batch {
		rec, ok := item.([]any)
		if !ok || len(rec) == 0 {
			return fmt.Errorf("probe output %s: a record is not a tuple", path)
		}
		tag, ok := rec[0].(string)
		if !ok {
			return fmt.Errorf("probe output %s: record without a tag", path)
		}
		if err := fn(tag, rec[1:]); err != nil {
			return fmt.Errorf("probe output %s: %s record: %w", path, tag, err)
		}
	}
	return nil
}

// maxBatch bounds one batch of calls.bin (the probe writes one every 2048 calls; a repr is bounded).
const maxBatch = 1 << 30

// maxThreads bounds thread ids (the probe numbers threads from 0 as it meets them).
const maxThreads = 1 << 16

type code struct {
	fn       string
	file     string
	line     int
	argnames []string
	def      *adi.Code // shared by the frames of this code
	slot     int32     // its function's place among the decoder's (funcSlot): build counts by it
	// bare holds the Arguments of this code's bare calls ("bare" records), made at the first
	bare *adi.Arguments
}

type decoder struct {
	codes []*code // by code id (the probe numbers its code records from 0 or 1 up; see code)
	// funcSlot numbers the functions of the code records read so far (several code objects may
	// be one function): build counts each function's invocations in a slice rather than a map.
	funcSlot map[string]int32
	// files holds the path of each file the recording's Codes are in, as the first of them
	// holds it: the Codes of one file share it
	files  map[string]string
	trace  *adi.Trace
	codeOf []int32 // code id of each frame
	strs   *interner

	calls    []call    // call/callret/callexc/made records, in file order
	outcomes []outcome // ret/exc/yield records, in file order
	nodeIDs  []nodeID  // test records, in file order
	forks    []int32   // fork records: the invocation each fork was made in (-1: none)
	gaps     map[int]bool
	strays   map[int]string

	args    argTable
	scratch []string // the reprs of the call record being decoded
	fpBuf   []byte   // the "=" fingerprint of the call record being decoded
}

// maxCodes bounds the code ids a recording may use: a program has thousands of code objects (the
// probe numbers them in order), and a corrupt record must not make the reader allocate for more.
const maxCodes = 1 << 20

// code returns the code record of code id cid, nil when none was read.
func (d *decoder) code(cid int) *code {
	if cid >= 0 && cid < len(d.codes) {
		return d.codes[cid]
	}
	return nil
}

// call is one invocation as a call record describes it, before it is placed in T. A read keeps
// one for every record of calls.bin until T is built, so it is kept small (56 bytes): its
// numbers are int32 (as in a Frame) and its arguments are the Arguments its frame will hold,
// shared with every record of the same code, reprs and fingerprint (see argTable).
type call struct {
	idx, cid, caller, line int32
	tid                    uint16
	status                 adi.Status
	args                   *adi.Arguments
	ret                    string
	exc                    *adi.Exception
}

// nodeID is a test record: the node id pytest gave test invocation idx.
type nodeID struct {
	idx int32
	id  string
}

// outcome is a ret, exc or yield record of an invocation written earlier as an open call.
type outcome struct {
	tag string
	idx int
	ret string
	exc *adi.Exception
}

// argTable shares the Arguments of the call records that have the same code, reprs and
// fingerprint: T renders the arguments of a function's first calls only and summarises the
// others ("<Add, not rendered>"), so most argument lists repeat (7,967 distinct ones for 222,728
// calls of sympy's factor). Each distinct list is made once, as its first record is decoded, so
// that a read holds one copy of it rather than one per record until T is built; lists that
// differ in their fingerprint alone share their Args, and a code's lists without arguments are
// one list per fingerprint. Each holds its code's Code (adi.Arguments.Code), set as it is made, or
// by build for a list read before its code's record. Frames' Arguments are never written after
// Read, which makes sharing them safe.
//
// The Args and Arguments it makes are cut from chunks of its own (one allocation for many lists).
type argTable struct {
	first    map[uint64]argList        // hash of code, reprs and fingerprint -> the first list with them
	byValues map[uint64]argList        // hash of code and reprs -> the first list with them, whose Args others share
	none     map[noArgs]*adi.Arguments // the lists without arguments, by code and fingerprint
	unnamed  []argList                 // lists whose code had no code record yet: build names them and sets their Code
	args     slab[adi.Arg]
	lists    slab[adi.Arguments]
	h        maphash.Hash
}

// noArgs is the key of a code's list without arguments: its code id and fingerprint.
type noArgs struct {
	cid int32
	fp  string
}

// argList is one distinct argument list and the code id it was read for.
type argList struct {
	cid int32
	a   *adi.Arguments
}

// The chunks of an argTable grow to argChunk Args (longer lists get an allocation of their own)
// and listChunk Arguments.
const (
	argChunk  = 1024
	listChunk = 256
)

// get returns the shared Arguments of code cid, whose code record (nil: not read yet; build
// names them and sets their Code) is cd, with the reprs vals and fingerprint fp.
func (t *argTable) get(cid int32, cd *code, vals []string, fp string) *adi.Arguments {
	if t.first == nil {
		t.first = make(map[uint64]argList)
		t.byValues = make(map[uint64]argList)
		t.none = make(map[noArgs]*adi.Arguments)
	}
	if len(vals) == 0 { // nothing to name
		a := t.none[noArgs{cid, fp}]
		if a == nil {
			a = t.newList(cid, cd)
			a.Args, a.ArgsFP = []adi.Arg{}, fp // an invocation without arguments has an empty list (JSON [], not null)
			t.none[noArgs{cid, fp}] = a
		}
		return a
	}
	t.h.Reset()
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(cid))
	t.h.Write(b[:])
	for _, v := range vals {
		t.h.WriteString(v)
		t.h.WriteByte(0)
	}
	vsum := t.h.Sum64()
	t.h.WriteString(fp)
	sum := t.h.Sum64()
	l, seen := t.first[sum]
	if seen && l.cid == cid && l.a.ArgsFP == fp && sameValues(l.a.Args, vals) {
		return l.a
	}
	a := t.newList(cid, cd)
	a.ArgsFP = fp
	// lists that differ in their fingerprint alone share their Args: past a function's first
	// calls T holds summaries ("<dict, not rendered>"), which repeat while the values they stand
	// for, and so the fingerprints, differ (requests: 2,319 lists, 6,404 Args, 249 distinct reprs)
	if !seen { // a list whose hash another list has is made for each of its records
		t.first[sum] = argList{cid, a}
	}
	v, vseen := t.byValues[vsum]
	if vseen && v.cid == cid && sameValues(v.a.Args, vals) {
		a.Args = v.a.Args // named with them
		return a
	}
	switch n := len(vals); {
	case n > argChunk/16:
		a.Args = make([]adi.Arg, n)
	default:
		a.Args = t.args.take(n, argChunk)
	}
	for i, v := range vals {
		a.Args[i].Value = v
	}
	if cd != nil {
		nameArgs(a, cd.argnames)
	}
	if !vseen {
		t.byValues[vsum] = argList{cid, a}
	}
	return a
}

// newList returns new Arguments of code cid, whose code record is cd (nil: not read yet, and the
// list is remembered for build).
func (t *argTable) newList(cid int32, cd *code) *adi.Arguments {
	a := &t.lists.take(1, listChunk)[0]
	if cd != nil {
		a.Code = cd.def
	} else {
		t.unnamed = append(t.unnamed, argList{cid, a})
	}
	return a
}

// sameValues reports whether args holds the reprs vals.
func sameValues(args []adi.Arg, vals []string) bool {
	if len(args) != len(vals) {
		return false
	}
	for i := range args {
		if args[i].Value != vals[i] {
			return false
		}
	}
	return true
}

// nameArgs names a's arguments after its code's parameters (arguments past them keep no name).
func nameArgs(a *adi.Arguments, argnames []string) {
	for i := range a.Args {
		if i < len(argnames) {
			a.Args[i].Name = argnames[i]
		}
	}
}

// int32Field returns n bounded to the int32 range: an id or a line outside it is corrupt, and
// the bound keeps it one (an idx or caller past every frame).
func int32Field(n int) int32 {
	return int32(min(max(n, math.MinInt32), math.MaxInt32))
}

// checkCall refuses a call record's invocation index or thread id out of range.
func checkCall(idx, tid int) error {
	if idx < 0 || idx > math.MaxInt32 {
		return fmt.Errorf("invocation %d out of range", idx)
	}
	if tid < 0 || tid >= maxThreads {
		return fmt.Errorf("thread id %d out of range", tid)
	}
	return nil
}

// callArgs returns the Arguments of a call record of code cid: the values items (reprs) and the
// record's fingerprint field fp.
func (d *decoder) callArgs(cid int, items []any, fp any) (*adi.Arguments, error) {
	d.scratch = d.scratch[:0]
	for _, it := range items {
		s, err := reprOf(it, d.strs)
		if err != nil {
			return nil, fmt.Errorf("field 6: %w", err)
		}
		d.scratch = append(d.scratch, s)
	}
	var fps string
	switch fp := fp.(type) {
	case nil: // "=" and the reprs: the arguments are short exact scalars
		d.fpBuf = append(d.fpBuf[:0], '=')
		for i, v := range d.scratch {
			if i > 0 {
				d.fpBuf = append(d.fpBuf, ", "...)
			}
			d.fpBuf = append(d.fpBuf, v...)
		}
		fps = d.strs.bytes(d.fpBuf)
	case string:
		fps = fp
	case []byte: // the probe's marshalled canonical tokens
		var b [17]byte
		fps = d.strs.bytes(fpBytes(&b, fp))
	default:
		return nil, fmt.Errorf("field 7: fingerprint of type %T", fp)
	}
	return d.args.get(int32Field(cid), d.code(cid), d.scratch, fps), nil
}

// outcomeChunk bounds the chunks of the Outcomes build makes.
const outcomeChunk = 256

func (d *decoder) callRecord(tag string, rec []any) error {
	t := d.trace
	switch tag {
	case "code":
		var cid int
		c := &code{}
		if err := values(rec, &cid, &c.fn, &c.file, &c.line, &c.argnames); err != nil {
			return err
		}
		if f, ok := d.files[c.file]; ok {
			c.file = f // the path a Code of this recording holds already: one string a file
		}
		key := codeKey{fn: c.fn, file: c.file, line: int32(c.line)}
		if len(rec) > 5 { // probes since issue 13 write what the code is
			kind, _ := rec[5].(string)
			key.kind = adi.ParseCodeKind(kind)
		}
		c.def = sharedCode(key) // (the unmarshaller gave fn and file strings of their own)
		c.fn, c.file = c.def.Func, c.def.File
		if d.files == nil {
			d.files = map[string]string{}
		}
		d.files[c.file] = c.file
		slot, ok := d.funcSlot[c.fn]
		if !ok {
			if d.funcSlot == nil {
				d.funcSlot = map[string]int32{}
			}
			slot = int32(len(d.funcSlot))
			d.funcSlot[c.fn] = slot
		}
		c.slot = slot
		if cid < 0 || cid >= maxCodes {
			return fmt.Errorf("code id %d out of range", cid)
		}
		if cid >= len(d.codes) {
			d.codes = append(d.codes, make([]*code, cid+1-len(d.codes))...)
		}
		d.codes[cid] = c
	case "thread":
		var tid int
		var name string
		if err := values(rec, &tid, &name); err != nil {
			return err
		}
		if tid < 0 || tid >= maxThreads {
			return fmt.Errorf("thread id %d out of range", tid)
		}
		for len(t.Threads) <= tid {
			t.Threads = append(t.Threads, "")
		}
		t.Threads[tid] = name
	case "bare":
		// a bare call that returned (config bare_after): idx, cid, caller, tid and its value; no
		// call line, its arguments not recorded
		var n [4]int
		if err := values(rec, &n[0], &n[1], &n[2], &n[3]); err != nil {
			return err
		}
		idx, cid, caller, tid := n[0], n[1], n[2], n[3]
		if err := checkCall(idx, tid); err != nil {
			return err
		}
		cd := d.code(cid)
		if cd == nil {
			return fmt.Errorf("bare call of unknown code %d", cid)
		}
		if cd.bare == nil {
			items := make([]any, len(cd.argnames))
			for i := range items {
				items[i] = bareMark
			}
			args, err := d.callArgs(cid, items, adi.BareFP)
			if err != nil {
				return err
			}
			cd.bare = args
		}
		c := call{idx: int32(idx), cid: int32Field(cid), caller: int32Field(caller), tid: uint16(tid),
			status: adi.Returned, args: cd.bare}
		if err := values(rec[4:], d.repr(&c.ret)); err != nil {
			return err
		}
		d.calls = append(d.calls, c)
	case "made", "call", "callret", "callexc":
		// "made": a generator or coroutine numbered at its creation (3.12+); the call record its
		// first start writes replaces this one, and without one it never started
		// read without values, whose pointers escape: a call record is most of a recording
		want := 7 // idx, cid, caller, tid, line, reprs, fingerprint
		if tag == "made" {
			want = 5
		}
		if len(rec) < want {
			return fmt.Errorf("has %d fields, want %d", len(rec), want)
		}
		var n [5]int
		for i := range n {
			v, ok := rec[i].(int64)
			if !ok {
				return fmt.Errorf("field %d: unexpected %T", i+1, rec[i])
			}
			n[i] = int(v)
		}
		idx, cid, caller, tid, line := n[0], n[1], n[2], n[3], n[4]
		var vals, fp any
		if tag != "made" {
			vals, fp = rec[5], rec[6]
		}
		var ok bool
		if err := checkCall(idx, tid); err != nil {
			return err
		}
		c := call{idx: int32(idx), cid: int32Field(cid), caller: int32Field(caller), line: int32Field(line),
			tid: uint16(tid), status: adi.Unfinished}
		var items []any
		if tag == "made" {
			c.status = adi.NotStarted
			fp = d.strs.str("=")
		} else if items, ok = vals.([]any); !ok {
			return fmt.Errorf("field 6: unexpected %T", vals)
		}
		args, err := d.callArgs(cid, items, fp)
		if err != nil {
			return err
		}
		c.args = args
		switch tag {
		case "callret":
			if err := values(rec[7:], d.repr(&c.ret)); err != nil {
				return err
			}
			c.status = adi.Returned
		case "callexc":
			exc, err := decodeExc(rec[7:])
			if err != nil {
				return err
			}
			c.status, c.exc = adi.Raised, exc
		}
		d.calls = append(d.calls, c)
	case "ret":
		o := outcome{tag: tag}
		if err := values(rec, &o.idx, d.repr(&o.ret)); err != nil {
			return err
		}
		d.outcomes = append(d.outcomes, o)
	case "exc":
		o := outcome{tag: tag}
		if err := values(rec, &o.idx); err != nil {
			return err
		}
		exc, err := decodeExc(rec[1:])
		if err != nil {
			return err
		}
		o.exc = exc
		d.outcomes = append(d.outcomes, o)
	case "yield":
		// the value is None when it was not rendered (bare calls): T then keeps only the count
		o := outcome{tag: tag}
		var v any
		if err := values(rec, &o.idx, &v); err != nil {
			return err
		}
		if v != nil {
			r, err := reprOf(v, d.strs)
			if err != nil {
				return fmt.Errorf("field 3: %w", err)
			}
			o.ret = r
		}
		d.outcomes = append(d.outcomes, o)
	case "test":
		var idx int
		var id string
		if err := values(rec, &idx, &id); err != nil {
			return err
		}
		if idx < 0 || idx > math.MaxInt32 {
			return fmt.Errorf("invocation index %d out of range", idx)
		}
		d.nodeIDs = append(d.nodeIDs, nodeID{int32(idx), id})
	case "fork":
		var idx int
		if err := values(rec, &idx); err != nil {
			return err
		}
		if idx < -1 || idx > math.MaxInt32 {
			return fmt.Errorf("invocation index %d out of range", idx)
		}
		d.forks = append(d.forks, int32(idx))
	case "gap":
		var idx int
		if err := values(rec, &idx); err != nil {
			return err
		}
		if d.gaps == nil {
			d.gaps = map[int]bool{}
		}
		d.gaps[idx] = true
	case "stray":
		var idx int
		var fn string
		if err := values(rec, &idx, &fn); err != nil {
			return err
		}
		if d.strays == nil {
			d.strays = map[int]string{}
		}
		d.strays[idx] = fn
	case "resume", "trunc":
		// resumptions are visible in FLTs; the limit is in result.json.
	default:
		return fmt.Errorf("unknown tag")
	}
	return nil
}

// decodeExc decodes [type, message, line].
func decodeExc(rec []any) (*adi.Exception, error) {
	e := &adi.Exception{}
	if err := values(rec, &e.Type, &e.Message, &e.Line); err != nil {
		return nil, err
	}
	return e, nil
}

// reprField is a value field: a repr string, or an int, bool or None written as itself. Its ints
// are written as strings of strs (see reprOf).
type reprField struct {
	s    *string
	strs *interner
}

func repr(s *string) reprField { return reprField{s: s} }

// repr is a value field whose ints are strings of d's interner: T's return values, one for most
// frames, are often the same big ints (sizes, hashes, coefficients) over and over.
func (d *decoder) repr(s *string) reprField { return reprField{s, d.strs} }

// smallInts holds the text of the ints most values are (counters, sizes, indexes), so that
// reading them allocates nothing.
var smallInts = func() [1024]string {
	var a [1024]string
	for i := range a {
		a[i] = strconv.Itoa(i)
	}
	return a
}()

// reprOf returns the repr Python gives a value field. An int past smallInts is a string of strs
// (a new one when strs is nil).
func reprOf(v any, strs *interner) (string, error) {
	switch v := v.(type) {
	case string:
		switch v {
		case unrenderedMark:
			return Unrendered, nil
		case bareMark:
			return adi.NotRecorded, nil
		}
		return v, nil
	case int64:
		if 0 <= v && v < int64(len(smallInts)) {
			return smallInts[v], nil
		}
		return strs.int(v), nil
	case *big.Int:
		return v.String(), nil
	case bool:
		if v {
			return "True", nil
		}
		return "False", nil
	case nil:
		return "None", nil
	}
	return "", fmt.Errorf("value of type %T", v)
}

// Unrendered is T's text for an argument or returned value of an invocation made while a module
// of the program was being imported (PROTOCOL.md): the probe does not render those, and writes
// unrenderedMark (one byte, which no repr contains) in their place.
const Unrendered = "<not rendered: during an import>"

const unrenderedMark = "\x00"

// bareMark stands for a value of a bare call (PROTOCOL.md, config bare_after), which the reader
// shows as adi.NotRecorded; such a call's fingerprint is adi.BareFP.
const bareMark = "\x01"

// values decodes the record's fields into ptrs, in order: *int, *string, *[]string (reprs) and
// reprField, or *any for the field itself.
func values(rec []any, ptrs ...any) error {
	if len(rec) < len(ptrs) {
		return fmt.Errorf("has %d fields, want %d", len(rec), len(ptrs))
	}
	for i, p := range ptrs {
		v := rec[i]
		ok := true
		switch p := p.(type) {
		case *int:
			var n int64
			n, ok = v.(int64)
			*p = int(n)
		case *string:
			*p, ok = v.(string)
		case reprField:
			s, err := reprOf(v, p.strs)
			if err != nil {
				return fmt.Errorf("field %d: %w", i+1, err)
			}
			*p.s = s
		case *[]string:
			var items []any
			items, ok = v.([]any)
			if ok {
				out := make([]string, len(items))
				for k, it := range items {
					s, err := reprOf(it, nil)
					if err != nil {
						return fmt.Errorf("field %d: %w", i+1, err)
					}
					out[k] = s
				}
				*p = out
			}
		case *any:
			*p = v
		default:
			panic(fmt.Sprintf("values: %T", p))
		}
		if !ok {
			return fmt.Errorf("field %d: unexpected %T", i+1, v)
		}
	}
	return nil
}

// build places the call records by idx into T, numbers each func's invocations (n, in idx order),
// and applies the outcomes. T ends before the first idx no record names (gap=true when a record
// names a later idx: the writer died or a thread was between taking an idx and writing it). An
// invocation written twice (open, then complete, when a flush raced its end in another thread)
// keeps its first call fields and the outcome of either; a "made" record (a generator numbered
// at its creation) is replaced by the call record of its first start, if any.
func (d *decoder) build() (gap bool, err error) {
	t := d.trace
	maxIdx := -1
	for i := range d.calls {
		maxIdx = max(maxIdx, int(d.calls[i].idx))
	}
	// with k records, a T without gaps has idx 0..k-1 at most (fewer when some are duplicates)
	byIdx := make([]int32, min(len(d.calls), maxIdx+1)) // idx -> position in d.calls + 1 (0: none)
	for i := range d.calls {
		c := &d.calls[i]
		if int(c.idx) >= len(byIdx) {
			continue
		}
		if p := byIdx[c.idx]; p > 0 {
			if first := &d.calls[p-1]; first.status == adi.NotStarted {
				*first = *c // the first start of a generator numbered at its creation
				continue
			}
			if first := &d.calls[p-1]; first.status == adi.Unfinished && c.status != adi.Unfinished {
				first.status, first.ret, first.exc = c.status, c.ret, c.exc
			}
			continue
		}
		byIdx[c.idx] = int32(i + 1)
	}
	n := len(byIdx)
	for k, p := range byIdx {
		if p == 0 {
			n = k
			break
		}
	}
	gap = maxIdx >= n
	// the lists read before their code's record are named and given their Code now that it is
	// known (a new slice: a Snapshot's decoder shares the old one's backing with the Tail's)
	var unnamed []argList
	for _, l := range d.args.unnamed {
		if cd := d.code(int(l.cid)); cd != nil {
			nameArgs(l.a, cd.argnames)
			l.a.Code = cd.def
		} else {
			unnamed = append(unnamed, l)
		}
	}
	d.args.unnamed = unnamed
	t.Frames = make([]adi.Frame, n)
	d.codeOf = make([]int32, n)
	counts := make([]int32, len(d.funcSlot)) // invocations of each function so far (code.slot)
	// frames that returned the same repr share one Outcome (most return None, True, a small int)
	returned := map[string]*adi.Outcome{}
	var outcomes slab[adi.Outcome] // cut from chunks, as the Arguments are (slab)
	outcome := func(status adi.Status, ret string, exc *adi.Exception) *adi.Outcome {
		switch status {
		case adi.Returned:
			o := returned[ret]
			if o == nil {
				o = &outcomes.take(1, outcomeChunk)[0]
				o.Return = ret
				returned[ret] = o
			}
			return o
		case adi.Raised:
			o := &outcomes.take(1, outcomeChunk)[0]
			o.Exception = exc
			return o
		}
		return adi.NoOutcome
	}
	for idx := 0; idx < n; idx++ {
		c := &d.calls[byIdx[idx]-1]
		cd := d.code(int(c.cid))
		if cd == nil {
			return false, fmt.Errorf("probe output: invocation %d of unknown code %d", idx, c.cid)
		}
		if int(c.caller) >= idx || c.caller < -1 {
			return false, fmt.Errorf("probe output: invocation %d has caller %d", idx, c.caller)
		}
		counts[cd.slot]++
		f := &t.Frames[idx]
		*f = adi.Frame{
			N: counts[cd.slot], Caller: c.caller, Thread: c.tid,
			Arguments: c.args, CallLine: c.line, Status: c.status,
			Outcome: outcome(c.status, c.ret, c.exc),
		}
		d.codeOf[idx] = c.cid
	}
	d.calls = nil
	for _, o := range d.outcomes {
		f := t.Frame(o.idx)
		if f == nil {
			continue // an invocation past the end of T (see above)
		}
		switch o.tag {
		case "ret":
			f.Status, f.Outcome = adi.Returned, outcome(adi.Returned, o.ret, nil)
		case "exc":
			f.Status, f.Outcome = adi.Raised, outcome(adi.Raised, "", o.exc)
		case "yield":
			t.AddYield(o.idx, o.ret)
		}
	}
	d.outcomes = nil
	for _, x := range d.nodeIDs {
		if int(x.idx) < n {
			t.SetNodeID(int(x.idx), x.id)
		}
	}
	if len(d.forks) > 0 {
		t.Forks, t.ForkedIn = len(d.forks), d.forks[0]
		if int(t.ForkedIn) >= n {
			t.ForkedIn = -1 // (past the end of T)
		}
	}
	return gap, nil
}

type fltDecoder struct {
	d     *decoder
	flts  map[int]*adi.FLT
	stmts map[int]map[int]string // code id → line → statement text
}

func (fd *fltDecoder) record(tag string, rec []any) error {
	switch tag {
	case "stmts":
		var cid int
		var table any
		if err := values(rec, &cid, &table); err != nil {
			return err
		}
		in, ok := table.(map[any]any)
		if !ok {
			return fmt.Errorf("statements are a %T", table)
		}
		m := make(map[int]string, len(in))
		for k, v := range in {
			line, ok1 := k.(int64)
			text, ok2 := v.(string)
			if !ok1 || !ok2 {
				return fmt.Errorf("statement %v: %T", k, v)
			}
			m[int(line)] = text
		}
		fd.stmts[cid] = m
	case "begin":
		var idx int
		if err := values(rec, &idx); err != nil {
			return err
		}
		if idx < 0 {
			return fmt.Errorf("unknown invocation %d", idx)
		}
		if idx >= fd.d.trace.Len() {
			return nil // past the end of T (a partial recording)
		}
		flt := &adi.FLT{Frame: idx, Steps: []adi.Step{}}
		if len(rec) > 1 { // the frame's arguments rendered in full (T may hold summaries)
			var vals []string
			if err := values(rec[1:], &vals); err != nil {
				return err
			}
			names := fd.d.code(int(fd.d.codeOf[idx])).argnames
			flt.Args = make([]adi.Arg, len(vals))
			for i, v := range vals {
				if i < len(names) {
					flt.Args[i].Name = names[i]
				}
				flt.Args[i].Value = v
			}
		}
		fd.flts[idx] = flt
	case "step":
		var idx, line int
		var changes, callees, loop, ev any
		if err := values(rec, &idx, &line, &changes, &callees, &loop, &ev); err != nil {
			return err
		}
		flt := fd.flts[idx]
		if flt == nil {
			if idx >= fd.d.trace.Len() {
				return nil
			}
			return fmt.Errorf("step of invocation %d before its begin", idx)
		}
		st := adi.Step{Line: line, Stmt: fd.stmts[int(fd.d.codeOf[idx])][line]}
		if err := decodeStep(&st, changes, callees, loop, ev); err != nil {
			return err
		}
		flt.Steps = append(flt.Steps, st)
	case "end":
		var idx, dropped int
		var kind string
		if err := values(rec, &idx, &kind, &dropped); err != nil {
			return err
		}
		if kind == "abandoned" { // an eager or test FLT past its time budget: not kept
			delete(fd.flts, idx)
			return nil
		}
		if flt := fd.flts[idx]; flt != nil {
			flt.Dropped, flt.Ended = dropped, true
			clipSteps(flt)
			if len(rec) > 3 { // the value it returned, rendered in full
				var ret string
				if err := values(rec[3:], fd.d.repr(&ret)); err != nil {
					return err
				}
				flt.Return = &ret
			}
		}
	default:
		return fmt.Errorf("unknown tag")
	}
	return nil
}

// clipSteps gives an FLT's steps a backing of their own length: appending step by step leaves up
// to as much capacity again unused, for as long as the FLT is kept.
func clipSteps(flt *adi.FLT) {
	if cap(flt.Steps)-len(flt.Steps) > len(flt.Steps)/8 {
		flt.Steps = append(make([]adi.Step, 0, len(flt.Steps)), flt.Steps...)
	}
}

// decodeStep fills a step's changes, callees, loop positions and events.
func decodeStep(st *adi.Step, changes, callees, loop, ev any) error {
	list := func(v any, what string) ([]any, error) {
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s are a %T", what, v)
		}
		return items, nil
	}
	items, err := list(changes, "changes")
	if err != nil {
		return err
	}
	if len(items) > 0 { // sized once: a step is kept as long as its FLT
		st.Changes = make([]adi.Change, 0, len(items))
	}
	for _, c := range items {
		ch, ok := c.([]any)
		if !ok || (len(ch) != 4 && len(ch) != 5) {
			return fmt.Errorf("a change is not [name, old, new, kind] or [name, old, new, kind, path]")
		}
		var out adi.Change
		var kind string
		if err := values(ch[:1], &out.Name); err != nil {
			return fmt.Errorf("change: %w", err)
		}
		if strings.HasPrefix(out.Name, "@") {
			continue // not a name source can write: a code rewriter's (pytest's @py_assert1)
		}
		if err := values(ch[3:], &kind); err != nil {
			return fmt.Errorf("change: %w", err)
		}
		out.Kind = adi.ChangeKind(kind)
		if len(ch) == 5 {
			if err := values(ch[4:], &out.Path); err != nil {
				return fmt.Errorf("change path: %w", err)
			}
		}
		if kind != string(adi.New) && kind != string(adi.Appended) && kind != string(adi.Same) {
			if err := values(ch[1:], repr(&out.Old)); err != nil {
				return fmt.Errorf("change: %w", err)
			}
		}
		if kind != string(adi.Deleted) {
			if err := values(ch[2:], repr(&out.New)); err != nil {
				return fmt.Errorf("change: %w", err)
			}
		}
		st.Changes = append(st.Changes, out)
	}
	if items, err = list(callees, "callees"); err != nil {
		return err
	}
	if len(items) > 0 {
		st.Callees = make([]int, 0, len(items))
	}
	for i := range items {
		var k int
		if err := values(items[i:], &k); err != nil {
			return fmt.Errorf("callee: %w", err)
		}
		st.Callees = append(st.Callees, k)
	}
	if items, err = list(loop, "loop positions"); err != nil {
		return err
	}
	if len(items) > 0 {
		st.Loop = make([]adi.LoopPos, 0, len(items))
	}
	for _, l := range items {
		pos, ok := l.([]any)
		var p adi.LoopPos
		if !ok {
			return fmt.Errorf("a loop position is a %T", l)
		}
		if err := values(pos, &p.Header, &p.Iteration); err != nil {
			return fmt.Errorf("loop position: %w", err)
		}
		st.Loop = append(st.Loop, p)
	}
	events, ok := ev.(map[any]any)
	if !ok {
		return fmt.Errorf("events are a %T", ev)
	}
	for k, v := range events {
		switch k {
		case "resume":
			st.Resume = v == true
		case "test":
			taken, ok := v.(bool)
			if !ok {
				return fmt.Errorf("test event: want a bool, got %T", v)
			}
			st.Test = &taken
		case "yield":
			var y string
			if err := values([]any{v}, repr(&y)); err != nil {
				return fmt.Errorf("yield event: %w", err)
			}
			st.Yield = &y
		case "raise":
			r, ok := v.([]any)
			e := &adi.Exception{Line: st.Line}
			if !ok || len(r) != 2 || values(r, &e.Type, &e.Message) != nil {
				return fmt.Errorf("raise event: want [type, message]")
			}
			st.Raise = e
		}
	}
	return nil
}
