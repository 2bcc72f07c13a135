package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseRecorded checks that the calls in T and the session come from adi's "recorded" line.
func TestParseRecorded(t *testing.T) {
	calls, session, ok := parseRecorded("adi: recorded `python3 repro.py`: 4866 call(s) in 1601 ms, exit status 0 (session cli-57b0a59d825a)\n")
	require.True(t, ok)
	assert.Equal(t, 4866, calls)
	assert.Equal(t, "cli-57b0a59d825a", session)
	calls, session, ok = parseRecorded("adi: recorded `python3 -m pytest t.py -q`: 43046 call(s) in 2034 ms, exit status 0; tests: 0 failed, 53 passed (session cli-78cab8067d3a)\n")
	require.True(t, ok)
	assert.Equal(t, 43046, calls)
	assert.Equal(t, "cli-78cab8067d3a", session)
	_, _, ok = parseRecorded("adi: cannot record the FLT of t:f#2: t:f#2's argument x is 1 in the re-run, 2 in the recording\n")
	assert.False(t, ok)
}

// TestParseVmRSS checks that the resident memory is read from /proc/PID/status in bytes.
func TestParseVmRSS(t *testing.T) {
	n, err := parseVmRSS("Name:\tadi\nVmPeak:\t  900 kB\nVmRSS:\t   52340 kB\nThreads:\t9\n")
	require.NoError(t, err)
	assert.Equal(t, int64(52340*1024), n)
	_, err = parseVmRSS("Name:\tadi\n")
	assert.EqualError(t, err, "no VmRSS line")
}

// TestAnswered checks the CLI's exit statuses: 0 answers, 1 answers only with an answer on stdout
// and no error saying a re-run could not record its frame, 2 never.
func TestAnswered(t *testing.T) {
	assert.True(t, answered(0, "", ""))
	assert.True(t, answered(1, "Frame: f#2\n", "adi: the target command failed (exit status 1); the answer above is still valid\n"))
	assert.False(t, answered(1, "", "adi: cannot record the FLT of t:f#2: the re-run made 1 call(s) of t:f (it exited with status 0 after 10 calls); the program does not run the same way twice\n"))
	assert.False(t, answered(1, "x\n", "adi: cannot record the FLT of t:f#2: the re-run made 1 call(s) of t:f\n"))
	assert.False(t, answered(2, "usage\n", ""))
}

// TestQualnameBodyLine checks that a method is found inside its class (not an earlier method of
// the same name) and that its docstring is skipped.
func TestQualnameBodyLine(t *testing.T) {
	src := `class A:
    def response(self):
        return 1


class B(A):
    """B."""

    def response(self, *args):
        """Several
        lines."""
        x = args
        return x


def free(a,
         b):
    return a
`
	assert.Equal(t, 12, qualnameBodyLine(src, "B.response"))
	assert.Equal(t, 3, qualnameBodyLine(src, "A.response"))
	assert.Equal(t, 18, qualnameBodyLine(src, "free"))
	assert.Equal(t, 0, qualnameBodyLine(src, "C.response"))
}

// TestSize checks byte counts with three significant digits.
func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "—", 512: "512 B", 4380492: "4.38 MB", 52340 * 1024: "53.6 MB", 1500: "1.5 kB", 2e9: "2 GB"} {
		assert.Equal(t, want, size(n), "%d", n)
	}
}

// realRowFixture is a row with one re-run that could not record its frame.
func realRowFixture() []*RealRepoRow {
	ok := &RealRepoRow{Repo: RealRepos[0], Calls: 6199, Plain: 100 * time.Millisecond, Cold: 1200 * time.Millisecond,
		Warm: 700 * time.Millisecond, Rerun: 600 * time.Millisecond, Reran: true, Nav: 20 * time.Millisecond, NavN: 5,
		Exec: 900 * time.Millisecond, PeerFLT: 300 * time.Millisecond, PeerExec: 450 * time.Millisecond,
		DiskFirst: 2_000_000, DiskSix: 3_000_000, RSS: 40_000_000, DiskNext: 2_000_000, RSSNext: 1_500_000,
		RSSNextLow: -200_000, RSSNextHigh: 2_900_000}
	bad := &RealRepoRow{Repo: RealRepos[3], Calls: 4866, Plain: 200 * time.Millisecond, Cold: 2 * time.Second,
		Warm: time.Second, Rerun: 500 * time.Millisecond, Exec: 800 * time.Millisecond,
		PeerFLT: 400 * time.Millisecond, PeerExec: 400 * time.Millisecond, DiskFirst: 4_000_000, DiskSix: 4_400_000, RSS: 30_000_000, DiskNext: 4_000_000, RSSNext: 3_000_000}
	bad.check("rerun", cliResult{Args: []string{"break", "python3 repro.py", "f#2"}, Code: 1,
		Stderr: "adi: cannot record the FLT of t:f#2: the re-run made 1 call(s) of t:f (it exited with status 0 after 4866 calls); the program does not run the same way twice\n"})
	return []*RealRepoRow{ok, bad}
}

// TestRealReportRows checks the rendered rows of both tables, exactly.
func TestRealReportRows(t *testing.T) {
	rows := realRowFixture()
	assert.Equal(t, "| requests | `requests/models.py:PreparedRequest.prepare_url` (#1, #2) | 6,199 | 100 ms | 1.20 s | 700 ms | 600 ms | 20 ms | 900 ms | 300 ms | 450 ms | 2 MB → 3 MB | 40 MB / 1.5 MB (−200 kB to 2.9 MB) | yes |\n",
		realTimesRow(rows[0]))
	assert.Equal(t, "| django | `django/template/base.py:Variable.resolve` (#1, #2) | 4,866 | 200 ms | 2.00 s | 1.00 s | 500 ms, no answer | — | 800 ms | 400 ms | 400 ms | 4 MB → 4.4 MB | 30 MB / 3 MB | NO (1 failed) |\n",
		realTimesRow(rows[1]))
	assert.Equal(t, "| requests | 4.0x (not met) | 2.0x (not met) | 2.0x (not met) | 0.067x (not met) | 1.5x (met) | 0.75x (met; the first on a new daemon: 20x) |\n", realRatiosRow(rows[0]))
	assert.Equal(t, "| django | 5.0x (not met) | no answer | 2.0x (not met) | no answer | 1.1x (met) | 0.75x (met; the first on a new daemon: 7.5x) |\n", realRatiosRow(rows[1]))

	// measured pair by pair, the ratios are the pairs' medians (not the ratio of the medians)
	rows[0].FirstX, rows[0].RerunX, rows[0].ExecX = 0.9, 1.05, 0.5
	assert.Equal(t, "| requests | 0.90x (met) | 1.1x (not met) | 0.50x (met) | 0.067x (not met) | 1.5x (met) | 0.75x (met; the first on a new daemon: 20x) |\n", realRatiosRow(rows[0]))
	rows[1].RerunX = 0.5 // a command that did not answer has no ratio, paired or not
	assert.Contains(t, realRatiosRow(rows[1]), "| 5.0x (not met) | no answer |")
}

// TestFailures checks that identical failures are listed once with their count.
func TestFailures(t *testing.T) {
	r := &RealRepoRow{Failed: []string{"a", "b", "a"}}
	assert.Equal(t, []string{"a (2 times)", "b"}, r.Failures())
}

// TestRealBars checks the bar summary over the libraries: the worst ratio and who did not answer.
func TestRealBars(t *testing.T) {
	var b strings.Builder
	for _, x := range realBars(realRowFixture()) {
		b.WriteString(x.what + " | " + x.bar + " | " + x.measured + " | " + x.met + "\n")
	}
	assert.Equal(t, `real repositories: every command answers | on every workload | 1 of 2 (not: django) | not met
real repositories, the worst: first command (cold) ÷ the artifact's per command | ≤ 1.0x (stretch 0.6x) | 5.0x (django) | not met
real repositories, the worst: FLT re-run (`+"`break f#2`"+`) ÷ the artifact's per command | ≤ 1.0x | 2.0x (requests); no answer or not measured: django | not met
real repositories, the worst: exec ÷ the artifact's exec | ≤ 1.0x | 2.0x (requests) | not met
real repositories, the worst: navigation from the recording ÷ the artifact's per command | ≤ 0.02x | 0.067x (requests); no answer or not measured: django | not met
real repositories, the worst: disk after six commands ÷ the first recording | ≤ 2x | 1.5x (requests) | met
real repositories, the worst: one more session's memory in the daemon ÷ its recording on disk | ≤ 1x | 0.75x (requests) | met
`, b.String())
}

// TestRealReposScripts checks that every library run by a script has its reproduce script
// embedded, and that a test file's row runs pytest on it.
func TestRealReposScripts(t *testing.T) {
	for _, r := range RealRepos {
		if r.Test != "" {
			assert.Equal(t, "python3 -m pytest "+r.Test+" -q -p no:cacheprovider", r.command())
			continue
		}
		assert.Equal(t, "python3 repro.py", r.command())
		b, err := r.script()
		require.NoError(t, err, r.Name)
		assert.Contains(t, string(b), "import", r.Name)
	}
}
