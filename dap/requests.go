package dap

import (
	"context"

	godap "github.com/google/go-dap"
)

// Typed helpers for the requests adi sends. Each waits for the response (or ctx) and returns its
// decoded body; a refused request returns a *ResponseError.

// Initialize sends initialize as a client called "adi" that wants lines and columns from 1.
func (c *Client) Initialize(ctx context.Context) (godap.Capabilities, error) {
	var caps godap.Capabilities
	err := c.Do(ctx, "initialize", godap.InitializeRequestArguments{
		ClientID: "adi", ClientName: "adi", AdapterID: "debugpy", Locale: "en-us",
		LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path",
		SupportsVariableType: true, SupportsRunInTerminalRequest: false,
	}, &caps)
	return caps, err
}

// SetBreakpoints replaces the line breakpoints of one source file; none clears them.
func (c *Client) SetBreakpoints(ctx context.Context, path string, bps []godap.SourceBreakpoint) ([]godap.Breakpoint, error) {
	var body godap.SetBreakpointsResponseBody
	if bps == nil {
		bps = []godap.SourceBreakpoint{}
	}
	// go-dap omits an empty breakpoints list, and debugpy 1.6.3's pydevd disconnects on a
	// setBreakpoints without one: always send the list.
	args := struct {
		Source      godap.Source             `json:"source"`
		Breakpoints []godap.SourceBreakpoint `json:"breakpoints"`
	}{godap.Source{Path: path}, bps}
	err := c.Do(ctx, "setBreakpoints", args, &body)
	return body.Breakpoints, err
}

// SetFunctionBreakpoints replaces the function breakpoints.
func (c *Client) SetFunctionBreakpoints(ctx context.Context, bps []godap.FunctionBreakpoint) ([]godap.Breakpoint, error) {
	var body godap.SetFunctionBreakpointsResponseBody
	err := c.Do(ctx, "setFunctionBreakpoints", godap.SetFunctionBreakpointsArguments{Breakpoints: bps}, &body)
	return body.Breakpoints, err
}

// SetExceptionBreakpoints sets the exception filters ("raised", "uncaught", "userUnhandled").
func (c *Client) SetExceptionBreakpoints(ctx context.Context, filters []string) error {
	if filters == nil {
		filters = []string{}
	}
	return c.Do(ctx, "setExceptionBreakpoints", godap.SetExceptionBreakpointsArguments{Filters: filters}, nil)
}

// ConfigurationDone ends the configuration phase; debugpy then starts the program.
func (c *Client) ConfigurationDone(ctx context.Context) error {
	return c.Do(ctx, "configurationDone", nil, nil)
}

// Threads lists the debuggee's threads.
func (c *Client) Threads(ctx context.Context) ([]godap.Thread, error) {
	var body godap.ThreadsResponseBody
	err := c.Do(ctx, "threads", nil, &body)
	return body.Threads, err
}

// StackTrace returns the frames of a stopped thread, innermost first.
func (c *Client) StackTrace(ctx context.Context, threadID, levels int) ([]godap.StackFrame, error) {
	var body godap.StackTraceResponseBody
	err := c.Do(ctx, "stackTrace", godap.StackTraceArguments{ThreadId: threadID, Levels: levels}, &body)
	return body.StackFrames, err
}

// Scopes returns the scopes of a frame.
func (c *Client) Scopes(ctx context.Context, frameID int) ([]godap.Scope, error) {
	var body godap.ScopesResponseBody
	err := c.Do(ctx, "scopes", godap.ScopesArguments{FrameId: frameID}, &body)
	return body.Scopes, err
}

// Variables returns the children of a variables reference.
func (c *Client) Variables(ctx context.Context, ref int) ([]godap.Variable, error) {
	var body godap.VariablesResponseBody
	err := c.Do(ctx, "variables", godap.VariablesArguments{VariablesReference: ref}, &body)
	return body.Variables, err
}

// Evaluate evaluates expression in a frame; context is "repl", "watch", "hover" or "clipboard".
func (c *Client) Evaluate(ctx context.Context, expression string, frameID int, context_ string) (godap.EvaluateResponseBody, error) {
	var body godap.EvaluateResponseBody
	err := c.Do(ctx, "evaluate", godap.EvaluateArguments{Expression: expression, FrameId: frameID, Context: context_}, &body)
	return body, err
}

// Continue resumes a thread (all threads unless the adapter says otherwise).
func (c *Client) Continue(ctx context.Context, threadID int) error {
	return c.Do(ctx, "continue", godap.ContinueArguments{ThreadId: threadID}, nil)
}

// Next steps over one line.
func (c *Client) Next(ctx context.Context, threadID int) error {
	return c.Do(ctx, "next", godap.NextArguments{ThreadId: threadID}, nil)
}

// StepIn steps into the call on the current line.
func (c *Client) StepIn(ctx context.Context, threadID int) error {
	return c.Do(ctx, "stepIn", godap.StepInArguments{ThreadId: threadID}, nil)
}

// Pause suspends a running thread.
func (c *Client) Pause(ctx context.Context, threadID int) error {
	return c.Do(ctx, "pause", godap.PauseArguments{ThreadId: threadID}, nil)
}

// Disconnect ends the session; terminate asks the adapter to end the debuggee too.
func (c *Client) Disconnect(ctx context.Context, terminate bool) error {
	return c.Do(ctx, "disconnect", godap.DisconnectArguments{TerminateDebuggee: terminate}, nil)
}

// Launch runs debugpy's launch sequence on a connection: it sends launch, waits for the
// initialized event, calls configure (set breakpoints there; may be nil), sends
// configurationDone, and waits for the launch response, which debugpy only sends after
// configurationDone. A program adi starts itself is a Run (run.go), which stops before
// configurationDone; Launch is for a connection adi does not own, such as an editor's side of
// the DAP proxy.
func (c *Client) Launch(ctx context.Context, args any, configure func(context.Context) error) error {
	return c.startSession(ctx, "launch", args, configure)
}

// Attach is Launch for an attach request.
func (c *Client) Attach(ctx context.Context, args any, configure func(context.Context) error) error {
	return c.startSession(ctx, "attach", args, configure)
}

func (c *Client) startSession(ctx context.Context, command string, args any, configure func(context.Context) error) error {
	call, err := c.toConfiguration(ctx, command, args, configure)
	if err != nil {
		return err
	}
	if err := c.ConfigurationDone(ctx); err != nil {
		return err
	}
	_, err = c.Wait(ctx, call)
	return err
}

// toConfiguration sends command (launch or attach), waits for the initialized event and calls
// configure (may be nil). It returns the request's call, which debugpy answers only after
// configurationDone. Run and Launch both start a session with it.
func (c *Client) toConfiguration(ctx context.Context, command string, args any, configure func(context.Context) error) (*Call, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sub := c.Subscribe("initialized")
	defer sub.Close()
	call, err := c.Start(command, args)
	if err != nil {
		return nil, err
	}
	// A refused launch comes back before any initialized event: watch both.
	initialized := make(chan error, 1)
	go func() {
		_, err := sub.WaitFor(ctx, "initialized")
		initialized <- err
	}()
	select {
	case err := <-initialized:
		if err != nil {
			return nil, err
		}
	case <-call.Done():
		if _, err := call.Result(); err != nil {
			return nil, err
		}
		if err := <-initialized; err != nil {
			return nil, err
		}
	}
	if configure != nil {
		if err := configure(ctx); err != nil {
			return nil, err
		}
	}
	return call, nil
}
