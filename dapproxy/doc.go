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
//   - the adi/<command> requests, answered with bridge.Session.Do (adireq.go).
//   - robustness: bounded reads of the editor (dap's framer with the editor's limits), error
//     responses for requests the adapter can no longer answer, terminated when debugpy dies, and
//     teardown of both sides and every process together.
//
// Goroutines: per listener, an accept loop (Server.Serve). Per connection (link.go): the editor
// loop, which reads the editor and forwards; one read loop per backend, which forwards the
// adapter's messages; short-lived workers for the inspection of a stop and for each adi/
// request. Per Server, background recordings of the FLTs of finished runs. Writes to a peer are
// serialised by that peer's side, which numbers them and correlates the requests written there
// with their responses (dap.Pending, the same correlator dap.Client uses).
package dapproxy
