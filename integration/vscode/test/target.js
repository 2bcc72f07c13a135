'use strict';
// Where the suite's DebugClients connect, the way VS Code's "debugServer" does: `adi dap --listen`
// (DAP_TARGET=bridge, the default) or debugpy's own adapter in server mode (DAP_TARGET=debugpy).
// Every test gets a fresh target, so the two kinds are driven exactly alike.
//
// Environment: ADI_BIN (the adi binary, bridge mode), ADI_PYTHON (the python with debugpy),
// ADI_STATE_DIR (where adi keeps sessions; the Go test that runs this suite reads it afterwards).

const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const MODE = process.env.DAP_TARGET || 'bridge';
const PYTHON = process.env.ADI_PYTHON || '/usr/bin/python3';
const START_LIMIT_MS = 20000;

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// A started target: its port, and stop() which ends it and everything it started.
class Target {
  constructor(proc, port, log) {
    this.proc = proc;
    this.port = port;
    this.log = log;
  }

  async stop() {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
      return;
    }
    const exited = new Promise((resolve) => this.proc.once('exit', resolve));
    this.proc.kill('SIGTERM');
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 15000);
    await exited;
    clearTimeout(t);
  }
}

// startBridge runs `adi dap --listen 127.0.0.1:0` and reads the port it prints.
async function startBridge() {
  const bin = process.env.ADI_BIN;
  if (!bin) {
    throw new Error('ADI_BIN is not set: build adi (make build: bin/adi and bin/adi-server beside it) and set ADI_BIN=bin/adi');
  }
  const args = ['dap', '--listen', '127.0.0.1:0', '--python', PYTHON];
  if (process.env.ADI_TEST_TRACE) {
    args.push('--log-level', 'trace');
  }
  const proc = cp.spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stderr.on('data', (d) => {
    log += d;
    if (process.env.ADI_TEST_TRACE) process.stderr.write(d);
  });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`adi dap did not say where it listens within ${START_LIMIT_MS} ms: ${log}`)), START_LIMIT_MS);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /adi dap listening at [^\s:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      }
    });
    proc.once('exit', (code) => reject(new Error(`adi dap exited with ${code}: ${log}`)));
  });
  return new Target(proc, port, () => log);
}

// startDebugpy runs debugpy's adapter in server mode (what VS Code's debugServer would name),
// learning its port from the endpoints file debugpy writes.
async function startDebugpy() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adi-vscode-'));
  const endpoints = path.join(dir, 'endpoints.json');
  const proc = cp.spawn(PYTHON, ['-m', 'debugpy.adapter', '--host', '127.0.0.1', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DEBUGPY_ADAPTER_ENDPOINTS: endpoints },
  });
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  const deadline = Date.now() + START_LIMIT_MS;
  for (;;) {
    try {
      const info = JSON.parse(fs.readFileSync(endpoints, 'utf8'));
      return new Target(proc, info.client.port, () => log);
    } catch (e) {
      if (Date.now() > deadline || proc.exitCode !== null) {
        throw new Error(`debugpy's adapter did not start: ${log}`);
      }
      await sleep(20);
    }
  }
}

function startTarget() {
  return MODE === 'debugpy' ? startDebugpy() : startBridge();
}

module.exports = { MODE, PYTHON, startTarget, sleep };
