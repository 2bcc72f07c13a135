package bridge

import "time"

// IdleTimeout returns how long the Manager's sessions may stay unused before they are closed (0:
// never). Live sessions (package live) expire on the same clock.
func (m *Manager) IdleTimeout() time.Duration { return m.cfg.IdleTimeout }
