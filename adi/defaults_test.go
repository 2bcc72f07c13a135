package adi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// defaultsSource has the shapes a def takes in real libraries: decorated, with comments between
// parameters (matplotlib's figure), annotations, strings holding commas and '=', keyword-only
// parameters, and defaults that are not literals.
const defaultsSource = `import functools

@functools.lru_cache(maxsize=None)
def figure(num=None,  # autoincrement if None, else integer from 1-N
           figsize=None,  # defaults to rc figure.figsize
           frameon=True, FigureClass=object,
           sep=", ", eq='a=b', *args, limit: int = -3, ratio=0.5, names=(), mode="r", **kw):
    return num

def plain(a, b=2, tol=0.0000001, w=1.50, f=1.0, big=10.0):
    return a
`

func TestLiteralDefaults(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "lib.py")
	require.NoError(t, os.WriteFile(file, []byte(defaultsSource), 0o644))
	tr := newTrace(dir)
	assert.Equal(t, map[string]string{"num": "None", "figsize": "None", "frameon": "True", "sep": "', '",
		"eq": "'a=b'", "limit": "-3", "ratio": "0.5", "names": "()", "mode": "'r'"},
		tr.Defaults(&Code{Func: "lib:figure", File: file, Line: 3}))
	// floats whose repr is not their text (1e-07, 1.5) are not read
	assert.Equal(t, map[string]string{"b": "2", "f": "1.0", "big": "10.0"}, tr.Defaults(&Code{Func: "lib:plain", File: file, Line: 10}))
	assert.Nil(t, tr.Defaults(&Code{Func: "gone:f", File: filepath.Join(dir, "gone.py"), Line: 1}))
	assert.Nil(t, tr.Defaults(&Code{Func: "lib:<module>", File: file, Line: 1}))  // the def below is another function's
	assert.Nil(t, tr.Defaults(&Code{Func: "lib:<lambda>", File: file, Line: 10})) // nor is a def near a lambda its own
}
