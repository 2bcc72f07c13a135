package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The bars of the real-repository table (issue 12).
const (
	barFirst  = 1.0  // first command ÷ the artifact's per command (stretch: 0.6)
	barRerun  = 1.0  // an FLT re-run ÷ the artifact's per command
	barExec   = 1.0  // exec ÷ the artifact's exec
	barNav    = 0.02 // navigation ÷ the artifact's per command
	barDisk   = 2.0  // disk after six commands ÷ the first recording
	barMemory = 1.0  // one more session's memory in the daemon ÷ its first recording on disk
)

// realRepos renders the real-repository tables (times, then ratios against the bars) and adds
// their bars, each over every library, to bars.
func (r *Report) realRepos(b *strings.Builder, bars *[]bar) {
	rows := r.RealRepos
	if len(rows) == 0 {
		return
	}
	b.WriteString("### Real repositories: adi's CLI on seven libraries and a pytest run, against the artifact's method\n\n")
	b.WriteString(realIntro)
	b.WriteString("| library | function (frames used) | calls in T | plain run | first command, cold | first command, warm | `break f#2` | navigation | exec | artifact, per command | artifact, exec | disk: first recording → after six | session's memory in the daemon: first on a new daemon / one more (least to most one added) | every command answered |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, row := range rows {
		b.WriteString(realTimesRow(row))
	}
	b.WriteString("\n| library | first ÷ artifact (≤ 1.0x; stretch 0.6x) | re-run ÷ artifact (≤ 1.0x) | exec ÷ artifact's exec (≤ 1.0x) | navigation ÷ artifact (≤ 0.02x) | disk after six ÷ first recording (≤ 2x) | one more session's memory ÷ its recording on disk (≤ 1x) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, row := range rows {
		b.WriteString(realRatiosRow(row))
	}
	b.WriteString("\n")
	for _, row := range rows {
		for _, f := range row.Failures() {
			fmt.Fprintf(b, "- %s: no answer: %s\n", row.Repo.Name, f)
		}
		for _, n := range row.Notes {
			fmt.Fprintf(b, "- %s: %s\n", row.Repo.Name, n)
		}
	}
	b.WriteString("\n")
	*bars = append(*bars, realBars(rows)...)
}

// realSamplesText is realSamples as the table's text writes it.
var realSamplesText = strconv.Itoa(realSamples)

// moreSessionsText is moreSessions as the table's text writes it.
var moreSessionsText = strconv.Itoa(moreSessions)

// realIntro explains the real-repository table.
var realIntro = "Each workload is the Debian package (python3-requests, -flask, -networkx, -django, -sklearn, -sympy, -matplotlib) " +
	"copied into a scratch directory, so all of it is user code, with its reproduce script bench/realrepos/NAME_repro.py as repro.py, " +
	"run as `python3 repro.py` by /usr/bin/python3; the row \"networkx (pytest)\" runs a test file of the package instead, " +
	"`python3 -m pytest networkx/algorithms/shortest_paths/tests/test_weighted.py -q -p no:cacheprovider` (53 tests). adi runs through its CLI binary, each command timed as a whole process: " +
	"the first command is `call-tree` with no daemon and a fresh state directory (cold) and a new session's on the running daemon (warm); " +
	"then `break FILE:FUNC#2`, whose FLT the first recording does not hold, `continue`, `prev`, `continue`, " +
	"`exec FILE:FUNC#1 -l LINE -s STMT` (six commands with the first), and more `prev`/`continue`. " +
	"Navigation is the median of the continue and prev answered from the recording (those that ran the target are counted apart). " +
	"Disk is the session's directory under ADI_STATE_DIR. Memory is the `adi serve` daemon's VmRSS, each read 4.5 s after the last command, once the daemon has returned freed memory to the system (a second after the command, and again a second after the session, idle for 2 s, started its probe process kept ready): " +
	"first, what the session adds after its six commands to a new daemon (less an idle daemon's), which includes the one-time warm-up of the daemon's runtime (the collector's metadata, type caches, more of the binary paged in); " +
	"then what one more session adds: " + moreSessionsText + " more sessions of the workload (the first command of each is the warm one), each through the same six commands, one after the other on the daemon that still serves the first; one more session's memory is what they added together (VmRSS after the last, less VmRSS before the first) divided by " + moreSessionsText + ", and in parentheses are the least and the most a single one added (a session that makes the daemon's heap grow adds more, and the next one less: the sum cancels these swings, where a median of single additions kept them). " +
	"N sessions cost the daemon about the first plus N-1 times one more; the bar is judged on one more, against that session's first recording on disk. " +
	"The artifact's method is bench/python/peer_standin.py: a re-run with a tracer that records FUNC#2 (per command) or runs STMT in FUNC#1 (exec). " +
	"A command answered when it exited 0, or 1 with an answer on stdout; an error such as \"cannot record the FLT of\" is no answer. " +
	"Plain runs and extra navigation are medians of a few repetitions; the first command (cold), the re-run and exec are medians of " + realSamplesText + " new daemons (the session above and the others, each through those three commands), and each of those commands is followed at once by one run of the artifact's method (the re-run for the first two, its exec for exec), whose medians are the artifact's columns (a session starts its probe process kept ready once idle for 2 s, so a re-run or exec here takes one only where the artifact's run before it took longer: the pytest row's; the others start cold, as after a burst of commands); " +
	"the ratios of the first command, the re-run and exec are the medians of the " + realSamplesText + " ratios pair by pair (this machine's speed drifts by 10-35% over minutes, and the pairs cancel it); the warm first command is the median of the " + moreSessionsText + " more sessions'; disk is a single measurement.\n\n"

// realTimesRow renders one library's times.
func realTimesRow(r *RealRepoRow) string {
	nav := "—"
	if r.NavN > 0 {
		nav = dur(r.Nav)
	}
	if r.NavReran > 0 {
		nav += fmt.Sprintf(" (%d ran the target)", r.NavReran)
	}
	rerun := dur(r.Rerun)
	if !r.Reran && !r.Broke("rerun") {
		rerun += " (from the recording)"
	}
	answered := "yes"
	if !r.Answered() {
		answered = fmt.Sprintf("NO (%d failed)", len(r.Failed))
	}
	return fmt.Sprintf("| %s | `%s` (#1, #2) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s → %s | %s | %s |\n",
		r.Repo.Name, r.Repo.File+":"+r.Repo.Func, thousands(r.Calls), dur(r.Plain),
		noAnswer(dur(r.Cold), r.Broke("first")), dur(r.Warm), noAnswer(rerun, r.Broke("rerun")), nav,
		noAnswer(dur(r.Exec), r.Broke("exec")), dur(r.PeerFLT), dur(r.PeerExec),
		size(r.DiskFirst), size(r.DiskSix), size(r.RSS)+" / "+size(r.RSSNext)+nextRange(r), answered)
}

// nextRange renders the least and the most a single more session added, when measured.
func nextRange(r *RealRepoRow) string {
	if r.RSSNextLow == 0 && r.RSSNextHigh == 0 {
		return ""
	}
	return " (" + signedSize(r.RSSNextLow) + " to " + signedSize(r.RSSNextHigh) + ")"
}

// signedSize is size for an amount that may be negative (what one session added to a daemon's
// resident memory, when the session before had left more of it in use), and 0 B for none.
func signedSize(n int64) string {
	switch {
	case n < 0:
		return "−" + size(-n)
	case n == 0:
		return "0 B"
	}
	return size(n)
}

// noAnswer marks a time whose command did not answer.
func noAnswer(cell string, broke bool) string {
	if broke {
		return cell + ", no answer"
	}
	return cell
}

// realRatio is one ratio of a row against its bar: ok is false when it could not be measured or
// its command did not answer (then why says so).
type realRatio struct {
	x   float64
	ok  bool
	why string
}

// realRatios returns the row's six ratios, in the order of the ratio table's columns: the first
// three are the medians of the pairs' ratios when pairs were measured (RealRepoRow.FirstX).
func realRatios(r *RealRepoRow) []realRatio {
	per := func(d, peer time.Duration, kind string) realRatio {
		switch {
		case kind != "" && r.Broke(kind):
			return realRatio{why: "no answer"}
		case d == 0 || peer == 0:
			return realRatio{why: "—"}
		}
		return realRatio{x: d.Seconds() / peer.Seconds(), ok: true}
	}
	nav := per(r.Nav, r.PeerFLT, "")
	if r.NavN == 0 {
		nav = realRatio{why: "no answer"}
	}
	bytes := func(n, of int64) realRatio {
		if n == 0 || of == 0 {
			return realRatio{why: "—"}
		}
		return realRatio{x: float64(n) / float64(of), ok: true}
	}
	paired := func(x realRatio, pairs float64) realRatio {
		if x.ok && pairs > 0 {
			x.x = pairs
		}
		return x
	}
	return []realRatio{paired(per(r.Cold, r.PeerFLT, "first"), r.FirstX), paired(per(r.Rerun, r.PeerFLT, "rerun"), r.RerunX),
		paired(per(r.Exec, r.PeerExec, "exec"), r.ExecX), nav, bytes(r.DiskSix, r.DiskFirst), bytes(r.RSSNext, r.DiskNext)}
}

// realBarValues are the bars of realRatios' columns, with their names for the bar summary.
var realBarValues = []struct {
	what, bar string
	limit     float64
}{
	{"first command (cold) ÷ the artifact's per command", "≤ 1.0x (stretch 0.6x)", barFirst},
	{"FLT re-run (`break f#2`) ÷ the artifact's per command", "≤ 1.0x", barRerun},
	{"exec ÷ the artifact's exec", "≤ 1.0x", barExec},
	{"navigation from the recording ÷ the artifact's per command", "≤ 0.02x", barNav},
	{"disk after six commands ÷ the first recording", "≤ 2x", barDisk},
	{"one more session's memory in the daemon ÷ its recording on disk", "≤ 1x", barMemory},
}

// realRatiosRow renders one library's ratios, each with whether it meets its bar.
func realRatiosRow(r *RealRepoRow) string {
	cells := []string{r.Repo.Name}
	for i, x := range realRatios(r) {
		if !x.ok {
			cells = append(cells, x.why)
			continue
		}
		cell := fmt.Sprintf("%s (%s)", ratio(x.x), met(x.x <= realBarValues[i].limit))
		if i == len(realBarValues)-1 && r.RSS > 0 && r.DiskFirst > 0 {
			// the memory's bar is judged on one more session; the first's, with the daemon's warm-up, is shown too
			cell = fmt.Sprintf("%s (%s; the first on a new daemon: %s)", ratio(x.x), met(x.x <= realBarValues[i].limit),
				ratio(float64(r.RSS)/float64(r.DiskFirst)))
		}
		cells = append(cells, cell)
	}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// realBars summarises the bars over every library: the worst ratio, and met only when every
// library meets it.
func realBars(rows []*RealRepoRow) []bar {
	answered := 0
	var broken []string
	for _, r := range rows {
		if r.Answered() {
			answered++
		} else {
			broken = append(broken, r.Repo.Name)
		}
	}
	measured := fmt.Sprintf("%d of %d", answered, len(rows))
	if len(broken) > 0 {
		measured += " (not: " + strings.Join(broken, ", ") + ")"
	}
	out := []bar{{"real repositories: every command answers", "on every workload", measured, met(answered == len(rows))}}
	for i, v := range realBarValues {
		worst, worstName, ok := 0.0, "", true
		var missing []string
		for _, r := range rows {
			x := realRatios(r)[i]
			if !x.ok {
				missing = append(missing, r.Repo.Name)
				ok = false
				continue
			}
			if x.x > v.limit {
				ok = false
			}
			if worstName == "" || x.x > worst {
				worst, worstName = x.x, r.Repo.Name
			}
		}
		m := "—"
		if worstName != "" {
			m = ratio(worst) + " (" + worstName + ")"
		}
		if len(missing) > 0 {
			m += "; no answer or not measured: " + strings.Join(missing, ", ")
		}
		out = append(out, bar{"real repositories, the worst: " + v.what, v.bar, m, met(ok)})
	}
	return out
}

// size renders a byte count with three significant digits in a fitting unit (powers of 1000).
func size(n int64) string {
	f := float64(n)
	switch {
	case n == 0:
		return "—"
	case f >= 1e9:
		return fmt.Sprintf("%.3g GB", f/1e9)
	case f >= 1e6:
		return fmt.Sprintf("%.3g MB", f/1e6)
	case f >= 1e3:
		return fmt.Sprintf("%.3g kB", f/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
