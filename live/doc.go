// Package live owns adi's live mode: a stateful debugger session on a real Python process under
// debugpy, made safe for a language model (the InspectWare idea of InspectCoder). A Session
// launches the target (parsed by bridge.NewProgram) through a small launcher (python/, embedded
// and installed into the cache like the probe) that gives it the command's "< file" or an empty
// standard input, tracks its state from DAP events (Start, Runtime, RuntimeError, PostMortem,
// Running, Done), refuses every command that is invalid in the current state before anything
// reaches debugpy, and answers every command with a short summary: the state, the stack, the
// breakpoints with their hits, and the target's output since the previous answer.
//
// A live session is a bridge.Session with a live part (this package's Session, a bridge.Live):
// one registry, the bridge.Manager, names, expires and closes every session (sessions.go:
// Launch, Of, Close, List). Its recording part is what its watches catch (watch.go): every run
// starts the program with the probe's watch recorder in place but idle; `watch FUNC` makes it
// record each following invocation of FUNC and what it calls, as the program runs, and every ADI
// command of the bridge answers about them. A session may instead attach to a program its owner
// started under debugpy's server (Options.Attach, attach.go): it starts in Running, cannot
// restart, and its close detaches, leaving the program running. Servers call Session.Do and
// those functions and nothing else, so every face (WebSocket, CLI, MCP) shares one
// implementation.
//
// Goroutines: per run of a session, a dap.Run's: its event pump (output into the session's
// buffers, through the marker scanners), the pump's stop hand-over, one waiting for the
// initialized event while the run starts, the dap.Client's read and write loops and the
// dap.Adapter's waiter; once the program finished, one waits (at most teardownLimit) for its
// interpreter to end before ending the run's processes; and follow, which re-reads the watches'
// recording every 200 ms while a watch is on (watch.go). All end with the run. A Session starts no other goroutine: its commands
// run on the caller's goroutine, one at a time (a mutex), and every wait in them is bounded (the
// watchdog, request timeouts), so no sequence of commands can wedge it.
package live
