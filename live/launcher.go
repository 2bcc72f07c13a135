package live

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/cachedir"
	"github.com/adi-bridge/adi/probe"
)

// The launcher (adi_live_run.py) and the helper interact calls (adi_live.py), embedded and
// installed into the cache like the probe.
//
//go:embed python/adi_live_run.py python/adi_live.py
var pyFiles embed.FS

// installLauncher writes the launcher into the cache (when that copy is not there yet) and
// returns its directory.
func installLauncher() (string, error) {
	sub, err := fs.Sub(pyFiles, "python")
	if err != nil {
		return "", err
	}
	dir, err := cachedir.Install(sub, "live")
	if err != nil {
		return "", fmt.Errorf("install adi's live-mode launcher: %w", err)
	}
	return dir, nil
}

// installHelpers installs what a run of live mode needs in the cache: the launcher and the probe
// (whose target, watch recorder and evaluator the launcher and interact use); it returns their
// directories.
func installHelpers() (launcher, probeDir string, err error) {
	if launcher, err = installLauncher(); err != nil {
		return "", "", err
	}
	if probeDir, err = probe.Install(); err != nil {
		return "", "", err
	}
	return launcher, probeDir, nil
}

// launcherConfig is the launcher's one argument.
type launcherConfig struct {
	Mode   string   `json:"mode"`
	Path   string   `json:"path,omitempty"`
	Module string   `json:"module,omitempty"`
	Code   string   `json:"code,omitempty"`
	Argv   []string `json:"argv"`
	Stdin  string   `json:"stdin"`
	Dump   string   `json:"dump"`
	Token  string   `json:"token"`
	Probe  string   `json:"probe"` // the probe's directory: the launcher starts the target with adi_probe.target
	// Watch is the config of the probe's watch recorder (watch.go), started idle before the target.
	Watch *watchLaunch `json:"watch,omitempty"`
}

// launchArgs is the debugpy launch request that runs prog through the launcher in launcherDir,
// which starts it with the probe in probeDir. dump is where the launcher's faulthandler writes
// when asked (SIGUSR2); token marks its exit report; w configures the watch recorder.
func launchArgs(prog *bridge.Program, launcherDir, probeDir, dump, token string, w watchLaunch) (map[string]any, error) {
	t := prog.Target
	cfg := launcherConfig{Mode: t.Mode, Path: t.Path, Module: t.Module, Code: t.Code, Argv: t.Argv, Stdin: t.Stdin,
		Dump: dump, Token: token, Probe: probeDir, Watch: &w}
	if cfg.Argv == nil {
		cfg.Argv = []string{}
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode the launcher's config: %w", err)
	}
	return prog.LaunchArgs("adi live", filepath.Join(launcherDir, "adi_live_run.py"), []string{string(b)}, launcherDir, probeDir), nil
}
