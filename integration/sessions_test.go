package integration

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/examples"
)

// TestCLISessionsCountLiveCatches checks that adi sessions counts the calls a live session's
// watches caught, as every ADI command on it sees them: while it is open (with its state, a live
// program having no exit status of a run adi made), once it is closed, after the daemon stopped,
// and from the recording itself when the count adi keeps at close is missing (a daemon that
// ended without closing it).
func TestCLISessionsCountLiveCatches(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "orders.py"), examples.Orders, 0o644))
	r := newCLI(t, dir)
	for _, args := range [][]string{
		{"live", "start", "python orders.py", "--id", "watched"},
		{"live", "watch", "bulk_rate"},
		{"live", "continue"},
	} {
		res := r.run(args...)
		require.Equal(t, 0, res.code, "%v: %s", args, res.stderr)
	}
	sessions := func(want string) {
		t.Helper()
		res := r.run("sessions")
		assert.Equal(t, 0, res.code, res.stderr)
		assert.Equal(t, "", res.stderr)
		assert.Equal(t, "Sessions (1):\n  watched  python orders.py  "+want+" in "+dir+"\n", res.stdout)
	}
	sessions("(open, live: Done; 3 calls, at orders:bulk_rate#1)")

	res := r.run("live", "close")
	require.Equal(t, 0, res.code, res.stderr)
	onDisk := "(on disk; 3 calls, no exit status, at orders:bulk_rate#1)"
	sessions(onDisk)

	r.stop()
	sessions(onDisk)

	r.stop()
	count := filepath.Join(r.state, "sessions", "watched", "runs", "0000", "live.json")
	require.FileExists(t, count)
	require.NoError(t, os.Remove(count))
	sessions(onDisk)

	res = r.run("flt", "--session", "watched", "bulk_rate#3")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "Frame: orders:bulk_rate#3   (entry frame)\nArgs: qty = 10, rate = 0.15\n\n  16 | if qty > BULK_QUANTITY:  → False\n  18 | return 0.0\n\nReturn: 0.0\n", res.stdout,
		"the session on disk answers about the calls it counts")
}
