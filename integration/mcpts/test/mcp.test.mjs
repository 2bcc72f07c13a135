// Drives `adi mcp` over stdio with the official MCP TypeScript SDK's Client: tool listing, a
// recording walked with adi_state and adi_call_tree (structured results checked against the text
// and the tools' outputSchema, which the SDK validates), and cancellation of a long adi_exec.
// Run by TestMCPTypeScriptSDK (integration/mcpts_test.go) with ADI_BIN, ADI_STATE_DIR and WORK_DIR.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const work = process.env.WORK_DIR;
let client;

before(async () => {
  fs.writeFileSync(path.join(work, 't.py'), 'def f(x):\n    y = x + 1\n    return y * 2\n\n\nprint(f(1))\n');
  const transport = new StdioClientTransport({
    command: process.env.ADI_BIN, args: ['mcp'], cwd: work, env: { ...process.env }, stderr: 'inherit',
  });
  client = new Client({ name: 'adi-ts-test', version: '1.0.0' });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
});

test('lists the tools with annotations and output schemas', async () => {
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const name of ['adi_open', 'adi_call_tree', 'adi_break', 'adi_continue', 'adi_exec', 'adi_state', 'live_start']) {
    assert.ok(byName[name], `tool ${name} is listed`);
    assert.equal(byName[name].inputSchema.type, 'object', name);
    assert.equal(byName[name].outputSchema?.type, 'object', `${name} has an outputSchema`);
  }
  for (const name of ['adi_call_tree', 'adi_state', 'adi_flt', 'live_status']) {
    assert.equal(byName[name].annotations?.readOnlyHint, true, `${name} is read-only`);
  }
  for (const name of ['adi_break', 'adi_exec', 'adi_open']) {
    assert.notEqual(byName[name].annotations?.readOnlyHint, true, `${name} is not read-only`);
  }
});

// text returns the one text block of a tool result.
function text(res) {
  assert.equal(res.content.length, 1);
  assert.equal(res.content[0].type, 'text');
  return res.content[0].text;
}

test('records a program and answers adi_state and adi_call_tree with structured results', async () => {
  const open = await client.callTool({ name: 'adi_open', arguments: { command: 'python3 t.py', session: 'ts' } });
  assert.equal(open.isError, undefined);
  assert.equal(open.structuredContent.session.id, 'ts');
  assert.equal(text(open), open.structuredContent.text + 'Session id: ts (the default for the next tools).\n');

  const state = await client.callTool({ name: 'adi_state', arguments: {} });
  assert.deepEqual(state.structuredContent, {
    command: 'state',
    result: { breakpoints: [], current: 't:<module>#1', current_frame: 0, frames: 2, recording: {} },
    target_failed: false,
    text: 'Breakpoints: none. Set one with: adi_break func [cond]\nInspecting: t:<module>#1 (T[0]; the recording has 2 call(s))\n',
  });
  assert.equal(text(state), state.structuredContent.text);

  const tree = await client.callTool({ name: 'adi_call_tree', arguments: { depth: 2 } });
  assert.equal(tree.structuredContent.command, 'call-tree');
  assert.equal(text(tree), tree.structuredContent.text);
  assert.match(text(tree), /t:f#1\(x=1\) → 4/);
});

test('an adi_exec cancelled by AbortSignal ends at once and the next adi_exec works', async () => {
  const ac = new AbortController();
  const started = client.callTool(
    { name: 'adi_exec', arguments: { frame: 'f#1', stmt: 'import time; time.sleep(100)', timeout: 300 } },
    undefined, { signal: ac.signal });
  setTimeout(() => ac.abort('the test cancels it'), 1500);
  await assert.rejects(started, /the test cancels it/);
  // The next exec waits for the session, which the cancelled one holds until the server has
  // ended its run: it must answer well within the request limit (not the sleep's 100 s).
  const next = await client.callTool({ name: 'adi_exec', arguments: { frame: 'f#1', stmt: 'y * 10' } }, undefined, { timeout: 30000 });
  assert.equal(next.isError, undefined, text(next));
  assert.match(text(next), /Value: 20/);
});
