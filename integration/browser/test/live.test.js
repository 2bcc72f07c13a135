// Live updates: a session recorded from the page's form shows its progress while the target
// runs (elapsed time and output as it comes), then appears in the list with its counts and its
// calls; a call that raised is highlighted in the tree and in the FLT. An editor's run through
// `adi serve --dap` shows in the call tree as it goes: each stop brings the frames recorded so
// far and moves the frame under inspection there, without a reload.

import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {api, env, launch, open, ready, row, shot, title, waitText} from './helpers.js';
import {DAP} from './dap.js';

// slow.py prints five lines, then waits until the file named by its argument exists: the test
// sees the recording under way for as long as it needs, then lets it end. check raises twice.
const SLOW = `import os
import sys
import time


def check(n):
    if n > 2:
        raise ValueError(f"n too big: {n}")
    return n


def main():
    for i in range(5):
        print("step", i, flush=True)
        try:
            check(i)
        except ValueError:
            pass
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.05)


main()
`;

describe('live updates', () => {
  let browser;
  let page;
  let errors;
  const id = `slow-${Date.now()}`;
  const release = join(env.dir, `${id}.release`);

  before(async () => {
    writeFileSync(join(env.dir, 'slow.py'), SLOW);
    browser = await launch();
    ({page, errors} = await open(browser));
    await ready(page);
  });

  after(async () => {
    writeFileSync(release, ''); // a failed test must not leave the target waiting
    await browser?.close();
  });

  it('shows the progress of a recording and the session it made', async () => {
    await page.locator('#sessions .create summary').click();
    const form = page.locator('#sessions .create-form');
    await form.locator('input[name=command]').fill(`python slow.py ${release}`);
    await form.locator('input[name=dir]').fill(env.dir);
    await form.locator('input[name=session]').fill(id);
    await form.locator('button[type=submit]').click();

    await page.locator('#progress').waitFor({state: 'visible'});
    await page.locator(`#sessions .session[data-session="${id}"] .tag.live`).waitFor();
    const progress = new RegExp(`^${id}: record T, (\\d+\\.\\d) s, 5 lines of output: step 4$`);
    const before = Number((await waitText(page, '#progress .progress-text', progress)).match(progress)[1]);
    await page.waitForTimeout(300);
    const later = Number((await waitText(page, '#progress .progress-text', progress)).match(progress)[1]);
    assert.ok(later > before, `the elapsed time ticks: ${before} s, then ${later} s`);
    await shot(page, '30-recording');
    writeFileSync(release, '');
    await page.locator(`#sessions .session[data-session="${id}"] .tag.live`).waitFor({state: 'detached'});

    await waitText(page, `#sessions .session[aria-current="true"] .sid`, id);
    const info = (await api('session.get', {session: id})).session;
    await waitText(page, `#sessions .session[data-session="${id}"] .counts`, new RegExp(`^${info.frames} frames`));
    assert.equal(info.frames, 7); // <module>, main, check ×5
    await page.locator('#progress').waitFor({state: 'hidden', timeout: 30000});
  });

  it('highlights a call that raised', async () => {
    await row(page, 'slow:<module>#1').locator('.twisty').click();
    await row(page, 'main#1').locator('.twisty').click();
    const raised = row(page, 'check#4');
    await waitText(page, '#tree .root-calls .row .exc', '⚠ ValueError: n too big: 3');
    assert.equal(await raised.locator('.exc').count(), 1);
    assert.equal(await row(page, 'check#3').locator('.exc').count(), 0);
    await raised.locator('.open').click();
    await title(page, 'slow:check#4');
    await waitText(page, '#flt .outcome .exc', 'raised ValueError: n too big: 3');
    await waitText(page, '#flt li.line[data-line="8"] .exc', /ValueError: n too big: 3/);
    await shot(page, '31-raised');
    assert.deepEqual(errors, []);
  });

  it('shows the frames of an editor\'s run as they come', {skip: !env.dap && 'ADI_DAP is not set (adi serve --dap)'}, async () => {
    const program = join(env.dir, 'ticks.py');
    writeFileSync(program, TICKS);
    const editor = await DAP.open(env.dap);
    try {
      await editor.request('initialize', {adapterID: 'python', clientID: 'adi-viewer-test', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path'});
      const launched = editor.request('launch', {name: 'ticks', type: 'python', request: 'launch', program, cwd: env.dir,
        console: 'internalConsole', justMyCode: true, subProcess: false});
      await editor.event('initialized');
      await editor.request('setBreakpoints', {source: {path: program}, breakpoints: [{line: 2}]});
      await editor.request('configurationDone');
      await launched;
      let stop = await editor.event('stopped', 1);

      const id = (await api('session.list')).sessions.filter((s) => s.command.endsWith('ticks.py')).at(-1).id;
      const item = page.locator(`#sessions .session[data-session="${id}"]`);
      await item.locator('.tag.live').waitFor();
      await item.click();
      await row(page, 'tick#1').waitFor(); // the tree opens down to where the editor stopped
      assert.equal(await row(page, 'tick#2').count(), 0);
      for (let n = 2; n <= 3; n++) {
        await editor.request('continue', {threadId: stop.body.threadId});
        stop = await editor.event('stopped', n);
      }
      await waitText(page, '#flt-title .fid', 'ticks:tick#3', 30000); // the viewer follows the editor's stops
      await row(page, 'tick#2').waitFor();
      assert.equal((await row(page, 'tick#3').locator('.unfinished').textContent()).trim(), 'unfinished');
      await shot(page, '32-editor-run');
      await editor.request('continue', {threadId: stop.body.threadId});
      await editor.event('terminated');
      await waitText(page, '#tree .root-calls .row:has(.open:text-is("tick#3")) .ret', '→ 4');
      await item.locator('.tag.live').waitFor({state: 'detached'});
      assert.deepEqual(errors, []);
    } finally {
      editor.close();
    }
  });
});

// ticks.py calls tick three times; the editor stops at each call.
const TICKS = `def tick(i):
    return i * 2


def main():
    for i in range(3):
        tick(i)


main()
`;
