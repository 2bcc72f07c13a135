package bridge

import "syscall"

// runNice is the scheduling priority of recording runs (their children inherit it): below adi's
// own, so that many sessions recording at once on few cores do not starve the server answering
// from what is already recorded (measured with integration's BenchmarkLoad50Sessions: the p95 of
// answers that need no run drops from ~500 ms to ~60 ms). Runs still get every idle cycle.
const runNice = 10

// lowerPriority lowers the priority of a started run's process; a failure only means the run
// competes with adi on equal terms.
func lowerPriority(pid int) {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, runNice)
}
