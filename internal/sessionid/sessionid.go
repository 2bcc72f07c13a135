// Package sessionid makes and checks the ids that name sessions (bridge's recorded sessions and
// live's stateful ones): ids appear in paths, URLs and command lines, so they are restricted to
// letters, digits, '-' and '_'. It runs no goroutines.
package sessionid

import (
	"crypto/rand"
	"encoding/hex"
)

// MaxLen is the longest id Valid accepts.
const MaxLen = 64

// New returns prefix followed by n random bytes in hex.
func New(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// Valid reports whether id may name a session: 1 to MaxLen letters, digits, '-' and '_'.
func Valid(id string) bool {
	if id == "" || len(id) > MaxLen {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
