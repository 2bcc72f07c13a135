package webui

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func get(t *testing.T, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	Handler().ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func TestHandlerServesThePage(t *testing.T) {
	w := get(t, http.MethodGet, "/")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Header().Get("Content-Type"), "text/html")
	assert.Contains(t, w.Body.String(), `<script type="module" src="js/main.js"></script>`)
	assert.Contains(t, w.Header().Get("Content-Security-Policy"), "script-src 'self'")
	assert.Contains(t, w.Header().Get("Content-Security-Policy"), "frame-ancestors 'none'")
	assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
	assert.Equal(t, "no-referrer", w.Header().Get("Referrer-Policy"))

	w = get(t, http.MethodGet, "/js/main.js")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Header().Get("Content-Type"), "javascript")
}

func TestHandlerRefusesWritesAndListings(t *testing.T) {
	w := get(t, http.MethodPost, "/")
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	assert.Equal(t, "GET, HEAD", w.Header().Get("Allow"))
	assert.Equal(t, http.StatusNotFound, get(t, http.MethodGet, "/js/").Code)
	assert.Equal(t, http.StatusNotFound, get(t, http.MethodGet, "/nothing.js").Code)
}

// TestEveryReferenceIsEmbedded checks that each file the page names (in index.html, and in the
// import lines of the modules) is in the binary.
func TestEveryReferenceIsEmbedded(t *testing.T) {
	files := FS()
	check := func(from, ref string) {
		p := path.Join(path.Dir(from), ref)
		_, err := fs.Stat(files, p)
		assert.NoError(t, err, "%s refers to %s, which is not embedded", from, ref)
	}
	html, err := fs.ReadFile(files, "index.html")
	require.NoError(t, err)
	refs := regexp.MustCompile(`(?:src|href)="([^"#:]+)"`).FindAllStringSubmatch(string(html), -1)
	require.NotEmpty(t, refs)
	for _, m := range refs {
		check("index.html", m[1])
	}
	imports := regexp.MustCompile(`(?m)^import .* from '(\./[^']+)';$`)
	modules, err := fs.Glob(files, "js/*.js")
	require.NoError(t, err)
	require.NotEmpty(t, modules)
	for _, mod := range modules {
		src, err := fs.ReadFile(files, mod)
		require.NoError(t, err)
		for _, m := range imports.FindAllStringSubmatch(string(src), -1) {
			check(mod, m[1])
		}
		assert.False(t, strings.Contains(string(src), "innerHTML"), "%s: put server data on the page as text, never as HTML", mod)
	}
}
