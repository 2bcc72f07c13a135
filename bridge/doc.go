// Package bridge joins package adi (the model) to real Python runs: a Session owns one target
// command, its recording (T), its FLT cache and its runs; each run executes the program under the
// probe, alone (recording) or under debugpy (execute, live stops).
//
// Files, each the one home of what it names:
//   - session.go: Session, its events and its snapshot for listings (Info); record, the run of
//     the program under the probe that a session reports progress of; notes for an answer.
//   - lifecycle.go: opening a session (NewSession, newSessionDir), reopening one from disk
//     (LoadSession) and closing it (Close).
//   - program.go: Options and their defaults, Program and NewProgram, and the launch arguments of
//     a debug run.
//   - commands.go: Do, one ADI command on a session.
//   - fltcache.go: the FLT cache: recording a missing FLT (with the next breakpoint hits, or for a
//     set of frames) and adopting a re-run's FLTs; fltstore.go: where the cache keeps them, packed
//     (internal/fltpack), each unpacked when a command shows it.
//   - values.go: the values of frames the first run recorded bare (past its first calls, deep
//     ones): recording them with a light re-run when an answer would show them, and keeping them.
//   - replay.go: the replay check: what a re-run's probe checks (expect) and how a re-run is
//     judged against the recording.
//   - conditions.go: evaluating breakpoint conditions in one re-run.
//   - persist.go: what a session keeps on disk: session.json, state.json, a run's run.json, output
//     and kept FLTs, reading runs back, atomic writes.
//   - focus.go: the FLTs the first run records for the frames the first command names.
//   - execute.go: exec, a statement run inside a past frame.
//   - standby.go: the debug run kept ready for the next exec --then-continue; ready.go: the probe
//     process kept ready for the next run under the probe alone (a re-run, an exec).
//   - external.go: External, a session whose first run an editor launches (adi dap);
//     editorwatch.go: watches added to that run while it runs (its probe's control server).
//   - manager.go: Manager, the sessions of one adi process (recorded and live: the one registry).
//   - live.go: a live session's recording part (what its live part's watches catch in the
//     running program) and the Live interface its live part (package live) implements.
//   - runner.go: Run, RunRequest and the runner, which executes a run under the probe alone;
//     ending.go: answering a run once its probe wrote result.json, and following its process to
//     its end (the teardown's output and exit status).
//   - debugrun.go: a run under debugpy; debugwatch.go: the watch on its debuggee.
//   - leftovers.go: ending what a run's process left behind; runnice.go: the priority of runs.
//   - memory.go: returning freed memory to the OS when idle; tests.go: test targets.
//
// Goroutines: a run under the probe alone has one goroutine waiting for its process and one
// copying each of its output pipes (runner.go, ending.go), which end with the process; a run
// answered before its process ended has one more following it (runner.finish), which a Session's
// Close waits for (up to stopGrace, then it ends the process). Under debugpy a run has a
// dap.Run instead (the dap.Client's two loops, the adapter's waiter, the event pump and its stop
// hand-over) plus the debuggee's watcher (debugwatch.go) and the watch on the adapter's context
// (adapterContext, debugrun.go); all end with the run. A Session serialises its commands with a
// mutex; its own goroutines are a standby's (standby.go): one starts it and ends once it is
// ready, and one releases a standby an exec gave up waiting for; a run kept ready (ready.go) has
// one that starts it and ends once it is ready. A Manager runs the idle reaper (manager.go) when
// IdleTimeout is set. Timers (time.AfterFunc) start a run kept ready once its session is idle, end
// a standby left unused or slow to start and a run kept ready left unused, and return memory to
// the OS (memory.go).
package bridge
