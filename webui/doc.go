// Package webui owns adi's browser viewer: the static page (HTML, CSS and plain JavaScript
// modules, no framework and no build step) embedded in the binary with go:embed, and the HTTP
// handler that serves it. `adi serve` mounts the handler at "/" (server.Config.Static).
//
// The page itself holds no data and no secret: it reads the access token from its URL fragment
// (#token=…, which browsers never send to a server), moves it into the adi_token cookie, and
// then does everything through the server's WebSocket JSON-RPC API (docs/api.md): sessions,
// the call tree (trace.*), FLTs and navigation (adi.*), and live session events. Its tests run
// in a real browser: integration/browser, driven by integration/browser_test.go.
package webui
