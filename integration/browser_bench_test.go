package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// tenThousand calls work 10,000 times from main: the call tree's benchmark program.
const tenThousand = `def work(i):
    return i * 2


def main():
    total = 0
    for i in range(10000):
        total += work(i)
    return total


main()
`

// hundredThousand runs 100,003 statements in one frame (work#1): the long-FLT benchmark program.
const hundredThousand = `def work():
    total = 0
    for i in range(50000):
        total += i
    return total


work()
`

// TestBrowserBench runs the viewer's call-tree benchmark (integration/browser/bench/tree.bench.js,
// docs/benchmarks.md) against adi serve with a session of 10,000 calls, and its long-FLT benchmark
// (bench/flt.bench.js) with a frame of 100,000 steps. It measures, it does not judge: run it with
// ADI_BROWSER_BENCH=1 (and -v to see the numbers, also written to integration/artifacts/
// bench-tree.json and bench-flt.json).
func TestBrowserBench(t *testing.T) {
	if os.Getenv("ADI_BROWSER_BENCH") == "" {
		t.Skip("set ADI_BROWSER_BENCH=1 to run the viewer's benchmark")
	}
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the benchmark needs Node.js 20 and chromium: run scripts/deps.sh")
	suite, err := filepath.Abs("browser")
	require.NoError(t, err)
	py := needPython(t)
	bin := adiBinary(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tenk.py"), []byte(tenThousand), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hundredk.py"), []byte(hundredThousand), 0o644))
	srv := startServe(t, bin, py.Path)
	srv.rpc(t, "session.create", map[string]any{"command": "python tenk.py", "dir": dir, "id": "tenk"})
	srv.rpc(t, "session.create", map[string]any{"command": "python hundredk.py", "dir": dir, "id": "hk"})
	artifacts, err := filepath.Abs("artifacts")
	require.NoError(t, err)
	cmd := exec.Command(node, "bench/tree.bench.js")
	cmd.Dir = suite
	cmd.Env = append(os.Environ(), "ADI_VIEWER_URL="+srv.viewer, "ADI_URL="+srv.url, "ADI_TOKEN="+srv.token,
		"ADI_SESSION=tenk", "ADI_DEMO_DIR="+dir, "ADI_ARTIFACTS="+artifacts, "ADI_CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s\nadi serve's log:\n%s", out, srv.log.String())
	t.Logf("viewer benchmark (10,000 calls):\n%s", out)

	cmd = exec.Command(node, "bench/flt.bench.js")
	cmd.Dir = suite
	cmd.Env = append(os.Environ(), "ADI_VIEWER_URL="+srv.viewer, "ADI_URL="+srv.url, "ADI_TOKEN="+srv.token,
		"ADI_SESSION=hk", "ADI_FLT_SESSION=hk", "ADI_DEMO_DIR="+dir, "ADI_ARTIFACTS="+artifacts, "ADI_CHROMIUM="+chromium)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s\nadi serve's log:\n%s", out, srv.log.String())
	t.Logf("viewer benchmark (a frame of 100,000 steps):\n%s", out)
}
