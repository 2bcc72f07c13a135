package dapproxy

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
)

var testLaunchEnv = launchEnv{
	python: "/usr/bin/python3", environ: []string{"HOME=/root"}, nodelay: "/cache/nodelay",
	tag: "tag1", wd: "/work/proj", session: bridge.Options{Timeout: 30 * time.Second},
}

func TestPlanLaunch(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		want       bridge.Options
		envAdd     map[string]string
		process    string
		skip       string
	}{
		{
			name: "a program with args", args: `{"program": "app.py", "args": ["a b", "-x"], "cwd": "/work/proj"}`,
			want: bridge.Options{Command: "python /work/proj/app.py 'a b' -x", Dir: "/work/proj", Root: "/work/proj",
				Env: []string{"PYTHONHASHSEED=0"}, Python: "/usr/bin/python3", Timeout: 30 * time.Second},
			envAdd:  map[string]string{"PYTHONHASHSEED": "0", "ADI_RUN": "tag1"},
			process: "app.py",
		},
		{
			name: "a module with the user's env, interpreter and flags",
			args: `{"module": "pkg.tool", "cwd": "/w", "python": ["/venv/bin/python", "-X", "dev"], "pythonArgs": ["-u"],
				"env": {"PYTHONPATH": "/lib", "PYTHONHASHSEED": "7", "GONE": null}}`,
			want: bridge.Options{Command: "/venv/bin/python -X dev -u -m pkg.tool", Dir: "/w", Root: "/w",
				Env: []string{"PYTHONHASHSEED=7", "PYTHONPATH=/lib"}, Python: "/usr/bin/python3", Timeout: 30 * time.Second},
			envAdd:  map[string]string{"PYTHONPATH": "/lib:/cache/nodelay", "ADI_RUN": "tag1"},
			process: "pkg.tool",
		},
		{
			name: "code as lines, default cwd, adi options",
			args: `{"code": ["import t", "t.main()"], "adi": {"root": "src", "exclude": ["*/gen/*"]}}`,
			want: bridge.Options{Command: "python -c 'import t\nt.main()'", Dir: "/work/proj", Root: "/work/proj/src",
				Exclude: []string{"*/gen/*"}, Env: []string{"PYTHONHASHSEED=0"}, Python: "/usr/bin/python3", Timeout: 30 * time.Second},
			envAdd:  map[string]string{"PYTHONHASHSEED": "0", "ADI_RUN": "tag1"},
			process: "-c",
		},
		{
			name: "a program outside the cwd is user code", args: `{"program": "/elsewhere/t.py", "cwd": "/work/proj", "stdin": "in.txt"}`,
			want: bridge.Options{Command: "python /elsewhere/t.py < /work/proj/in.txt", Dir: "/work/proj", Root: "/elsewhere",
				Env: []string{"PYTHONHASHSEED=0"}, Python: "/usr/bin/python3", Timeout: 30 * time.Second},
			envAdd:  map[string]string{"PYTHONHASHSEED": "0", "ADI_RUN": "tag1"},
			process: "/elsewhere/t.py",
		},
		{name: "args as one string", args: `{"program": "t.py", "args": "-x 1"}`,
			skip: `"args" is not a list of strings (adi records launches whose arguments are a list)`},
		{name: "two targets", args: `{"program": "t.py", "module": "m"}`, skip: "the launch names no single program, module or code to run"},
		{name: "recording off", args: `{"program": "t.py", "adi": {"record": false}}`, skip: `the launch configuration sets "adi": {"record": false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := planLaunch(json.RawMessage(tc.args), testLaunchEnv)
			require.NoError(t, err)
			assert.Equal(t, tc.skip, p.skip)
			if tc.skip != "" {
				return
			}
			assert.Equal(t, tc.want, p.opts)
			assert.Equal(t, tc.envAdd, p.envAdd)
			assert.Equal(t, tc.process, p.processName)
		})
	}
	_, err := planLaunch(json.RawMessage(`{"program": 3}`), testLaunchEnv)
	assert.ErrorContains(t, err, "the launch arguments are not what debugpy reads")
}

// The rewrite changes exactly program, args, rules and env (and drops module/code); every other
// member keeps its bytes and its place.
func TestRewriteLaunch(t *testing.T) {
	in := `{"name": "Python: Current File", "type": "debugpy", "request": "launch", "module": "pkg.tool",` +
		` "args": ["1"], "console": "integratedTerminal", "justMyCode": false, "env": {"A": "\u00e9"},` +
		` "rules": [{"module": "requests", "include": true}], "__sessionId": "abc"}`
	p, err := planLaunch(json.RawMessage(in), testLaunchEnv)
	require.NoError(t, err)
	x := &bridge.External{Script: "/c/probe/adi_probe_run.py", ConfigPath: "/s/runs/0000/config.json", ProbeDir: "/c/probe"}
	out, err := rewriteLaunch(json.RawMessage(in), p, x)
	require.NoError(t, err)
	assert.Equal(t, `{"name": "Python: Current File", "type": "debugpy", "request": "launch",`+
		` "args": ["/s/runs/0000/config.json"], "console": "integratedTerminal", "justMyCode": false,`+
		` "env": {"A": "\u00e9","ADI_RUN":"tag1","PYTHONHASHSEED":"0"},`+
		` "rules": [{"include":false,"path":"/c/probe/**"},{"module": "requests", "include": true}], "__sessionId": "abc",`+
		`"program":"/c/probe/adi_probe_run.py"}`, string(out))
}
