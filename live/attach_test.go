package live

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/adi-bridge/adi/internal/faces"
)

func TestCheckAttachAddr(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:5678", "localhost:5678", "[::1]:5678", "127.0.0.2:1"} {
		assert.NoError(t, CheckAttachAddr(ok, false), ok)
	}
	for addr, want := range map[string]string{
		"0.0.0.0:5678":   "live.attach 0.0.0.0:5678 is not a loopback address, and debugpy runs whatever code its client sends over an unencrypted connection; forward the port to 127.0.0.1 (ssh -L, docker -p 127.0.0.1:PORT:PORT), or pass allow_remote if you mean it",
		"example.com:80": "live.attach example.com:80 is not a loopback address, and debugpy runs whatever code its client sends over an unencrypted connection; forward the port to 127.0.0.1 (ssh -L, docker -p 127.0.0.1:PORT:PORT), or pass allow_remote if you mean it",
		"5678":           "live.attach \"5678\" is not HOST:PORT, e.g. 127.0.0.1:5678 (what `python -m debugpy --listen 127.0.0.1:5678` listens on)",
		":5678":          "live.attach \":5678\" is not HOST:PORT, e.g. 127.0.0.1:5678 (what `python -m debugpy --listen 127.0.0.1:5678` listens on)",
		"127.0.0.1:0":    "live.attach \"127.0.0.1:0\": the port must be a number from 1 to 65535",
		"127.0.0.1:http": "live.attach \"127.0.0.1:http\": the port must be a number from 1 to 65535",
	} {
		err := CheckAttachAddr(addr, false)
		if assert.Error(t, err, addr) {
			assert.Equal(t, want, faces.WebSocket.Render(err.Error()), addr)
		}
	}
	assert.NoError(t, CheckAttachAddr("10.1.2.3:5678", true))
	assert.Error(t, CheckAttachAddr("10.1.2.3", true), "allow_remote still needs HOST:PORT")
}

// An attached session refuses restart in every state, and in Done everything that needs the
// program, pointing at attach instead of restart.
func TestAttachedRefusals(t *testing.T) {
	s := &Session{attach: "127.0.0.1:5678", state: Running}
	assert.Equal(t, []string{"set_breakpoint", "clear", "continue", "status", "close", "watch", "unwatch", "caught", "flt"}, s.valid())
	assert.Contains(t, s.refusal(CmdInteract), "the program is running, so nothing is paused")
	s.state = Runtime
	assert.Equal(t, []string{"set_breakpoint", "clear", "continue", "interact", "stack", "where", "status", "close", "watch", "unwatch", "caught", "flt"}, s.valid())
	assert.Equal(t, "adi attached to this program and did not start it, so it cannot run it again; start it again under `python -m debugpy --listen` and "+faces.Cmd("live.attach")+" to it", s.refusal(CmdRestart))
	s.state, s.why = Done, "the program exited"
	assert.Equal(t, []string{"set_breakpoint", "clear", "status", "close", "unwatch", "caught", "flt"}, s.valid())
	launched := &Session{state: Done}
	assert.Equal(t, Valid(Done), launched.valid())
}
