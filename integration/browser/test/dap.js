// A small Debug Adapter Protocol client over TCP, playing an editor against `adi serve --dap`:
// requests with their responses, and events to wait for.

import {connect} from 'node:net';

export class DAP {
  #socket;
  #seq = 1;
  #buf = Buffer.alloc(0);
  #pending = new Map();
  #events = [];
  #waiters = [];

  /** open connects to HOST:PORT. */
  static open(addr) {
    const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), Number(addr.slice(addr.lastIndexOf(':') + 1))];
    return new Promise((resolve, reject) => {
      const dap = new DAP();
      dap.#socket = connect({host, port}, () => resolve(dap));
      dap.#socket.on('error', reject);
      dap.#socket.on('data', (b) => dap.#read(b));
    });
  }

  #read(chunk) {
    this.#buf = Buffer.concat([this.#buf, chunk]);
    for (;;) {
      const head = this.#buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(this.#buf.subarray(0, head).toString())[1]);
      if (this.#buf.length < head + 4 + len) return;
      const msg = JSON.parse(this.#buf.subarray(head + 4, head + 4 + len).toString());
      this.#buf = this.#buf.subarray(head + 4 + len);
      if (msg.type === 'response') {
        const p = this.#pending.get(msg.request_seq);
        this.#pending.delete(msg.request_seq);
        if (msg.success) p?.resolve(msg.body ?? {});
        else p?.reject(new Error(`${msg.command}: ${msg.message}`));
      } else if (msg.type === 'event') {
        this.#events.push(msg);
        this.#waiters = this.#waiters.filter((w) => !w(msg));
      }
    }
  }

  /** request sends a request and resolves with its response's body. */
  request(command, args = {}) {
    const seq = this.#seq++;
    const body = JSON.stringify({seq, type: 'request', command, arguments: args});
    this.#socket.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    return new Promise((resolve, reject) => this.#pending.set(seq, {resolve, reject}));
  }

  /** event waits for the n-th event named name (1 for the first), within ms. */
  event(name, n = 1, ms = 20000) {
    const find = () => this.#events.filter((e) => e.event === name)[n - 1];
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${name} event #${n} within ${ms} ms`)), ms);
      const check = () => {
        const e = find();
        if (!e) return false;
        clearTimeout(timer);
        resolve(e);
        return true;
      };
      if (!check()) this.#waiters.push(check);
    });
  }

  close() {
    this.#socket.destroy();
  }
}
