package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
)

// watchedProgram waits for the file go before calling work six times, and for the file end
// before it ends: the test watches work in between, and asks about what was caught while the
// program still runs.
const watchedProgram = `import os
import time


def work(x):
    y = x * 2
    if y > 4:
        y += 1
    return y


def wait(name):
    while not os.path.exists(name):
        time.sleep(0.02)


def main():
    wait("go")
    total = 0
    for i in range(6):
        total += work(i)
    print("total", total)
    wait("end")


main()
`

// TestDAPProxyEditorWatch: an extension watches a function of the program the editor launched
// (adi/watch) while it runs; the following calls' FLTs are recorded by the run itself, so adi/caught
// lists them and adi/flt answers about one without a re-run, also after the run ended.
func TestDAPProxyEditorWatch(t *testing.T) {
	p := startProxy(t, proxyOptions{record: true, rerun: 5 * time.Second})
	var mu sync.Mutex
	var started []string // the purposes of the runs that started
	finishedFLTs := -1   // the FLTs the editor's run_finished counted
	cancel := p.mgr.Subscribe(func(ev bridge.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case ev.Kind == "run_started":
			started = append(started, ev.Purpose)
		case ev.Kind == "run_finished" && ev.Purpose == bridge.ExternalPurpose:
			finishedFLTs = ev.FLTs
		}
	})
	defer cancel()
	dir := t.TempDir()
	prog := filepath.Join(dir, "watched.py")
	require.NoError(t, os.WriteFile(prog, []byte(watchedProgram), 0o644))

	e := dialEditor(t, p.addr)
	e.Call("initialize", map[string]any{"adapterID": "debugpy"})
	launch := e.Send("launch", appLaunch(t, prog))
	e.Event("initialized")
	e.Call("configurationDone", nil)
	require.True(t, e.Response(launch).Success)

	// the program runs (waiting for go): its control server answers once the probe started
	var watch json.RawMessage
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.Response(e.Send("adi/watch", map[string]any{"func": "work", "cond": "x >= 2", "max": 2}))
		if r.Success {
			watch = r.Raw
			break
		}
		require.True(t, time.Now().Before(deadline), "adi/watch failed: %s", r.ErrMessage)
		time.Sleep(50 * time.Millisecond)
	}
	var text string
	require.NoError(t, json.Unmarshal(mustGet(t, watch, "body", "text"), &text))
	assert.Equal(t, "Watching watched:work if x >= 2, at most 2 (watch 1): the FLT of each following call is recorded as the program runs. "+
		"adi/caught lists what it caught; adi/flt with a fid shows one.", text)
	assert.JSONEq(t, `{"watch":1,"func":"work","cond":"x >= 2","max":2,"matches":["watched:work"]}`, string(mustGet(t, watch, "body", "result")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o644))

	const caught = "watch 1 work if x >= 2, at most 2: 2 caught: watched:work#3, watched:work#4 (done: it caught its max)"
	deadline = time.Now().Add(30 * time.Second)
	for {
		r := e.Call("adi/caught", nil)
		require.NoError(t, json.Unmarshal(mustGet(t, r.Raw, "body", "text"), &text))
		if text == caught {
			break
		}
		require.True(t, time.Now().Before(deadline), "the watch did not catch work#3 and work#4: %s", text)
		time.Sleep(50 * time.Millisecond)
	}

	// the program still runs (waiting for end): the FLT is the run's own
	flt := e.Call("adi/flt", map[string]any{"frame": "watched:work#3"})
	require.NoError(t, json.Unmarshal(mustGet(t, flt.Raw, "body", "text"), &text))
	assert.Equal(t, wantWorkFLT, text)
	tree := e.Call("adi/callTree", map[string]any{"frame": "watched:main#1", "width": 10}) // every call, not an overview
	assert.Contains(t, string(tree.Raw), "watched:work#6")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "end"), nil, 0o644))
	e.Event("terminated")
	r := e.Call("adi/caught", nil)
	require.NoError(t, json.Unmarshal(mustGet(t, r.Raw, "body", "text"), &text))
	assert.Equal(t, caught, text, "after the run ended: from its result")
	flt = e.Call("adi/flt", map[string]any{"frame": "watched:work#4"})
	require.NoError(t, json.Unmarshal(mustGet(t, flt.Raw, "body", "text"), &text))
	assert.Equal(t, wantWork4FLT, text, "after the run ended")
	r = e.Response(e.Send("adi/watch", map[string]any{"func": "work"}))
	assert.False(t, r.Success)
	assert.Contains(t, r.ErrMessage, "the program's run has ended")
	e.Call("disconnect", map[string]any{"terminateDebuggee": true})

	p.stop()
	infos := p.mgr.List()
	require.Len(t, infos, 1)
	s, err := p.mgr.Get(context.Background(), infos[0].ID)
	require.NoError(t, err)
	runs, _ := os.ReadDir(filepath.Join(s.Dir, "runs"))
	assert.Len(t, runs, 1, "the editor's run only: no re-run recorded the FLTs")
	assert.Equal(t, 2, s.Info().FLTs)
	cancel()
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{bridge.ExternalPurpose}, started, "no run but the editor's")
	assert.Equal(t, 2, finishedFLTs, "the editor's run_finished counts the FLTs its run recorded")
}

// wantWorkFLT is adi/flt's answer for work#3 (x = 2).
const wantWorkFLT = `Frame: watched:work#3   (caller watched:main#1, line 21)
Args: x = 2

   6 | y = x * 2
     |   + y = 4
   7 | if y > 4:  → False
   9 | return y

Return: 4
`

// wantWork4FLT is adi/flt's answer for work#4 (x = 3), after the run ended.
const wantWork4FLT = `Frame: watched:work#4   (caller watched:main#1, line 21)
Args: x = 3

   6 | y = x * 2
     |   + y = 6
   7 | if y > 4:  → True
   8 | y += 1
     |   ~ y = 7 (was 6)
   9 | return y

Return: 7
`
