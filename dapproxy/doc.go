// Package dapproxy is `adi dap`: a debug adapter that editors talk to (over stdio, or over TCP as
// VS Code's debugServer), which forwards every DAP message to a real debugpy adapter while adi
// records the run.
//
// It owns:
//   - the forwarding: one debugpy adapter per editor connection (dap.StartAdapter), every message
//     passed through as the bytes the peer sent, except the documented rewrites: seq renumbered
//     per direction (side.go), request_seq and cancel's requestId mapped back, a launch rewritten
//     to run the probe (launch.go), debugpyAttach's connect pointed at the proxy and the child's
//     session routed to the real adapter (route.go). Rewrites splice the bytes of one member
//     (rawjson.go); nothing is re-encoded.
//   - the recording: a launch becomes a bridge session (bridge.External) that every face sees
//     while it runs; at each stop the proxy injects requests that ask the probe which invocation
//     the thread is in (record.go), and when the run ends the FLTs of those frames are recorded
//     with one re-run.
//   - the adi/<command> requests, answered with bridge.Session.Do (adireq.go), and adi/watch,
//     adi/unwatch, adi/caught, answered by the running program's probe (watch.go).
//   - robustness: bounded reads of the editor (dap's framer with the editor's limits), error
//     responses for requests the adapter can no longer answer, terminated when debugpy dies, and
//     teardown of both sides and every process together.
//
// Files, each the one home of what it names:
//   - server.go: Server and Config, the accept loop, the registry of connections and of child
//     routes, background work.
//   - link.go: link, one editor connection: its state, its timings, the spawning of its workers
//     and the recovery from a panic in one of its goroutines, notices in the debug console.
//   - editor.go: the editor loop (serve) and what it does with each editor message: malformed
//     messages, requests (the gate for resuming ones, disconnect, cancel's requestId), responses
//     to reverse requests, forwarding to the adapter or answering for it.
//   - adapter.go: the adapter loop (readBackend) and what it does with each adapter message and
//     event; the adapter's end (backendEnded) and its unexpected death (adapterDied).
//   - teardown.go: teardown, the end of a link and of every process of its run.
//   - launch.go: the launch handler (link.launch, needDebugpy) and the plan and rewrite of a
//     launch so the probe runs the program.
//   - route.go: attach requests and child sessions (debugpyAttach), and moving a link to another
//     adapter.
//   - record.go: the recorder of a launch (inspection of stops, the run's events, finish) and the
//     link's hooks into it (responded, finishAsync, ownRecording).
//   - adireq.go: adi/<command> requests: the answer on a link (answerADI) and the method table
//     they call.
//   - watch.go: adi/watch, adi/unwatch, adi/caught: the running program's watches
//     (bridge.External's control server client).
//   - backend.go: a backend, the adapter a link is forwarded to (started, or dialled).
//   - side.go: one peer of a link: sequence numbers and pending requests.
//   - gate.go: the gate that holds resuming requests (and adi/ requests) at a stop.
//   - rawjson.go: splicing one member of a message's bytes.
//   - errors.go: the proxy's own responses and events.
//
// Goroutines: per listener, an accept loop (Server.Serve). Per connection (a link): the editor
// loop (editor.go), which reads the editor and forwards; one read loop per backend (adapter.go),
// which forwards the adapter's messages; short-lived workers for the inspection of a stop
// (record.go) and for each adi/ request (adireq.go). Per Server, background recordings of the
// FLTs of finished runs. Writes to a peer are serialised by that peer's side, which numbers them
// and correlates the requests written there with their responses (dap.Pending, the same
// correlator dap.Client uses).
package dapproxy
