package bridge

import (
	"errors"
	"syscall"
	"unsafe"
)

// waitid's arguments (linux): wait for one pid, for its exit, and leave it waitable.
const (
	pPID    = 1
	wNOHANG = 0x1
	wEXITED = 0x4
	wNOWAIT = 0x1000000
)

// waitExited blocks until process pid has exited, without reaping it: the caller's cmd.Wait
// still does that (and, until then, the pid cannot be reused).
func waitExited(pid int) {
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wEXITED|wNOWAIT, 0, 0)
		if !errors.Is(e, syscall.EINTR) {
			return // exited, or already reaped (ECHILD)
		}
	}
}

// exitedNow reports, without blocking or reaping, whether process pid has exited.
func exitedNow(pid int) bool {
	var info [128]byte // siginfo_t: its si_pid (bytes 16-19 on linux) is set when pid has exited
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wEXITED|wNOWAIT|wNOHANG, 0, 0)
		if errors.Is(e, syscall.EINTR) {
			continue
		}
		return e != 0 || *(*int32)(unsafe.Pointer(&info[16])) != 0
	}
}
