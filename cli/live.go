package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// lastLiveFile records the live session the last `adi live start` opened, for the commands given
// without --live.
const lastLiveFile = "cli-last-live"

// LiveInvocation is one `adi live` command, parsed.
type LiveInvocation struct {
	// Name is the subcommand as typed ("break"), for messages.
	Name string
	// Method is the JSON-RPC method (live.set_breakpoint); "live" is added to Params, except for
	// live.start, live.attach and live.list.
	Method string
	Params map[string]any
	// Live is --live or $ADI_LIVE ("" uses the last session started in this state directory).
	Live string
	// JSON prints the JSON answer instead of its text.
	JSON bool
}

// LiveID derives the live session of a target command started in dir: starting the same command
// again in the same directory starts that session over.
func LiveID(dir, target string) string { return derivedID("live-", "live\x00", dir, target) }

// Live runs one live command on the daemon and prints its answer; it returns the exit code: 0
// answered (whatever the program did), 1 refused or failed (one line on stderr), 2 usage.
func Live(ctx context.Context, env *Env, inv LiveInvocation) int {
	params := map[string]any{}
	for k, v := range inv.Params {
		params[k] = v
	}
	switch inv.Method {
	case "live.start":
		if _, ok := params["id"]; !ok {
			params["id"] = LiveID(env.Dir, fmt.Sprint(params["command"]))
		}
		params["dir"], params["replace"] = env.Dir, true
		if env.Python != "" {
			params["python"] = env.Python
		}
	case "live.attach":
		if _, ok := params["id"]; !ok {
			params["id"] = inv.Live
			if inv.Live == "" {
				params["id"] = LiveID(env.Dir, "attach "+fmt.Sprint(params["address"]))
			}
		}
		params["dir"], params["replace"] = env.Dir, true
	case "live.list":
	default:
		id, code := chooseLive(env, inv)
		if code != ExitOK {
			return code
		}
		params["live"] = id
	}
	rpc, err := daemonRPC(ctx, env)
	if err != nil {
		return fail(env, err)
	}
	defer rpc.close()
	var raw json.RawMessage
	if err := rpc.call(ctx, inv.Method, params, &raw); err != nil {
		return fail(env, err)
	}
	switch inv.Method {
	case "live.start", "live.attach":
		writeLast(env, lastLiveFile, fmt.Sprint(params["id"]))
	case "live.close":
		if readLast(env, lastLiveFile) == params["live"] {
			_ = os.Remove(filepath.Join(env.StateDir, lastLiveFile))
		}
	}
	if inv.JSON {
		fmt.Fprintf(env.Stdout, "%s\n", raw)
		return ExitOK
	}
	if inv.Method == "live.list" {
		printLiveList(env, raw)
		return ExitOK
	}
	var ans struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &ans)
	printText(env, ans.Text)
	return ExitOK
}

// chooseLive picks the live session: --live/$ADI_LIVE, else the last one started here.
func chooseLive(env *Env, inv LiveInvocation) (string, int) {
	if inv.Live != "" {
		return inv.Live, ExitOK
	}
	if id := readLast(env, lastLiveFile); id != "" {
		return id, ExitOK
	}
	fmt.Fprintf(env.Stderr, "adi: live %s: no live session yet in %s; start one first: adi live start \"python t.py\"\n", inv.Name, env.StateDir)
	return "", ExitUsage
}

func printLiveList(env *Env, raw json.RawMessage) {
	var list struct {
		Live []struct {
			ID      string `json:"id"`
			Command string `json:"command"`
			Dir     string `json:"dir"`
			State   string `json:"state"`
			Run     int    `json:"run"`
		} `json:"live"`
	}
	_ = json.Unmarshal(raw, &list)
	if len(list.Live) == 0 {
		fmt.Fprintln(env.Stdout, "No live sessions. Start one with: adi live start \"python t.py\"")
		return
	}
	fmt.Fprintf(env.Stdout, "Live sessions (%d):\n", len(list.Live))
	for _, l := range list.Live {
		fmt.Fprintf(env.Stdout, "  %s  %s  (%s, run %d) in %s\n", l.ID, l.Command, l.State, l.Run, l.Dir)
	}
}
