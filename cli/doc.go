// Package cli is adi's command line for agents that only have bash, compatible with the peer's
// (`adi break "python t.py" "t.py:func#2"`): each command is one process that asks a background
// server (a daemon `adi serve` on loopback, started by the first command, detached in its own
// session) to run it on a session, prints the answer's text, and exits 0 (answered), 1 (the
// target failed but the answer is useful, or the command failed) or 2 (usage). State lives in the
// daemon's sessions under the state directory ($ADI_STATE_DIR), so only the first command on a
// target pays for its recording.
//
// This package starts no goroutine that outlives a call; the daemon it starts is a separate
// process that exits by itself once idle with no session open (or on `adi stop`).
package cli
