package adi

// FLTView is an FLT as shown to agents and programs: the frame's summary and every step with the
// calls it made resolved to fids and outcomes.
type FLTView struct {
	Frame     FrameSummary `json:"frame"`
	Steps     []StepView   `json:"steps"`
	Dropped   int          `json:"dropped,omitempty"` // steps not recorded (step limit)
	Recording Coverage     `json:"recording"`
	// Page is set when the answer carries part of τ (StepsQuery): which part, and what a
	// program needs to page through the rest.
	Page *StepsPage `json:"page,omitempty"`
	// Mark is the step a breakpoint's line condition held at (break --if-eval-lineno), when the
	// FLT is shown for its hit.
	Mark *StepMark `json:"mark,omitempty"`
}

// StepMark points at one step of τ: the Visit-th step at Line (the k-th visit, as exec's -k
// counts), Step its index in τ.
type StepMark struct {
	Step  int `json:"step"`
	Line  int `json:"line"`
	Visit int `json:"visit"`
}

// MarkVisit marks the visit-th step at line, the moment a breakpoint's line condition held; it
// reports whether τ has that step.
func (v *FLTView) MarkVisit(line, visit int) bool {
	seen := 0
	for i, s := range v.Steps {
		if s.Line != line {
			continue
		}
		if seen++; seen == visit {
			v.Mark = &StepMark{Step: i, Line: line, Visit: visit}
			return true
		}
	}
	return false
}

// StepView is one step of τ with its callees resolved.
type StepView struct {
	Line    int        `json:"line"`
	Stmt    string     `json:"stmt"`
	Changes []Change   `json:"changes,omitempty"`
	Calls   []CallView `json:"calls,omitempty"`
	Loop    []LoopPos  `json:"loop,omitempty"`
	Resume  bool       `json:"resume,omitempty"`
	Yield   *string    `json:"yield,omitempty"`
	Raise   *Exception `json:"raise,omitempty"`
	Test    *bool      `json:"test,omitempty"` // the outcome of the line's test (Step.Test)
}

// CallView is a call a statement made: the callee's fid and outcome.
type CallView struct {
	FID string `json:"fid"` // "" when the callee is not in T
	// ref is how the text names FID (Trace.Ref).
	ref       string
	Frame     int        `json:"frame"`
	Status    Status     `json:"status,omitempty"`
	Return    string     `json:"return,omitempty"`
	Exception *Exception `json:"exception,omitempty"`
	// Kind, Yields and LastYield say, for a generator, what it yielded (FrameSummary's fields).
	Kind      string `json:"kind,omitempty"`
	Yields    int    `json:"yields,omitempty"`
	LastYield string `json:"last_yield,omitempty"`
}

// name is how the text names the callee: its short reference, or its fid.
func (c CallView) name() string { return refOr(c.ref, c.FID) }

// FLTView resolves flt, an FLT of a frame of t, for rendering.
func (t *Trace) FLTView(flt *FLT) *FLTView {
	v := &FLTView{Frame: t.FrameSummary(flt.Frame), Steps: make([]StepView, len(flt.Steps)),
		Dropped: flt.Dropped, Recording: t.Coverage()}
	if flt.Args != nil {
		v.Frame.Args = flt.Args
	}
	if flt.Return != nil && v.Frame.Status == Returned {
		v.Frame.Return = *flt.Return
	}
	for i, s := range flt.Steps {
		v.Steps[i] = StepView{Line: s.Line, Stmt: s.Stmt, Changes: s.Changes, Loop: s.Loop,
			Resume: s.Resume, Yield: s.Yield, Raise: s.Raise, Test: s.Test}
		for _, c := range s.Callees {
			v.Steps[i].Calls = append(v.Steps[i].Calls, t.callView(c))
		}
	}
	return v
}

func (t *Trace) callView(j int) CallView {
	f := t.Frame(j)
	if f == nil {
		return CallView{Frame: j}
	}
	return CallView{FID: f.FID().String(), ref: t.Ref(f.FID()), Frame: j, Status: f.Status, Return: f.Return, Exception: f.Exception,
		Kind: f.Code.Kind.String(), Yields: t.Yields(j), LastYield: t.LastYield(j)}
}

// funcName is the function part of the callee's fid.
func (c CallView) funcName() string {
	fn, _, _ := cutLast(c.FID, '#')
	return fn
}
