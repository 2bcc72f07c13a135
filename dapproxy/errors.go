package dapproxy

import (
	godap "github.com/google/go-dap"

	"github.com/adi-bridge/adi/internal/errkind"
)

// The proxy's own messages to the editor, built from go-dap's types. The id of an error response
// (body.error.id) is its kind's DAP id in errkind's table; debugpy's own errors pass through
// unchanged. Messages are printed by the editor, so they begin with "adi: " (errkind.Prefixed).

// errorResponse is a failed response of kind to the request requestSeq.
func errorResponse(requestSeq int, command string, kind *errkind.Kind, text string) *godap.ErrorResponse {
	text = errkind.Prefixed(text)
	return &godap.ErrorResponse{
		Response: godap.Response{ProtocolMessage: godap.ProtocolMessage{Type: "response"},
			RequestSeq: requestSeq, Command: command, Success: false, Message: text},
		Body: godap.ErrorResponseBody{Error: &godap.ErrorMessage{Id: kind.DAP(), Format: text, ShowUser: true}},
	}
}

// bodyResponse is a successful DAP response with a body of any shape (go-dap's Response has
// none).
type bodyResponse struct {
	godap.Response
	Body any `json:"body,omitempty"`
}

// response is a successful response to the request requestSeq.
func response(requestSeq int, command string, body any) *bodyResponse {
	return &bodyResponse{Response: godap.Response{ProtocolMessage: godap.ProtocolMessage{Type: "response"},
		RequestSeq: requestSeq, Command: command, Success: true}, Body: body}
}

// eventHeader is the header of an event the proxy makes.
func eventHeader(name string) godap.Event {
	return godap.Event{ProtocolMessage: godap.ProtocolMessage{Type: "event"}, Event: name}
}

// consoleOutput is an output event that prints text in the editor's debug console.
func consoleOutput(text string) *godap.OutputEvent {
	return &godap.OutputEvent{Event: eventHeader("output"), Body: godap.OutputEventBody{Category: "console", Output: text}}
}

// exitedEvent says the debuggee exited with code.
func exitedEvent(code int) *godap.ExitedEvent {
	return &godap.ExitedEvent{Event: eventHeader("exited"), Body: godap.ExitedEventBody{ExitCode: code}}
}

// terminatedEvent says the debug session is over.
func terminatedEvent() *godap.TerminatedEvent {
	return &godap.TerminatedEvent{Event: eventHeader("terminated")}
}
