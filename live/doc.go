// Package live owns adi's live mode: a stateful debugger session on a real Python process under
// debugpy, made safe for a language model (the InspectWare idea of InspectCoder). A Session
// launches the target (parsed by bridge.NewProgram) through a small launcher (python/, embedded
// and installed into the cache like the probe) that gives it the command's "< file" or an empty
// standard input, tracks its state from DAP events (Start, Runtime, RuntimeError, PostMortem,
// Done), refuses every command that is invalid in the current state before anything reaches
// debugpy, and answers every command with a short summary: the state, the stack, the breakpoints
// with their hits, and the target's output since the previous answer. A Registry names sessions,
// expires idle ones and ends every process of a session it closes. A session may instead attach
// to a program its owner started under debugpy's server (Options.Attach, attach.go): it starts in
// Running, cannot restart, and its close detaches, leaving the program running. Servers call
// Session.Do (and Registry) and nothing else, so every face (WebSocket, CLI, MCP) shares one
// implementation.
//
// Goroutines: per run of a session, a dap.Run's: its event pump (output into the session's
// buffers, through the marker scanners), the pump's stop hand-over, one waiting for the
// initialized event while the run starts, the dap.Client's read and write loops and the
// dap.Adapter's waiter; once the program finished, one waits (at most teardownLimit) for its
// interpreter to end before ending the run's processes. All end with the run. A Session starts no other goroutine: its commands
// run on the caller's goroutine, one at a time (a mutex), and every wait in them is bounded (the
// watchdog, request timeouts), so no sequence of commands can wedge it. A Registry with an idle
// timeout runs one reaper goroutine until Shutdown.
package live
