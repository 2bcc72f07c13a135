package bridge

import (
	"time"

	"github.com/adi-bridge/adi/dap"
)

// waitExited blocks until process pid has exited, without reaping it: the caller's cmd.Wait
// still does that (and, until then, the pid cannot be reused). Here it looks at the process
// table every 5 ms (Linux waits in waitid).
func waitExited(pid int) {
	for !dap.ProcessEnded(pid) {
		time.Sleep(5 * time.Millisecond)
	}
}

// exitedNow reports, without blocking or reaping, whether process pid has exited.
func exitedNow(pid int) bool { return dap.ProcessEnded(pid) }
