// Package cachedir installs embedded files (the Python probe, the TCP_NODELAY sitecustomize) into a
// per-user cache directory whose name carries a hash of the content, so a new adi binary never runs
// an old copy and two adi processes never write the same directory.
package cachedir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// Root returns the directory adi caches files in: $ADI_CACHE_DIR, or "adi" under the user's cache
// directory, or under the temporary directory when the user has none.
func Root() string {
	if d := os.Getenv("ADI_CACHE_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "adi")
	}
	return filepath.Join(os.TempDir(), "adi-cache")
}

// Install copies every file of fsys into Root()/<name>-<hash> and returns that directory. The copy
// is made in a temporary directory and renamed into place, so a directory that exists is complete.
// The hash of each name's files is computed once per process (they are embedded: they cannot
// change); a call after the first costs one Stat.
func Install(fsys fs.FS, name string) (string, error) {
	sum, err := hashOnce(fsys, name)
	if err != nil {
		return "", fmt.Errorf("hash embedded %s: %w", name, err)
	}
	root := Root()
	dir := filepath.Join(root, name+"-"+sum[:12])
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("create cache directory %s (set ADI_CACHE_DIR to a writable place): %w", root, err)
	}
	tmp, err := os.MkdirTemp(root, name+"-tmp-")
	if err != nil {
		return "", fmt.Errorf("install %s into %s: %w", name, root, err)
	}
	defer os.RemoveAll(tmp)
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(tmp, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("install %s into %s: %w", name, root, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("install %s: %w", name, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr == nil {
			return dir, nil // another adi process installed the same content first
		}
		return "", fmt.Errorf("install %s into %s: %w", name, dir, err)
	}
	return dir, nil
}

var (
	hashMu sync.Mutex
	hashes = map[string]string{} // name -> hashFS of its files
)

// hashOnce returns hashFS(fsys), computed on the first call for name.
func hashOnce(fsys fs.FS, name string) (string, error) {
	hashMu.Lock()
	defer hashMu.Unlock()
	if sum, ok := hashes[name]; ok {
		return sum, nil
	}
	sum, err := hashFS(fsys)
	if err == nil {
		hashes[name] = sum
	}
	return sum, err
}

func hashFS(fsys fs.FS) (string, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
