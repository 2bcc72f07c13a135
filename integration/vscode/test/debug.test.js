'use strict';
// The debug sessions a person has in VS Code, played with VS Code's own DAP test client against
// a debugServer port: `adi dap --listen` (DAP_TARGET=bridge) or debugpy's adapter itself
// (DAP_TARGET=debugpy). The flows and their assertions are the same for both; only the adi/
// requests, which debugpy does not know, run against the bridge alone.

const { describe, it, beforeEach, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const { MODE, startTarget } = require('./target');
const { Client } = require('./client');

const FIXTURES = path.resolve(__dirname, '..', 'fixtures');
const fixture = (name) => path.join(FIXTURES, name);
const TEST_LIMIT = { timeout: 90000 };
const BRIDGE_ONLY = MODE === 'bridge' ? false : 'adi/ requests are answered by adi, not debugpy';

// launchArgs is what VS Code sends for a "type": "debugpy" launch configuration (internal
// console: the test client cannot serve runInTerminal).
function launchArgs(program, extra = {}) {
  return {
    name: 'adi test', type: 'python', request: 'launch', program, cwd: FIXTURES,
    console: 'internalConsole', justMyCode: true, subProcess: false, ...extra,
  };
}

async function stackOf(c, threadId) {
  const st = await c.request(c.dc.stackTraceRequest({ threadId }), 'stackTrace');
  return st.body.stackFrames;
}

async function localsOf(c, frameId) {
  const sc = await c.request(c.dc.scopesRequest({ frameId }), 'scopes');
  const locals = sc.body.scopes.find((s) => s.name === 'Locals');
  assert.ok(locals, `no Locals scope in ${JSON.stringify(sc.body.scopes)}`);
  const vars = await c.request(c.dc.variablesRequest({ variablesReference: locals.variablesReference }), 'variables');
  return Object.fromEntries(vars.body.variables.map((v) => [v.name, v.value]));
}

// startApp launches app.py with a breakpoint on `total = a + b` and returns at the first stop.
async function startApp(c, extra = {}) {
  const init = await c.request(c.dc.initializeRequest(), 'initialize');
  assert.equal(init.body.supportsConfigurationDoneRequest, true);
  const launched = c.request(c.dc.launchRequest(launchArgs(fixture('app.py'), extra)), 'launch');
  await c.next('initialized');
  const bps = await c.request(c.dc.setBreakpointsRequest({
    source: { path: fixture('app.py') }, breakpoints: [{ line: 5 }],
  }), 'setBreakpoints');
  assert.deepEqual(bps.body.breakpoints.map((b) => [b.verified, b.line]), [[true, 5]]);
  await c.request(c.dc.configurationDoneRequest(), 'configurationDone');
  await launched; // debugpy answers launch after configurationDone
  const stopped = await c.next('stopped');
  assert.equal(stopped.body.reason, 'breakpoint');
  return stopped.body.threadId;
}

// finish clears the breakpoints, continues, and returns the exit code.
async function finish(c, threadId) {
  await c.request(c.dc.setBreakpointsRequest({ source: { path: fixture('app.py') }, breakpoints: [] }), 'setBreakpoints');
  await c.request(c.dc.continueRequest({ threadId }), 'continue');
  const exited = await c.next('exited');
  await c.next('terminated');
  return exited.body.exitCode;
}

describe(`VS Code debug sessions through ${MODE}`, () => {
  let target;
  const clients = [];
  const connect = async (port) => {
    const c = await new Client(port ?? target.port).start();
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    target = await startTarget();
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) {
      await c.stop();
    }
    await target.stop();
  });

  it('stops at a line breakpoint, shows stack, variables and evaluate, steps and runs to the end', TEST_LIMIT, async () => {
    const c = await connect();
    const threadId = await startApp(c);

    const process = c.events.find((e) => e.event === 'process');
    assert.equal(process.body.name, fixture('app.py'));
    assert.equal(process.body.startMethod, 'launch');

    let frames = await stackOf(c, threadId);
    assert.deepEqual(frames.map((f) => [f.name, f.line, f.source.path]), [
      ['add', 5, fixture('app.py')],
      ['main', 12, fixture('app.py')],
      ['<module>', 19, fixture('app.py')],
    ]);
    assert.deepEqual(await localsOf(c, frames[0].id), { a: '0', b: '1' });
    const ev = await c.request(c.dc.evaluateRequest({ expression: 'a + b * 10', frameId: frames[0].id, context: 'repl' }), 'evaluate');
    assert.equal(ev.body.result, '10');

    await c.request(c.dc.nextRequest({ threadId }), 'next');
    const stepped = await c.next('stopped');
    assert.equal(stepped.body.reason, 'step');
    frames = await stackOf(c, threadId);
    assert.deepEqual([frames[0].name, frames[0].line], ['add', 6]);
    assert.deepEqual(await localsOf(c, frames[0].id), { a: '0', b: '1', total: '1' });

    await c.request(c.dc.continueRequest({ threadId }), 'continue');
    const again = await c.next('stopped');
    assert.equal(again.body.reason, 'breakpoint');
    frames = await stackOf(c, threadId);
    assert.deepEqual(await localsOf(c, frames[0].id), { a: '1', b: '2' });
    const threads = await c.request(c.dc.threadsRequest(), 'threads');
    assert.deepEqual(threads.body.threads.map((t) => t.name), ['MainThread']);

    assert.equal(await finish(c, threadId), 3);
    assert.equal(c.output('stdout'), 'result 9\n');
  });

  it('hits a breakpoint in a child process through the debugpyAttach session', TEST_LIMIT, async () => {
    const c = await connect();
    await c.request(c.dc.initializeRequest(), 'initialize');
    const launched = c.request(c.dc.launchRequest(launchArgs(fixture('parent.py'), { subProcess: true })), 'launch');
    await c.next('initialized');
    await c.request(c.dc.configurationDoneRequest(), 'configurationDone');
    await launched;

    // VS Code's part: open the child's session where debugpyAttach says, and attach with its body.
    const announce = await c.next('debugpyAttach');
    assert.equal(announce.body.request, 'attach');
    assert.equal(announce.body.connect.host, '127.0.0.1');
    assert.equal(announce.body.connect.port, target.port, 'the child session must come back to the debugServer port');
    const child = await connect(announce.body.connect.port);
    await child.request(child.dc.initializeRequest(), 'initialize (child)');
    const attached = child.request(child.dc.attachRequest(announce.body), 'attach (child)');
    await child.next('initialized');
    const bps = await child.request(child.dc.setBreakpointsRequest({
      source: { path: fixture('child.py') }, breakpoints: [{ line: 5 }],
    }), 'setBreakpoints (child)');
    assert.deepEqual(bps.body.breakpoints.map((b) => [b.verified, b.line]), [[true, 5]]);
    await child.request(child.dc.configurationDoneRequest(), 'configurationDone (child)');
    await attached;

    const stopped = await child.next('stopped');
    assert.equal(stopped.body.reason, 'breakpoint');
    const frames = await stackOf(child, stopped.body.threadId);
    assert.deepEqual(frames.map((f) => [f.name, f.line, f.source.path]), [
      ['square', 5, fixture('child.py')],
      ['<module>', 10, fixture('child.py')],
    ]);
    assert.deepEqual(await localsOf(child, frames[0].id), { n: '7' });
    const proc = child.events.find((e) => e.event === 'process');
    assert.equal(proc.body.startMethod, 'attach');
    assert.equal(proc.body.systemProcessId, announce.body.subProcessId);

    await child.request(child.dc.continueRequest({ threadId: stopped.body.threadId }), 'continue (child)');
    await child.next('terminated');
    const exited = await c.next('exited');
    assert.equal(exited.body.exitCode, 0);
    await c.next('terminated');
    assert.equal(c.output('stdout'), 'square 49\nchild exited 0\n');
  });

  it('answers adi/flt and adi/callTree in the session, and records the FLTs of its stops', { ...TEST_LIMIT, skip: BRIDGE_ONLY }, async () => {
    const c = await connect();
    const threadId = await startApp(c);
    await c.request(c.dc.continueRequest({ threadId }), 'continue');
    const second = await c.next('stopped');
    assert.equal(second.body.reason, 'breakpoint');

    // The editor stopped in add#2: the frame under inspection, so flt needs no argument.
    const flt = await c.request(c.dc.customRequest('adi/flt', {}), 'adi/flt');
    assert.equal(flt.body.text, [
      'Frame: app:add#2   (caller app:main#1, line 12)',
      'Args: a = 1, b = 2',
      '',
      '   5 | total = a + b',
      '     |   + total = 3',
      '   6 | return total',
      '',
      'Running: this invocation had not returned when its FLT was read; the program runs on.',
      '',
    ].join('\n'));

    const tree = await c.request(c.dc.customRequest('adi/callTree', { frame: 'main#1' }), 'adi/callTree');
    assert.equal(tree.body.text, [
      'Call tree of app:main#1 (depth 2, width 10):',
      'app:main#1() → (unfinished)',
      '  app:add#1(a=0, b=1) → 1',
      '  app:add#2(a=1, b=2) → (unfinished)',
      '',
    ].join('\n'));

    const run = await c.request(c.dc.customRequest('adi/run', { line: 'list-frames add' }), 'adi/run');
    assert.match(run.body.text, /app:add#1/);
    assert.match(run.body.text, /app:add#2/);

    await assert.rejects(c.dc.customRequest('adi/nope', {}), /unknown request "adi\/nope"/);
    await assert.rejects(c.dc.customRequest('adi/flt', { frame: 'add' }), /names a function; add the invocation index/);

    assert.equal(await finish(c, threadId), 3);

    const info = await c.request(c.dc.customRequest('adi/session', {}), 'adi/session');
    assert.deepEqual(info.body.stops, ['app:add#1', 'app:add#2']);
    assert.equal(info.body.live, false);
    assert.equal(info.body.session.frames, 5);
    assert.equal(info.body.session.exit_code, 3);

    // After the run, T is complete: add#1's FLT ends with its return.
    const done = await c.request(c.dc.customRequest('adi/flt', { frame: 'add#1' }), 'adi/flt add#1');
    assert.equal(done.body.text, [
      'Frame: app:add#1   (caller app:main#1, line 12)',
      'Args: a = 0, b = 1',
      '',
      '   5 | total = a + b',
      '     |   + total = 1',
      '   6 | return total',
      '',
      'Return: 1',
      '',
    ].join('\n'));
  });
});
