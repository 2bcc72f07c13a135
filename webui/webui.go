package webui

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var files embed.FS

// csp allows the page its own scripts, styles and WebSocket only ('self' covers ws:// to the
// same host and port), and no framing, plugins, forms posting elsewhere or inline code.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// FS returns the viewer's files, rooted at the directory that holds index.html.
func FS() fs.FS {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic("webui: the embedded static directory is missing: " + err.Error()) // cannot happen: go:embed checked it
	}
	return sub
}

// Handler serves the viewer's files (GET and HEAD only) with headers that keep other sites from
// framing the page and the browser from guessing types or sending the page's address elsewhere.
// Directory listings are not served; "/" is index.html.
func Handler() http.Handler {
	files := http.FileServerFS(FS())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "adi: the viewer's files are read with GET", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path != "/" && strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
