package dapproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/internal/faces"
)

// launch rewrites a launch request so the probe runs the program and records it into a new
// session. A launch adi cannot record is forwarded unchanged, and the editor's debug console says
// why.
func (l *link) launch(m *dap.Message, raw []byte) []byte {
	l.mu.Lock()
	l.kind = "launch"
	b := l.be
	l.mu.Unlock()
	mgr := l.srv.cfg.Manager
	if mgr == nil || b == nil || b.ad == nil {
		return raw
	}
	args, err := getMember(raw, "arguments")
	if err != nil {
		return raw
	}
	nodelay, err := dap.InstallNoDelay()
	if err != nil {
		l.notice(fmt.Sprintf("not recording this run: %v", err))
		return raw
	}
	wd, _ := os.Getwd()
	plan, err := planLaunch(args, launchEnv{
		python: l.srv.cfg.Python.Path, environ: os.Environ(), nodelay: nodelay, tag: b.ad.Tag, wd: wd,
		session: l.srv.cfg.Session,
	})
	if err == nil && plan.skip != "" {
		err = fmt.Errorf("%s", plan.skip)
	}
	if err != nil {
		l.notice(fmt.Sprintf("not recording this run: %v", err))
		return raw
	}
	ctx, cancel := context.WithTimeout(l.ctx, 30*time.Second)
	defer cancel()
	x, err := mgr.StartExternal(ctx, "", plan.opts)
	if err != nil {
		l.notice(fmt.Sprintf("not recording this run: %s", faces.WebSocket.Render(err.Error())))
		return raw
	}
	newArgs, err := rewriteLaunch(args, plan, x)
	if err == nil {
		raw, err = setMember(raw, "arguments", newArgs)
	}
	if err != nil {
		l.notice(fmt.Sprintf("not recording this run: cannot rewrite the launch: %v", err))
		_ = x.Finish(-1)
		return raw
	}
	r := newRecorder(l, x, plan.processName)
	l.mu.Lock()
	l.rec = r
	l.mu.Unlock()
	s := x.Session()
	l.log.Info("recording the editor's run", "session", s.ID, "command", s.Opts.Command)
	if fn := l.srv.cfg.OnSession; fn != nil {
		fn(s.ID, s.Dir)
	}
	return raw
}

// needDebugpy checks, before a launch reaches debugpy, that the interpreter it names (the
// "python" or "pythonPath" member) has debugpy; the check is cached per interpreter. Without
// one, debugpy runs the adapter's own interpreter, which FindPython chose for its debugpy. It
// returns the one line that says it has not and how to install it, or "". Without the check,
// debugpy's adapter waits 15 s for a debuggee that cannot start.
func (l *link) needDebugpy(raw []byte) string {
	args, err := getMember(raw, "arguments")
	if err != nil {
		return ""
	}
	py := debuggeePython(args)
	if py == "" || py == l.srv.cfg.Python.Path {
		return ""
	}
	ctx, cancel := context.WithTimeout(l.ctx, 30*time.Second)
	defer cancel()
	if err := dap.NeedDebugpy(ctx, py, "the editor's debug session"); err != nil {
		return errkind.Unprefixed(err.Error())
	}
	return ""
}

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
