//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
)

// tinyDisk mounts a tmpfs of size bytes on a fresh directory and returns it (unmounted when the
// test ends). It needs CAP_SYS_ADMIN (root); ok is false when the mount is refused.
func tinyDisk(t *testing.T, size string) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0755"); err != nil {
		return dir, false
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir, true
}

// fill writes zeros at the end of dir/filler until the filesystem is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "filler"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	require.NoError(t, err)
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			require.ErrorIs(t, err, syscall.ENOSPC)
			return
		}
	}
}

// bigRecording writes about 4 MB of calls: more than the tiny disk holds.
const bigRecording = `def f(i, pad):
    return i


for i in range(20000):
    f(i, "x" * 150)
print("done")
`

// TestFaultDiskFull puts the state directory on a 1 MiB tmpfs and fills it: a command that must
// run the program fails with a one-line error that names the file and the cause; a command that only
// changes Σ works and its change is saved in place (where the state file cannot be written, the
// answer says the change is not saved); a new session is refused and leaves
// nothing behind; once space is back the session answers again; and a recording that outgrows
// the disk fails the same clear way, with no process left. Without the right to mount, an
// unwritable state directory stands in for the full disk.
func TestFaultDiskFull(t *testing.T) {
	needPython(t)
	disk, ok := tinyDisk(t, "1m")
	if !ok {
		testReadOnlyState(t)
		return
	}
	mark := newMark(t)
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: disk, Log: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(mgr.Shutdown)
	ctx := testContext(t, 2*time.Minute)
	opts := func(cmd, dir string) bridge.Options {
		return bridge.Options{Command: cmd, Dir: dir, Env: []string{markVar + "=" + mark}}
	}
	sessions := filepath.Join(disk, "sessions")
	s, err := mgr.Create(ctx, "ok", opts("python orders.py", demoDir(t)))
	require.NoError(t, err)
	fill(t, disk)

	// exec always starts a run (under debugpy), after the FLT it needs (recorded by a run of its
	// own when the first run did not record it): the first of those runs cannot be written.
	err = doErr(t, s, "exec bulk_rate#3 -l 16 qty")
	cfg := filepath.Join(sessions, "ok", "runs", "0001", "config.json")
	assert.Equal(t, "write run config (is the disk full?): write "+cfg+": no space left on device", err.Error())
	// state.json is written in place (no new file, no new page): a full disk still takes it
	st := filepath.Join(sessions, "ok", "state.json")
	const setBreak = "Breakpoint set: orders:bulk_rate  (every call); orders:bulk_rate was called 3 time(s); 1 breakpoint(s) in all.\nMatches 3 invocation(s): orders:bulk_rate#1, orders:bulk_rate#2, orders:bulk_rate#3. Next: adi continue.\n"
	assert.Equal(t, setBreak, do(t, s, "break bulk_rate").Text)
	var saved struct {
		Breakpoints []struct {
			Func string `json:"func"`
		} `json:"breakpoints"`
	}
	b, err := os.ReadFile(st)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &saved), "%s", b)
	require.Len(t, saved.Breakpoints, 1)
	assert.Equal(t, "orders:bulk_rate", saved.Breakpoints[0].Func)
	// a state that cannot be written: the change is made, and the answer says it is not saved
	require.NoError(t, os.Remove(st))
	require.NoError(t, os.Mkdir(st, 0o755))
	assert.Equal(t, "Cleared all breakpoints (1 removed: orders:bulk_rate); 0 breakpoint(s) left.\n"+
		"Warning: the session state (breakpoints, current frame) could not be saved, so a restarted adi will not have this change: cannot write "+st+": open "+st+": is a directory\n",
		do(t, s, "clear").Text)
	require.NoError(t, os.Remove(st))
	do(t, s, "break bulk_rate")
	fill(t, disk) // what the directory's removal freed

	_, err = mgr.Create(ctx, "full", opts("python orders.py", demoDir(t)))
	require.Error(t, err)
	meta := filepath.Join(sessions, "full", "session.json")
	assert.Equal(t, "cannot write "+meta+" (is the disk full?): write "+meta+".tmp: no space left on device", err.Error())
	assert.NoDirExists(t, filepath.Join(sessions, "full"))

	require.NoError(t, os.Remove(filepath.Join(disk, "filler")))
	assert.Equal(t, fltBulkRate3, do(t, s, "flt bulk_rate#3").Text)
	assert.Equal(t, "Exec at orders:bulk_rate#3, line 16, visit 1: qty\nOutput: (none)\nValue: 10\n", do(t, s, "exec bulk_rate#3 -l 16 qty").Text)

	dir := t.TempDir()
	writeProgram(t, dir, "big.py", bigRecording)
	_, err = mgr.Create(ctx, "big", opts("python big.py", dir))
	require.Error(t, err)
	out := filepath.Join(sessions, "big", "runs", "0000", "stdout")
	assert.Equal(t, "save target stdout (is the disk full?): write "+out+": no space left on device", err.Error())
	assert.NoDirExists(t, filepath.Join(sessions, "big"), "a failed creation frees what it wrote")
	s.DropStandby() // the run a session keeps ready for its next exec is not an orphan
	requireNoMarked(t, mark)
}

// testReadOnlyState is TestFaultDiskFull's stand-in where no tmpfs can be mounted (no
// CAP_SYS_ADMIN): the sessions directory is replaced by a link to /dev/null, in which nobody, root
// included, can create a directory, so a new session cannot be written at all.
func testReadOnlyState(t *testing.T) {
	t.Log("cannot mount a tmpfs (no CAP_SYS_ADMIN): testing an unwritable state directory instead")
	state := t.TempDir()
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: state, Log: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(mgr.Shutdown)
	sessions := filepath.Join(state, "sessions")
	require.NoError(t, os.Remove(sessions))
	require.NoError(t, os.Symlink("/dev/null", sessions))
	_, err = mgr.Create(testContext(t, time.Minute), "ro", bridge.Options{Command: "python orders.py", Dir: demoDir(t)})
	require.Error(t, err)
	dir := filepath.Join(sessions, "ro")
	assert.Equal(t, "cannot create the session directory "+dir+" (is the disk full?): mkdir "+sessions+": not a directory", err.Error())
}
