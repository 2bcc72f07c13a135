'use strict';
// A DebugClient (from @vscode/debugadapter-testsupport: VS Code's own DAP test client) connected
// to a target's port, with what its socket mode lacks: every wait is bounded, and every event
// is kept so a test can look at what arrived before it started waiting.

const { DebugClient } = require('@vscode/debugadapter-testsupport');

const LIMIT_MS = 20000;

function within(promise, what, ms = LIMIT_MS) {
  let t;
  const timeout = new Promise((_, reject) => {
    t = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(t));
}

const EVENTS = ['initialized', 'stopped', 'continued', 'exited', 'terminated', 'output', 'process',
  'thread', 'debugpyAttach', 'debugpyWaitingForServer', 'module', 'breakpoint'];

class Client {
  constructor(port) {
    this.port = port;
    this.dc = new DebugClient('unused', 'unused', 'python');
    this.events = [];
    this.waiters = [];
    for (const name of EVENTS) {
      this.dc.on(name, (e) => this._event(e));
    }
  }

  async start() {
    await within(this.dc.start(this.port), `connect to ${this.port}`);
    return this;
  }

  _event(e) {
    this.events.push(e);
    this.waiters = this.waiters.filter((w) => !w(e));
  }

  // next waits for the first event named name that matches pred and arrived after the events
  // already consumed by earlier next calls of that name.
  next(name, pred = () => true) {
    this.cursor = this.cursor || {};
    const from = this.cursor[name] || 0;
    const take = (i) => {
      this.cursor[name] = i + 1;
      return this.events[i];
    };
    for (let i = from; i < this.events.length; i++) {
      if (this.events[i].event === name && pred(this.events[i])) {
        return Promise.resolve(take(i));
      }
    }
    return within(new Promise((resolve) => {
      this.waiters.push((e) => {
        if (e.event !== name || !pred(e)) return false;
        resolve(take(this.events.indexOf(e)));
        return true;
      });
    }), `event ${name}`);
  }

  output(category) {
    return this.events.filter((e) => e.event === 'output' && e.body.category === category)
      .map((e) => e.body.output).join('');
  }

  request(promise, what) {
    return within(promise, what);
  }

  async stop() {
    try {
      await within(this.dc.disconnectRequest({}), 'disconnect', 5000);
    } catch (e) {
      // the session may be over already
    }
    this.dc.stopAdapter();
  }
}

module.exports = { Client, within, LIMIT_MS };
