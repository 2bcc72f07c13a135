// Package privdir makes the private temporary directories that hold the probe's control sockets
// (live mode's watch recorder, an editor run's control): mode 0700 whatever the process's umask,
// so that no other user can reach a socket inside, even in the moment between the probe binding
// it and making it 0600 (probe/python/adi_probe/watch.py, _listen).
package privdir

import "os"

// MkdirTemp is os.MkdirTemp("", pattern) with the directory's mode set to 0700 (os.MkdirTemp's
// 0700 is cut by the umask).
func MkdirTemp(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}
