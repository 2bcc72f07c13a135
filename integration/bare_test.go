package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/server"
)

// bareProgram writes the probe's fixture bare_prog.py as big.py into a new directory, which it
// returns. Run as "big.py 3000" it makes 30,002 calls: main → deep(3) → deep(2) → deep(1) →
// deep(0) → mid → leaf ×5, 3,000 times; past its first 20,000 calls its first run records the
// calls deeper than three frames bare: deep(1), deep(0), mid and leaf.
func bareProgram(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	prog, err := os.ReadFile(filepath.Join("..", "probe", "python", "tests", "fixtures", "bare_prog.py"))
	require.NoError(t, err)
	writeProgram(t, dir, "big.py", string(prog))
	return dir
}

// TestBareCallsShowValues: a big program's first run records its deep calls bare, and every answer
// that shows one records its values first: a call tree's frames and a frame list's with one light
// re-run each (kept on disk as values.json, so a restarted daemon shows them without a run), an
// FLT's frame and callees with the re-run that records the FLT. The first call tree, three levels
// deep, needs no such run.
func TestBareCallsShowValues(t *testing.T) {
	dir := bareProgram(t)
	r := newCLI(t, dir)
	cmd := "/usr/bin/python3 big.py 3000"
	runs := func() []string {
		t.Helper()
		got, err := filepath.Glob(filepath.Join(r.state, "sessions", "*", "runs", "*", "*.json"))
		require.NoError(t, err)
		var names []string
		for _, p := range got {
			if n := filepath.Base(p); n == "values.json" || n == "flts.json" {
				names = append(names, filepath.Base(filepath.Dir(p))+"/"+n)
			}
		}
		sort.Strings(names)
		return names
	}

	res := r.run("call-tree", cmd, "--depth", "2", "--width", "2")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `Call tree of big:<module>#1 (depth 2, width 2):
big:<module>#1() → None
  big:main#1(times=3000) → None
    big:deep#1(d=3, n=5) → {'n': 5, 'total': 10}  ⋯ 9 calls below
    big:deep#5(d=3, n=5) → {'n': 5, 'total': 10}  ⋯ 9 calls below
    … 2998 more calls to deep, 29980 with their callees
`, res.stdout)
	assert.Empty(t, runs(), "the frames shown have their values: no run records them")

	deepTree := `Call tree of big:deep#10001 (depth 3, width 10):
big:deep#10001(d=3, n=5) → <dict, not rendered>
  big:deep#10002(d=2, n=5) → <dict, not rendered>
    big:deep#10003(d=1, n=5) → {'n': 5, 'total': 10}
      big:deep#10004(d=0, n=5) → {'n': 5, 'total': 10}  ⋯ 6 calls below
`
	res = r.run("call-tree", cmd, "big.py:deep#10001", "--depth", "3")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, deepTree, res.stdout, "deep#10003 and #10004 were recorded bare; deep's summaries past its first calls stay")
	assert.Equal(t, []string{"0001/values.json"}, runs())

	res = r.run("flt", cmd, "big.py:mid#2600")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `Frame: big:mid#2600   (caller big:deep#10400, line 17)
Args: n = 5

   9 | total = 0
     |   + total = 0
  10 | for i in range(n):   [iteration 1]
     |   + i = 0
  11 | total += len(leaf(i))
     |   ~ total = 2 (was 0)
     |   → big:leaf#12996 → [0, 0]
  10 | for i in range(n):   [iteration 2]
     |   ~ i = 1 (was 0)
  11 | total += len(leaf(i))
     |   ~ total = 4 (was 2)
     |   → big:leaf#12997 → [1, 2]
     ┆ … iterations 3–4 of line 10 folded (2 iterations, same path as iteration 2; changing: i, total; calls: leaf ×2)
  10 | for i in range(n):   [iteration 5]
     |   ~ i = 4 (was 3)
  11 | total += len(leaf(i))
     |   ~ total = 10 (was 8)
     |   → big:leaf#13000 → [4, 8]
  10 | for i in range(n):   [iteration 6]
  12 | return {"n": n, "total": total}

Return: {'n': 5, 'total': 10}
`, res.stdout, "the FLT's re-run records the values of the frame and its callees, held bare")
	assert.Equal(t, []string{"0001/values.json", "0002/flts.json", "0002/values.json"}, runs())

	res = r.run("list-frames", cmd, "big.py:leaf", "--caller", "mid#2900")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `Frames (5 of 15000 with a caller matching "mid#2900"):
  #14496  big:leaf#14496  args: x = 0  → [0, 0]   target: DIR/big.py:leaf#14496  line-target: DIR/big.py:4#14496  <- big:mid#2900 line 11
  #14497  big:leaf#14497  args: x = 1  → [1, 2]   target: DIR/big.py:leaf#14497  line-target: DIR/big.py:4#14497  <- big:mid#2900 line 11
  #14498  big:leaf#14498  args: x = 2  → [2, 4]   target: DIR/big.py:leaf#14498  line-target: DIR/big.py:4#14498  <- big:mid#2900 line 11
  #14499  big:leaf#14499  args: x = 3  → [3, 6]   target: DIR/big.py:leaf#14499  line-target: DIR/big.py:4#14499  <- big:mid#2900 line 11
  #14500  big:leaf#14500  args: x = 4  → [4, 8]   target: DIR/big.py:leaf#14500  line-target: DIR/big.py:4#14500  <- big:mid#2900 line 11
`, strings.ReplaceAll(res.stdout, dir, "DIR"))
	assert.Equal(t, []string{"0001/values.json", "0002/flts.json", "0002/values.json", "0003/values.json"}, runs())

	res = r.run("step-into", cmd, "big.py:leaf#14001")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Regexp(t, `^step-into → big:leaf#14001  \(called by big:mid#2801 at line 11\)\n`, res.stdout, "the frame was bare: its FLT's re-run recorded its caller's line")
	assert.Equal(t, []string{"0001/values.json", "0002/flts.json", "0002/values.json", "0003/values.json", "0004/flts.json", "0004/values.json"}, runs())

	// a restarted daemon reads the values kept on disk: the same answers, no run
	r.stop()
	res = r.run("call-tree", cmd, "big.py:deep#10001", "--depth", "3")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, deepTree, res.stdout)
	res = r.run("list-frames", cmd, "big.py:leaf", "--caller", "mid#2600", "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var ans struct {
		Result struct {
			Frames []struct {
				FID      string          `json:"fid"`
				CallLine int             `json:"call_line"`
				Args     json.RawMessage `json:"args"`
				Return   string          `json:"return"`
			} `json:"frames"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &ans), res.stdout)
	require.Len(t, ans.Result.Frames, 5)
	last := ans.Result.Frames[4]
	assert.Equal(t, "big:leaf#13000", last.FID)
	assert.Equal(t, 11, last.CallLine)
	assert.JSONEq(t, `[{"name": "x", "value": "4"}]`, string(last.Args))
	assert.Equal(t, "[4, 8]", last.Return, "mid#2600's callees, recorded with its FLT")
	assert.Equal(t, []string{"0001/values.json", "0002/flts.json", "0002/values.json", "0003/values.json", "0004/flts.json", "0004/values.json"}, runs())
}

// TestBareChildrenInViewer: the viewer's tree opens a node with trace.children, outside commands;
// the callees the first run recorded bare get their values first (one run), not <not recorded>.
func TestBareChildrenInViewer(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t)
	dir := bareProgram(t)
	var res server.CreateResult
	require.NoError(t, c.Call(context.Background(), "session.create",
		map[string]any{"command": "/usr/bin/python3 big.py 3000", "dir": dir, "id": "big"}, &res))
	assert.Equal(t, 30002, res.Session.Frames)

	var frames struct {
		Frames []adi.FrameJSON `json:"frames"`
	}
	require.NoError(t, c.Call(context.Background(), "trace.children", map[string]any{"session": "big", "frame": "big:mid#2600"}, &frames))
	require.Len(t, frames.Frames, 5)
	for i, f := range frames.Frames {
		assert.Equal(t, fmt.Sprintf("big:leaf#%d", 12996+i), f.FID.String())
		assert.Equal(t, []adi.Arg{{Name: "x", Value: fmt.Sprint(i)}}, f.Args)
		assert.Equal(t, fmt.Sprintf("[%d, %d]", i, 2*i), f.Return)
		assert.Equal(t, 11, f.CallLine)
		assert.Equal(t, adi.FilledFP, f.ArgsFP)
	}
}

// ndProg counts its runs in runs.txt: from its second run on, the last 500 rounds call leaf once
// more, so a re-run makes mid#2900 with other arguments and other calls.
const ndProg = `import os


def leaf(x):
    return [x]


def mid(n):
    for i in range(n):
        leaf(i)
    return n


def deep(d, n):
    return mid(n) if d == 0 else deep(d - 1, n)


count = int(open("runs.txt").read()) if os.path.exists("runs.txt") else 0
with open("runs.txt", "w") as f:
    f.write(str(count + 1))
for k in range(3000):
    deep(3, 5 + (1 if count and k >= 2500 else 0))
`

// TestBareValuesNotReplayed: a bare frame has no fingerprint, so the values a re-run recorded are
// taken only where that re-run made the frame as recorded (its outcome, its calls and its
// caller's calls); where it did not, the answer keeps <not recorded> and says why, rather than
// show another invocation's values. Frames before the difference get theirs.
func TestBareValuesNotReplayed(t *testing.T) {
	dir := t.TempDir()
	writeProgram(t, dir, "nd.py", ndProg)
	r := newCLI(t, dir)
	cmd := "/usr/bin/python3 nd.py"
	res := r.run("call-tree", cmd, "nd.py:mid#2900")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `Call tree of nd:mid#2900 (depth 2, width 10):
nd:mid#2900(n=<not recorded>) → 5
  nd:leaf#14496(x=<not recorded>) → <not recorded>
  nd:leaf#14497(x=<not recorded>) → <not recorded>
  nd:leaf#14498(x=<not recorded>) → <not recorded>
  … 2 more calls to leaf
Note: 4 frame(s) show <not recorded>: the run that records values did not make them as recorded (it exited with status 0 after 30501 calls of the 4 functions it recorded)
`, res.stdout)
	res = r.run("flt", cmd, "nd.py:mid#2900")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: cannot record the FLT of nd:mid#2900: nd:mid#2900 was recorded without its arguments, and in the re-run it or its caller "+
		"ended otherwise or made other calls; the program does not run the same way twice (it depends on time, input or the environment, or on randomness adi does not seed)\n", res.stderr)
	res = r.run("call-tree", cmd, "nd.py:mid#2000")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `Call tree of nd:mid#2000 (depth 2, width 10):
nd:mid#2000(n=5) → 5
  nd:leaf#9996(x=0) → [0]
  nd:leaf#9997(x=1) → [1]
  nd:leaf#9998(x=2) → [2]
  … 2 more calls to leaf
`, res.stdout)
}
