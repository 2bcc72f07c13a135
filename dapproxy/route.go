package dapproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
)

// attachArgs are the members of an attach request that decide where it goes.
type attachArgs struct {
	Connect *struct {
		Host string `json:"host"`
		Port int    `json:"port"`
	} `json:"connect"`
	Host         string `json:"host"`
	Port         int    `json:"port"`
	SubProcessID *int   `json:"subProcessId"`
}

// attach routes an attach request. An attach that connects to an adapter (a child process the
// proxy announced, or a program that called debugpy.listen) is forwarded to that adapter over
// TCP; any other attach goes to the connection's own adapter. The request itself passes
// unchanged. It reports whether the request should be forwarded (false: it was answered).
func (l *link) attach(m *dap.Message, raw []byte) bool {
	l.mu.Lock()
	l.kind = "attach"
	l.mu.Unlock()
	var a attachArgs
	_ = m.Body(&a)
	addr := ""
	if a.SubProcessID != nil {
		if c, ok := l.srv.takeChild(*a.SubProcessID); ok {
			addr = c.addr
			l.mu.Lock()
			l.parent = c.parent
			l.mu.Unlock()
		}
	}
	if addr == "" {
		host, port := a.Host, a.Port
		if a.Connect != nil {
			host, port = a.Connect.Host, a.Connect.Port
		}
		if port == 0 {
			return true // attach by process id or listen: the connection's own adapter does it
		}
		if host == "" {
			host = "127.0.0.1"
		}
		if l.srv.isSelf(host, port) {
			text := "this attach connects to adi itself, but adi knows no child process"
			if a.SubProcessID != nil {
				text += " " + strconv.Itoa(*a.SubProcessID)
			}
			text += "; start the parent process through adi dap first"
			_ = l.editor.send(errorResponse(m.Seq, m.Command, errkind.Route, text))
			return false
		}
		addr = net.JoinHostPort(host, strconv.Itoa(port))
	}
	if err := l.switchBackend(addr); err != nil {
		_ = l.editor.send(errorResponse(m.Seq, m.Command, errkind.Route,
			fmt.Sprintf("cannot reach the debug adapter at %s: %v; is the program still running?", addr, err)))
		return false
	}
	return true
}

// switchBackend moves the connection to the adapter listening at addr: it connects, replays the
// editor's initialize there (the editor already has its answer from the first adapter, so the
// reply and the telemetry before it are dropped), and ends the adapter the connection started
// with.
func (l *link) switchBackend(addr string) error {
	nb, err := dialBackend(addr, l.log.Named("child"), l.srv.tap(l.id, ToAdapter))
	if err != nil {
		return err
	}
	nb.quiet.Store(true)
	go l.readBackend(nb)
	l.mu.Lock()
	init := l.initArgs
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(l.ctx, 10*time.Second)
	defer cancel()
	if _, err := nb.call(ctx, "initialize", rawArgs(init)); err != nil {
		nb.close()
		return err
	}
	nb.quiet.Store(false)
	l.mu.Lock()
	old := l.be
	l.be, l.beErr = nb, nil
	l.mu.Unlock()
	if old != nil {
		old.close()
	}
	l.log.Debug("connection moved to a running adapter", "addr", addr)
	return nil
}

// routeChild rewrites a debugpyAttach event so the editor opens the child's session through the
// proxy, and remembers where the child's adapter really is. Without a listen address (nothing to
// point the editor at) the event passes unchanged and the child's session goes to debugpy
// directly.
func (l *link) routeChild(m *dap.Message) []byte {
	self := l.srv.childAddr()
	if self == nil {
		return m.Raw
	}
	var b struct {
		Connect *struct {
			Host string `json:"host"`
			Port int    `json:"port"`
		} `json:"connect"`
		SubProcessID *int `json:"subProcessId"`
	}
	if m.Body(&b) != nil || b.Connect == nil || b.SubProcessID == nil {
		return m.Raw
	}
	host, _ := json.Marshal(self.IP.String())
	port := []byte(strconv.Itoa(self.Port))
	raw, err := setPath(m.Raw, []string{"body", "connect", "host"}, host)
	if err == nil {
		raw, err = setPath(raw, []string{"body", "connect", "port"}, port)
	}
	if err != nil {
		l.log.Warn("cannot rewrite debugpyAttach; the child session goes to debugpy directly", "error", err)
		return m.Raw
	}
	real := net.JoinHostPort(b.Connect.Host, strconv.Itoa(b.Connect.Port))
	l.srv.addChild(*b.SubProcessID, childRoute{addr: real, parent: l})
	return raw
}
