// The JSON-RPC 2.0 client over the server's WebSocket (/rpc). The browser sends the adi_token
// cookie on the handshake by itself, so the token is in no URL. Calls run concurrently; the
// server answers each by id. session.event notifications are dispatched as 'event'. When the
// connection drops, pending calls fail and the client reconnects with a growing delay; 'status'
// tells the page (open, reconnecting).

/** RpcError is a JSON-RPC error answer: code, one-line message and data ({kind, valid?}). */
class RpcError extends Error {
  constructor(err) {
    super(err.message);
    this.code = err.code;
    this.data = err.data ?? {};
  }
}

export class Rpc extends EventTarget {
  #url;
  #ws = null;
  #next = 1;
  #pending = new Map();
  #delay = 500;

  constructor(url) {
    super();
    this.#url = url;
  }

  /** open connects and resolves once the socket is open; later drops reconnect by themselves. */
  open() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.#url);
      let opened = false;
      ws.addEventListener('open', () => {
        opened = true;
        this.#ws = ws;
        this.#delay = 500;
        this.#status('open');
        resolve();
      });
      ws.addEventListener('message', (e) => this.#receive(e.data));
      ws.addEventListener('close', () => {
        this.#ws = null;
        for (const p of this.#pending.values()) p.reject(new RpcError({code: 0, message: 'the connection to adi serve was lost; the call may still have run'}));
        this.#pending.clear();
        if (!opened) {
          reject(new Error('cannot connect to adi serve'));
          return;
        }
        this.#status('reconnecting');
        this.#reconnect();
      });
    });
  }

  #reconnect() {
    setTimeout(() => this.open().catch(() => this.#reconnect()), this.#delay);
    this.#delay = Math.min(this.#delay * 2, 8000);
  }

  #status(state) {
    this.dispatchEvent(new CustomEvent('status', {detail: state}));
  }

  #receive(text) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      if (m.method === 'session.event') {
        this.dispatchEvent(new CustomEvent('event', {detail: m.params}));
        continue;
      }
      const p = this.#pending.get(m.id);
      if (!p) continue;
      this.#pending.delete(m.id);
      if (m.error) p.reject(new RpcError(m.error));
      else p.resolve(m.result);
    }
  }

  /** call sends one request and resolves with its result (rejects with RpcError). */
  call(method, params = {}) {
    if (!this.#ws) return Promise.reject(new RpcError({code: 0, message: 'not connected to adi serve; reconnecting'}));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, {resolve, reject});
      this.#ws.send(JSON.stringify({jsonrpc: '2.0', id, method, params}));
    });
  }
}
