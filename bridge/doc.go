// Package bridge joins package adi (the model) to real Python runs: a Session owns one target
// command, its recording (T), its FLT cache and its runs; each run executes the program under the
// probe, alone (recording) or under debugpy (execute, live stops).
//
// Goroutines: a run has one goroutine waiting for its process; under debugpy it is a dap.Run
// instead (the dap.Client's two loops, the adapter's waiter, the event pump and its stop
// hand-over) plus the debuggee's watcher (debugwatch.go); all end with the run. A Session serialises its
// commands with a mutex; it starts no goroutine of its own.
package bridge
