package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOverwriteFile: state.json is saved in place; a shorter save is padded with spaces to the
// file's length and still reads as the new JSON, and a big one is written whole.
func TestOverwriteFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	read := func() (map[string]any, int) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var v map[string]any
		require.NoError(t, json.Unmarshal(b, &v), "%q", b)
		return v, len(b)
	}
	first := `{"current":12,"current_fid":"m:long_name#12"}`
	require.NoError(t, overwriteFile(p, []byte(first)))
	v, n := read()
	assert.Equal(t, map[string]any{"current": 12.0, "current_fid": "m:long_name#12"}, v)
	assert.Equal(t, len(first), n)

	require.NoError(t, overwriteFile(p, []byte(`{"current":3}`)))
	v, n = read()
	assert.Equal(t, map[string]any{"current": 3.0}, v)
	assert.Equal(t, len(first), n, "padded to the file's length, not truncated")

	big := `{"current":4,"pad":"` + strings.Repeat("x", 5000) + `"}`
	require.NoError(t, overwriteFile(p, []byte(big)))
	v, n = read()
	assert.Equal(t, 4.0, v["current"])
	assert.Equal(t, len(big), n)

	require.NoError(t, overwriteFile(p, []byte(`{"current":5}`)))
	v, n = read()
	assert.Equal(t, map[string]any{"current": 5.0}, v)
	assert.Equal(t, 13, n, "a file much longer than its contents is replaced")
}
