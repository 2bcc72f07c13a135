package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkCLINavigation times one navigation command answered from the recording through the
// CLI, as a whole process (ns/op): `adi continue` and `adi prev` in turn on the last session,
// and `adi state "CMD"`, which also checks that the recording is still current.
func BenchmarkCLINavigation(b *testing.B) {
	needPython(b)
	dir := demoDir(b)
	bin := adiBinary(b)
	state := b.TempDir()
	env := append(os.Environ(), "ADI_STATE_DIR="+state, "ADI_SESSION=")
	run := func(args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		var errb bytes.Buffer
		cmd.Stderr = &errb
		require.NoError(b, cmd.Run(), "adi %v: %s", args, errb.String())
	}
	b.Cleanup(func() { run("stop") })
	run("break", "python orders.py", filepath.Join(dir, "orders.py")+":bulk_rate")

	b.Run("continue-prev", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if i%2 == 0 {
				run("continue")
			} else {
				run("prev")
			}
		}
	})
	b.Run("state-with-target", func(b *testing.B) {
		for b.Loop() {
			run("state", "python orders.py")
		}
	})
}
