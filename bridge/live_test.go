package bridge

import (
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/assert"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/probe"
)

// TestTakeRecordingWaitsForFLTEnd: a read of a running program's recording can see a frame's end
// in T before its FLT's end record (the probe writes a batch's calls first); that FLT lacks its
// last steps, so it is not taken until a read has its end. A running frame's FLT so far is taken.
func TestTakeRecordingWaitsForFLTEnd(t *testing.T) {
	code := &adi.Code{Func: "m:f", File: "/p/m.py", Line: 1}
	trace := func(status adi.Status) *adi.Trace {
		tr := &adi.Trace{Frames: []adi.Frame{{Code: code, N: 1, Caller: -1, Status: status, Outcome: adi.Returning("1")}}, Live: true}
		tr.Index()
		return tr
	}
	s := &Session{prog: &Program{}, log: hclog.NewNullLogger(), emit: func(Event) {}, flts: map[int]*adi.FLT{},
		hits: adi.Hits{}, condErr: map[adi.Breakpoint]string{}, trace: &adi.Trace{}}
	s.state = adi.NewState(s.trace)
	take := func(status adi.Status, flt *adi.FLT) {
		s.takeRecording(&probe.Recording{Trace: trace(status), FLTs: map[int]*adi.FLT{0: flt}}, &Run{}, true)
	}
	running := &adi.FLT{Frame: 0, Steps: []adi.Step{{Line: 2}}}
	take(adi.Unfinished, running)
	assert.Same(t, running, s.flts[0], "a running frame's FLT so far")

	unended := &adi.FLT{Frame: 0, Steps: []adi.Step{{Line: 2}, {Line: 3}}}
	take(adi.Returned, unended)
	assert.Same(t, running, s.flts[0], "the frame returned, its FLT's end not read yet")

	ended := &adi.FLT{Frame: 0, Steps: []adi.Step{{Line: 2}, {Line: 3}, {Line: 4}}, Ended: true}
	take(adi.Returned, ended)
	assert.Same(t, ended, s.flts[0])
}
