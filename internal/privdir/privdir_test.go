package privdir

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMkdirTempMode checks the directory's mode is 0700 under a umask of 0 (which opens what
// is created to everyone) and of 0o277 (which takes the owner's write permission away).
func TestMkdirTempMode(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for _, mask := range []int{0, 0o277} {
		old := syscall.Umask(mask)
		dir, err := MkdirTemp("adi-test-")
		syscall.Umask(old)
		require.NoError(t, err)
		st, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, os.ModeDir|0o700, st.Mode(), "umask %#o", mask)
	}
}
