package adi

import (
	"os"
	"path/filepath"
	"strconv"
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

def plain(a, b=2):
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
	assert.Equal(t, map[string]string{"b": "2"}, tr.Defaults(&Code{Func: "lib:plain", File: file, Line: 10}))
	assert.Nil(t, tr.Defaults(&Code{Func: "gone:f", File: filepath.Join(dir, "gone.py"), Line: 1}))
	assert.Nil(t, tr.Defaults(&Code{Func: "lib:<module>", File: file, Line: 1}))  // the def below is another function's
	assert.Nil(t, tr.Defaults(&Code{Func: "lib:<lambda>", File: file, Line: 10})) // nor is a def near a lambda its own
}

// TestCallTreeOverview: a node shows its calls as an overview: the arguments a call left at their
// literal defaults are left out, at most perFunction calls of one function are shown, and calls
// of plumbing dunders (__eq__, __hash__) are counted with the calls left out, not shown.
func TestCallTreeOverview(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app.py")
	require.NoError(t, os.WriteFile(app, []byte("def main():\n    pass\ndef fmt(x, sep=', ', strict=False, base=10):\n    pass\n"), 0o644))
	frames := []Frame{ret("app:main", 1, -1, 0, app, 1, "None")}
	for k := 1; k <= 5; k++ {
		frames = append(frames,
			ret("app:fmt", k, 0, 2, app, 3, "'x'", Arg{"x", strconv.Itoa(k)}, Arg{"sep", "', '"}, Arg{"strict", "True"}, Arg{"base", "10"}),
			ret("app:Key.__eq__", k, 0, 2, app, 9, "False", Arg{"self", "k"}, Arg{"other", "j"}))
	}
	frames = append(frames, ret("app:Key.__init__", 1, 0, 2, app, 9, "None", Arg{"self", "k"}))
	tr := newTrace(dir, frames...)
	assert.Equal(t, `Call tree of app:main#1 (depth 2, width 10):
app:main#1() → None
  app:fmt#1(x=1, strict=True) → 'x'
  app:fmt#2(x=2, strict=True) → 'x'
  app:fmt#3(x=3, strict=True) → 'x'
  app:Key.__init__#1(self=k) → None
  … 7 more calls (5 to Key.__eq__, 2 to fmt)
`, mustTree(t, tr, 0, TreeOptions{}).Text(TextOptions{}))
}
