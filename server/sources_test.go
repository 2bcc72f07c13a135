package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSourceWatchSeesEveryChange: once a recording's files are watched, each way of changing one
// is seen by the next check at once (the check reads the events queued so far): a write in place,
// a truncation, a touch, a change of mode, a replacement by rename, a removal; events on other
// files of the directory are not; a removed directory makes its files unwatched (stat-ed at every
// check); an overflow makes every recording checked again, and so does a watch that had to be
// given up (its sync files removed), which the next check makes again.
func TestSourceWatchSeesEveryChange(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "pkg")
	require.NoError(t, os.Mkdir(sub, 0o755))
	a, b := filepath.Join(dir, "a.py"), filepath.Join(sub, "b.py")
	for _, f := range []string{a, b, filepath.Join(dir, "other.txt")} {
		require.NoError(t, os.WriteFile(f, []byte("x = 1\n"), 0o644))
	}
	var w sourceWatch
	defer w.close()
	rf := &recordedFiles{files: []string{a, b}}
	require.True(t, w.add(rf.files), "both directories are watched")
	check := func() bool { // what stale does, without the stat pass
		w.drain()
		changed := rf.checked < w.reset || w.changedSince(rf)
		rf.checked = w.events
		return changed
	}
	assert.False(t, check(), "nothing changed")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.txt"), []byte("y"), 0o644))
	assert.False(t, check(), "another file of the directory")

	f, err := os.OpenFile(a, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte("x = 2\n"), 0)
	require.NoError(t, err)
	assert.True(t, check(), "written in place (still open)")
	require.NoError(t, f.Close())
	assert.False(t, check(), "nothing since (closing it changes nothing)")

	require.NoError(t, os.Truncate(a, 2))
	assert.True(t, check(), "truncated")
	require.NoError(t, os.Chmod(a, 0o600))
	assert.True(t, check(), "its mode changed")

	touched := time.Unix(1700000000, 0)
	require.NoError(t, os.Chtimes(b, touched, touched))
	assert.True(t, check(), "touched")

	tmp := filepath.Join(sub, ".b.py.tmp")
	require.NoError(t, os.WriteFile(tmp, []byte("x = 3\n"), 0o644))
	require.NoError(t, os.Rename(tmp, b))
	assert.True(t, check(), "replaced by a rename")

	require.NoError(t, os.Remove(a))
	assert.True(t, check(), "removed")

	require.NoError(t, os.RemoveAll(sub))
	assert.True(t, check(), "its directory removed")
	assert.False(t, w.add(rf.files), "a directory whose watch ended is not watched again: its files are stat-ed")

	w.error(fsnotify.ErrEventOverflow)
	assert.True(t, check(), "events were lost")
	assert.False(t, check(), "nothing since")

	c := filepath.Join(dir, "c.py")
	require.NoError(t, os.WriteFile(c, []byte("x = 1\n"), 0o644))
	rf.files = []string{c}
	require.True(t, w.add(rf.files))
	check() // (its creation)
	assert.False(t, check(), "a new recording's file, unchanged")
	require.NoError(t, os.RemoveAll(w.sync))
	assert.True(t, check(), "the watch was given up: every file is stat-ed")
	require.True(t, w.add(rf.files), "the next check watches them again")
	assert.False(t, check(), "nothing since")
	require.NoError(t, os.WriteFile(c, []byte("x = 2\n"), 0o644))
	assert.True(t, check(), "seen by the new watch")
}
