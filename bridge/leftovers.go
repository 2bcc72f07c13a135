package bridge

import (
	"syscall"

	"github.com/adi-bridge/adi/dap"
)

// endLeftovers ends what a run's process left behind when it exited: the processes carrying the
// run's tag, and its process group (children that dropped the environment stay in it). Children
// that still hold the target's stdout or stderr would otherwise keep cmd.Wait waiting until the
// run's timeout.
func endLeftovers(pid int, tag string) {
	dap.KillRun(0, tag)
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
