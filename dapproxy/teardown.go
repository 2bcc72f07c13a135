package dapproxy

import (
	"context"
)

// teardown ends the link: the editor's connection, the adapter and every process of its run. An
// editor that left without disconnect gets DAP's default: debugpy is asked to disconnect (a
// launched debuggee ends, an attached one is left running) before its processes are ended.
func (l *link) teardown(why string) {
	l.once.Do(func() {
		l.log.Debug("closing the connection", "why", why)
		l.mu.Lock()
		b, polite, keep := l.be, !l.disconnectSent && !l.adapterGone, l.keepDebuggee
		l.leaving = true
		l.mu.Unlock()
		if b != nil && polite {
			select {
			case <-b.ended:
			default:
				ctx, cancel := context.WithTimeout(context.Background(), politeLimit)
				_, err := b.call(ctx, "disconnect", map[string]any{"restart": false})
				cancel()
				if err != nil {
					l.log.Debug("disconnect on the editor's behalf", "error", err)
				}
			}
		}
		close(l.done)
		l.cancel()
		l.editor.close()
		_ = l.econn.Close()
		switch {
		case b == nil:
		case keep:
			b.detach()
		default:
			b.close()
		}
		if r := l.ownRecording(); r != nil {
			r.finish()
		}
		l.srv.forget(l)
	})
}
