package live

import (
	"fmt"
	"strings"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
)

// RefusedError is a command refused because it is invalid in the session's state. Nothing was
// sent to debugpy.
type RefusedError struct {
	Command string
	State   State
	// Detail says more about the state (e.g. "exited with status 1"); may be empty.
	Detail string
	Reason string
	Valid  []string
}

// Error is one line: what was refused in which state, why, and what is valid now, e.g.
// "interact is refused in state Done (exited with status 1): the program has ended, so there is
// no frame left; restart runs it again. Valid now: set_breakpoint, clear, restart, status, close".
func (e *RefusedError) Error() string {
	detail := ""
	if e.Detail != "" {
		detail = " (" + e.Detail + ")"
	}
	return fmt.Sprintf("%s is refused in state %s%s: %s. Valid now: %s", cmdMark(e.Command), e.State, detail, e.Reason,
		cmdList(e.Valid))
}

// errNoSession says a live id is unknown; it wraps bridge.ErrNoSession so servers give it the
// same code as an unknown ADI session.
func errNoSession(id, why string) error {
	return adi.Errorf(bridge.ErrNoSession, "no live session %q (%s); start one with %s", id, why, faces.Cmd("live.start"))
}

// errClosed says a session was closed while a command waited for it or ran; it wraps
// bridge.ErrClosed.
func errClosed(id string) error {
	return adi.Errorf(bridge.ErrClosed, "live session %s was closed while the command ran; start a new one with %s", id, faces.Cmd("live.start"))
}

// cmdList joins the markers of live commands ("set_breakpoint, clear, ...") for a message.
func cmdList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = cmdMark(n)
	}
	return strings.Join(out, ", ")
}
