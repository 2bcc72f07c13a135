package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// DaemonInfo is what the daemon writes to its state file: how to reach it and which process it is.
type DaemonInfo struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
}

// WriteDaemonInfo writes info to path atomically, readable by the user only (it holds the token).
func WriteDaemonInfo(path string, info DaemonInfo) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("adi: cannot create %s (set ADI_STATE_DIR to a writable directory): %w", filepath.Dir(path), err)
	}
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("adi: cannot write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("adi: cannot write %s: %w", path, err)
	}
	return nil
}

// ReadDaemonInfo reads the daemon's state file.
func ReadDaemonInfo(path string) (DaemonInfo, error) {
	var info DaemonInfo
	b, err := os.ReadFile(path)
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(b, &info); err != nil || info.URL == "" || info.Token == "" {
		return info, fmt.Errorf("adi: %s is not a daemon state file; delete it", path)
	}
	return info, nil
}

// RemoveDaemonInfo removes the state file if it still describes the process pid (a newer daemon
// may have replaced it).
func RemoveDaemonInfo(path string, pid int) {
	if info, err := ReadDaemonInfo(path); err == nil && info.PID == pid {
		_ = os.Remove(path)
	}
}
