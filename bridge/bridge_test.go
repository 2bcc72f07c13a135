package bridge

import (
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/probe"
)

func loopTrace() (*adi.Trace, *adi.FLT) {
	t := &adi.Trace{Frames: []adi.Frame{{N: 1, Arguments: &adi.Arguments{Code: &adi.Code{Func: "t:f"}}, Caller: -1}}}
	t.Index()
	flt := &adi.FLT{Frame: 0, Steps: []adi.Step{{Line: 2}, {Line: 3}, {Line: 4}, {Line: 3}, {Line: 4}, {Line: 3}, {Line: 5}}}
	return t, flt
}

func TestExecPoint(t *testing.T) {
	tr, flt := loopTrace()
	for _, c := range []struct {
		line, visit         int
		wantLine, wantVisit int
		err                 string
	}{
		{0, 0, 5, 1, ""}, // default: the last line, its last visit
		{3, 1, 3, 1, ""},
		{3, 3, 3, 3, ""},
		{4, 0, 4, 1, ""},
		{3, 4, 0, 0, "t:f#1 reaches line 3 only 3 time(s); use -k from 1 to 3"},
		{9, 1, 0, 0, "t:f#1 never reaches line 9 (it runs lines 2, 3, 4, 5); pick one of those with -l"},
	} {
		line, visit, err := execPoint(tr, flt, c.line, c.visit)
		if c.err != "" {
			require.Error(t, err)
			assert.Equal(t, c.err, err.Error())
			assert.ErrorIs(t, err, adi.ErrNotFound)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, [2]int{c.wantLine, c.wantVisit}, [2]int{line, visit}, "line %d visit %d", c.line, c.visit)
	}
	_, _, err := execPoint(tr, &adi.FLT{Frame: 0}, 0, 0)
	assert.EqualError(t, err, "t:f#1 executed no statement that adi recorded; nothing to stop at")
}

func TestReplayedUpTo(t *testing.T) {
	mk := func(fps ...string) *adi.Trace {
		tr := &adi.Trace{}
		for i, fp := range fps {
			tr.Frames = append(tr.Frames, adi.Frame{N: int32(i + 1), Caller: int32(i - 1), Arguments: &adi.Arguments{Code: &adi.Code{Func: "t:f"}, ArgsFP: fp}})
		}
		tr.Index()
		return tr
	}
	s := &Session{trace: mk("a", "b", "c")}
	assert.Equal(t, 3, s.replayedUpTo(mk("a", "b", "c"), false, projection{}))
	assert.Equal(t, 1, s.replayedUpTo(mk("a", "x", "c"), false, projection{}))
	assert.Equal(t, 2, s.replayedUpTo(mk("a", "b"), false, projection{}))
	assert.Equal(t, 3, s.replayedUpTo(mk("a", "b", "c", "d"), false, projection{}))
}

// TestReplayOnly: a re-run that recorded some functions only (RunRequest.Only) is compared with
// the recording's frames of those functions and of module bodies, each with its nearest such
// caller; it records what the replay check of a frame compares (onlyFor); a frame called through
// a function it did not record is not the same invocation.
func TestReplayOnly(t *testing.T) {
	type fr struct {
		fn     string
		caller int32
	}
	mk := func(frames ...fr) *adi.Trace {
		tr := &adi.Trace{}
		codes, n := map[string]*adi.Code{}, map[string]int32{}
		for _, f := range frames {
			if codes[f.fn] == nil {
				codes[f.fn] = &adi.Code{Func: f.fn}
			}
			n[f.fn]++
			tr.Frames = append(tr.Frames, adi.Frame{N: n[f.fn], Caller: f.caller, Arguments: &adi.Arguments{Code: codes[f.fn], ArgsFP: "="}})
		}
		tr.Index()
		return tr
	}
	// m:<module> calls a, which calls h, which calls b; then a again, which calls b itself
	s := &Session{trace: mk(fr{"m:<module>", -1}, fr{"m:a", 0}, fr{"m:h", 1}, fr{"m:b", 2}, fr{"m:a", 0}, fr{"m:b", 4}, fr{"m:c", 5})}
	assert.Equal(t, []string{"m:<module>", "m:a", "m:b", "m:c"}, s.onlyFor([]int{5}), "b#2, its callers, its callees and its caller's")
	assert.Equal(t, []string{"m:<module>", "m:a", "m:b", "m:h"}, s.onlyFor([]int{3}))
	only := []string{"m:a", "m:b"}
	p := s.project(only)
	assert.Equal(t, []int32{0, 1, 3, 4, 5}, p.at)
	assert.Equal(t, []int32{-1, 0, 1, 0, 3}, p.caller)
	rt := mk(fr{"m:<module>", -1}, fr{"m:a", 0}, fr{"m:b", 1}, fr{"m:a", 0}, fr{"m:b", 3})
	assert.Equal(t, 5, s.replayedUpTo(rt, true, p))
	other := mk(fr{"m:<module>", -1}, fr{"m:a", 0}, fr{"m:b", 0})
	k := s.replayedUpTo(other, true, p)
	assert.Equal(t, 2, k)
	assert.Equal(t, "m:b#1 has another caller in the re-run", s.firstDifference(other, k, p))
	assert.Equal(t, "it made 3 calls of the functions it recorded where the recording has 5", s.firstDifference(other, 3, p))
	run := &Run{Rec: &probe.Recording{Trace: rt}, Only: only}
	assert.Equal(t, "", s.sameInvocation(run, 4, 5))
	run.Rec.Gaps = map[int]bool{4: true}
	assert.Equal(t, "in the re-run m:b#2 was not called by m:a#2 directly, as in the recording", s.sameInvocation(run, 4, 5))
}

func TestDedupEnv(t *testing.T) {
	got := dedupEnv([]string{"A=1", "B=2", "A=3", "C=", "B=4"})
	assert.Equal(t, []string{"A=3", "B=4", "C="}, got)
	assert.True(t, hasEnv(got, "C"))
	assert.False(t, hasEnv(got, "D"))
}

func TestPlainPython(t *testing.T) {
	assert.True(t, plainPython("python"))
	assert.True(t, plainPython("python3"))
	assert.False(t, plainPython("python3.12"))
	assert.False(t, plainPython("/venv/bin/python"))
}

// TestTakeValues: a re-run's values fill the frames the recording holds bare that it rendered (the
// same fid and callers, a caller line), and nothing else; a bare frame's missing fingerprint is no
// difference for the replay check; readers in ReadTrace see whole frames meanwhile.
func TestTakeValues(t *testing.T) {
	mk := func(bare bool) *adi.Trace {
		code := &adi.Code{Func: "t:f"}
		tr := &adi.Trace{}
		for i := 0; i < 3; i++ {
			a := &adi.Arguments{Code: code, Args: []adi.Arg{{Name: "x", Value: fmt.Sprint(i)}}, ArgsFP: fmt.Sprintf("=%d", i)}
			f := adi.Frame{N: int32(i + 1), Caller: int32(i - 1), Arguments: a, Outcome: adi.Returning(fmt.Sprintf("[%d]", i)),
				CallLine: int32(10 * i), Status: adi.Returned}
			if bare && i > 0 {
				f.Arguments = &adi.Arguments{Code: code, Args: []adi.Arg{{Name: "x", Value: adi.NotRecorded}}, ArgsFP: adi.BareFP}
				f.Outcome, f.CallLine = adi.Returning(adi.NotRecorded), 0
			}
			tr.Frames = append(tr.Frames, f)
		}
		tr.Index()
		return tr
	}
	s := &Session{trace: mk(true)}
	rt := mk(false)
	rt.Frames[2].CallLine = 0 // not rendered by the re-run: not taken
	assert.Equal(t, 3, s.replayedUpTo(rt, true, projection{}))
	assert.Equal(t, "", s.sameFrame(rt, 1, 1))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 100; i++ {
			s.ReadTrace(func(t *adi.Trace) { _ = t.FrameJSON(1) })
		}
	}()
	got := s.takeValues(&Run{Rec: &probe.Recording{Trace: rt}}, []int{1, 2})
	<-done
	require.Len(t, got, 1)
	f := s.trace.Frames[1]
	assert.Equal(t, []adi.Arg{{Name: "x", Value: "1"}}, f.Args)
	assert.Equal(t, adi.FilledFP, f.ArgsFP)
	assert.Equal(t, "[1]", f.Return)
	assert.Equal(t, int32(10), f.CallLine)
	assert.True(t, s.trace.Frames[2].Bare())
	assert.Equal(t, []int{2}, s.bareOf([]int{0, 1, 2, 2}))
	assert.Equal(t, probe.Expect{Func: "t:f", Index: 2, Chain: []string{"t:f#1"}, ArgsFP: adi.BareFP}, s.expect(1), "a filled frame has no fingerprint either")
}

// TestKeptReadyBounded: a daemon keeps runs ready for its maxReady sessions that ran last; one
// more ends the run kept longest.
func TestKeptReadyBounded(t *testing.T) {
	var rs []*runner
	for range maxReady + 2 {
		rs = append(rs, &runner{})
	}
	for i, rn := range rs[:maxReady] {
		assert.Nil(t, keeping(rn), "runner %d", i)
	}
	assert.Nil(t, keeping(rs[1]), "one that keeps one already moves to the end")
	assert.Same(t, rs[0], keeping(rs[maxReady]))
	assert.Same(t, rs[2], keeping(rs[maxReady+1]))
	notKeeping(rs[3])
	assert.Nil(t, keeping(rs[0]))
	for _, rn := range rs {
		notKeeping(rn)
	}
	kept.mu.Lock()
	defer kept.mu.Unlock()
	assert.Empty(t, kept.runners)
}

// TestExitedNow: exitedNow tells a running child from one that exited, without reaping it (the
// process kept ready is not watched by a goroutine: ready.go).
func TestExitedNow(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	require.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	assert.False(t, exitedNow(pid))
	require.NoError(t, cmd.Process.Kill())
	deadline := time.Now().Add(10 * time.Second)
	for !exitedNow(pid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	assert.True(t, exitedNow(pid))
	assert.True(t, exitedNow(pid), "not reaped: it still tells")
	require.Error(t, cmd.Wait()) // killed; reaped here
	assert.True(t, exitedNow(pid), "reaped: no such child")
}
