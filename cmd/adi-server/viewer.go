package main

import "github.com/adi-bridge/adi/webui"

// The browser viewer (package webui) is served by `adi serve` at "/", and serve prints the line
// that opens it, "adi viewer URL/#token=TOKEN": the token is in the fragment, which a browser never
// sends to a server, so it stays out of request logs; the page moves it into the adi_token cookie.
func init() {
	viewer = webui.Handler()
}
