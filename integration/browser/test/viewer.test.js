// The investigation of the demo bug (examples/orders.py prints 29.0 where 26.0 is due), done in
// the browser alone: the session list, the call tree, the FLT pane with its ΔS badges, callees
// and loop iterations, breakpoints with continue and prev, execute, the keyboard, and the
// filter. The tests run in order on one page: each starts where the one before left Σ.

import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {api, env, launch, line, open, ready, row, shot, title, waitText} from './helpers.js';

describe('the viewer investigates the demo bug', () => {
  let browser;
  let page;
  let errors;

  before(async () => {
    browser = await launch();
    ({page, errors} = await open(browser));
    await ready(page);
  });

  after(async () => {
    await browser?.close();
  });

  it('lists the session with its command, state and counts', async () => {
    const item = page.locator(`#sessions .session[data-session="${env.session}"]`);
    assert.equal(await item.getAttribute('aria-current'), 'true');
    assert.equal((await item.locator('.cmd').textContent()).trim(), 'python orders.py');
    assert.equal(await item.locator('.tag.open').textContent(), 'open');
    assert.equal(await item.locator('.tag.ok').textContent(), 'exit 0');
    const info = (await api('session.get', {session: env.session})).session;
    assert.match(await item.locator('.counts').textContent(), new RegExp(`^${info.frames} frames · \\d+ FLTs? · ${info.breakpoints} breakpoints?$`));
    await shot(page, '01-session');
  });

  it('expands the call tree and opens an FLT whose ΔS is the recorded one', async () => {
    for (const name of ['orders:<module>#1', 'invoice#1', 'price_items#1']) {
      const r = row(page, name);
      if ((await r.locator('.twisty').getAttribute('aria-expanded')) !== 'true') await r.locator('.twisty').click();
      await r.locator('.twisty[aria-expanded="true"]').waitFor();
    }
    const lt3 = row(page, 'line_total#3');
    assert.match(await lt3.locator('.args').textContent(), /item=\{'name': 'melon', 'qty': 10, 'price': 2\.0\}/);
    assert.equal((await lt3.locator('.ret').textContent()).trim(), '→ 20.0');
    await lt3.locator('.open').click();
    await title(page, 'orders:line_total#3');

    const flt = (await api('adi.flt', {session: env.session, frame: 'line_total#3'})).result;
    const recorded = flt.steps.find((s) => s.line === 23).changes.map((c) => `${c.name} = ${c.new}`);
    assert.deepEqual(recorded, ['subtotal = 20.0']);
    const shown = await line(page, 23).locator('.change-text').allTextContents();
    assert.deepEqual(shown, recorded);
    assert.equal(await line(page, 23).locator('.change .kind').textContent(), 'new');
    assert.match(await line(page, 22).getAttribute('class'), /\bran\b/);
    assert.match(await line(page, 21).getAttribute('class'), /\bidle\b/);
    assert.match(await row(page, 'line_total#3').getAttribute('class'), /\bcurrent\b/);
    await shot(page, '02-flt-line_total#3');
  });

  it('steps into a callee and out to the caller', async () => {
    await line(page, 22).locator('button.callee', {hasText: 'bulk_rate#3'}).click();
    await title(page, 'orders:bulk_rate#3');
    assert.match(await line(page, 18).getAttribute('class'), /\bshown\b/);
    assert.match(await line(page, 17).getAttribute('class'), /\bidle\b/);
    assert.equal(await page.locator('#flt .flt-args dd').first().textContent(), '10');
    await page.locator('#flt button.caller').click();
    await title(page, 'orders:line_total#3');
  });

  it('picks the iteration of a loop whose values lines show', async () => {
    await row(page, 'price_items#1').locator('.open').click();
    await title(page, 'orders:price_items#1');
    const nav = line(page, 30).locator('.loop-nav');
    assert.equal(await nav.locator('select').inputValue(), '1');
    await waitText(page, '#flt li.line[data-line="31"] .change-text', 'totals: appended 5.4');
    await nav.locator('.iter-next').click();
    await waitText(page, '#flt li.line[data-line="31"] .change-text', 'totals: appended 3.6');
    await line(page, 30).locator('.loop-nav select').selectOption('3');
    await waitText(page, '#flt li.line[data-line="31"] .change-text', 'totals: appended 20.0');
    assert.equal((await line(page, 31).locator('button.callee').textContent()).trim(), '↘ line_total#3 → 20.0');
    assert.deepEqual(await line(page, 30).locator('.loop-nav option').allTextContents(), ['1', '2', '3', '4 (exit)']);
    await line(page, 30).locator('.loop-nav .iter-prev').click();
    await waitText(page, '#flt li.line[data-line="31"] .change-text', 'totals: appended 3.6');
    await shot(page, '03-loop-iteration-2');
  });

  it('shows a long value clipped, and opens it as a tree of its entries in its place', async () => {
    const arg = page.locator('#flt .flt-args dd').first();
    assert.match(await arg.locator('code.val').getAttribute('class'), /\bclip\b/);
    assert.match(await arg.locator('code.val').textContent(), /'melon', 'qty': 10, 'price': 2\.0\}\]$/);
    const toggle = arg.locator('button.tree-toggle').first();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.equal(await arg.locator('code.val').isHidden(), true);
    assert.equal(await arg.locator('.pytree-head').textContent(), 'items = list, 3 items');
    const melon = arg.locator('.pytree-root > .pytree > li').nth(2);
    await melon.locator('> button.tree-toggle').click();
    assert.deepEqual(await melon.locator('.pytree li').allTextContents(), ["'name': 'melon'", "'qty': 10", "'price': 2.0"]);
    await toggle.click();
    assert.equal(await arg.locator('code.val').isVisible(), true);
  });

  it('adds a breakpoint and moves with continue and prev', async () => {
    const form = page.locator('#inspect .break-form');
    await form.locator('input[name=func]').fill('bulk_rate');
    await form.locator('input[name=cond]').fill('rate > 0');
    await form.locator('button[type=submit]').click();
    await waitText(page, '#inspect .breakpoints li code', 'orders:bulk_rate if rate > 0');
    // a condition that held moves to its first match, as the CLI's break does
    await title(page, 'orders:bulk_rate#1');
    await waitText(page, '#inspect .nav-message', 'break → orders:bulk_rate#1  (the first of 2 invocations where the condition held; Continue moves to the next)');
    await waitText(page, '#inspect .current', 'orders:bulk_rate#1');

    await row(page, 'orders:<module>#1').locator('.open').click();
    await title(page, 'orders:<module>#1');
    await page.locator('#inspect [data-nav=continue]').click();
    await title(page, 'orders:bulk_rate#1');
    await waitText(page, '#inspect .nav-message', /hit 1 of 2/);
    await page.locator('#inspect [data-nav=continue]').click();
    await title(page, 'orders:bulk_rate#3');
    await waitText(page, '#inspect .nav-message', /hit 2 of 2/);
    await waitText(page, '#inspect .current', 'orders:bulk_rate#3');
    await page.locator('#inspect [data-nav=prev]').click();
    await title(page, 'orders:bulk_rate#1');
    await waitText(page, '#inspect .current', 'orders:bulk_rate#1');
    await page.locator('#inspect [data-nav=continue]').click();
    await title(page, 'orders:bulk_rate#3');
    await shot(page, '04-breakpoint-bulk_rate#3');
  });

  it('executes a statement at a line of the frame', async () => {
    await line(page, 16).locator('.lineno').click();
    const form = page.locator('#execute .exec-form');
    assert.equal(await form.locator('input[name=frame]').inputValue(), 'orders:bulk_rate#3');
    assert.equal(await form.locator('input[name=line]').inputValue(), '16');
    assert.equal(await form.locator('input[name=visit]').inputValue(), '1');
    await form.locator('input[name=stmt]').fill('qty, BULK_QUANTITY, qty > BULK_QUANTITY');
    await form.locator('input[name=stmt]').press('Enter');
    await waitText(page, '#execute .exec-value', '(10, 10, False)', 30000);
    await shot(page, '05-execute');

    await form.locator('input[name=stmt]').fill('print(qty); 1/0');
    await form.locator('button[type=submit]').click();
    await waitText(page, '#execute .exec-exception', 'ZeroDivisionError: division by zero', 30000);
    assert.equal(await page.locator('#execute .output').textContent(), '10\n');
  });

  it('moves with the keyboard: n, p, o, i, j and /', async () => {
    await page.locator('#flt-title').click(); // the focus leaves the execute box
    await page.keyboard.press('p');
    await title(page, 'orders:bulk_rate#1');
    await page.keyboard.press('n');
    await title(page, 'orders:bulk_rate#3');
    await page.keyboard.press('o');
    await title(page, 'orders:line_total#3');
    await page.keyboard.press('i');
    await title(page, 'orders:bulk_rate#3');
    await page.keyboard.press('o');
    await title(page, 'orders:line_total#3');
    await page.keyboard.press('j');
    assert.equal(await line(page, 22).locator('.lineno').getAttribute('aria-pressed'), 'true');
    await page.keyboard.press('j');
    assert.equal(await line(page, 23).locator('.lineno').getAttribute('aria-pressed'), 'true');
    assert.equal(await page.locator('#execute input[name=line]').inputValue(), '23');
    await page.keyboard.press('?');
    assert.equal(await page.locator('#keys').isVisible(), true);
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#keys').isVisible(), false);
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement.classList.contains('tree-filter')), true);
    await page.keyboard.press('n'); // typed into the filter: no move
    await page.waitForTimeout(200);
    await title(page, 'orders:line_total#3');
    await page.locator('#tree .tree-filter').fill('');
  });

  it('filters the calls by function, argument or return text', async () => {
    const filter = page.locator('#tree .tree-filter');
    for (const query of ['qty=10', 'bulk_rate', '20.0']) {
      await filter.fill(query);
      const want = (await api('trace.frames', {session: env.session, query})).frames;
      await waitText(page, '#tree .tree-status', new RegExp(`^${want.length} calls? match`));
      const shown = await page.locator('#tree .matches .open').allTextContents();
      assert.deepEqual(shown, want.map((f) => f.fid.func.split(':').pop() + '#' + f.fid.index));
    }
    await shot(page, '06-filter');
    await page.locator('#tree .matches .open', {hasText: 'line_total#3'}).click();
    await title(page, 'orders:line_total#3');
    await filter.fill('');
    await page.locator('#tree .root-calls').waitFor();
    assert.equal(await page.locator('#tree .matches').isHidden(), true);
  });

  it('clears the breakpoint', async () => {
    const item = page.locator('#inspect .breakpoints li', {hasText: 'orders:bulk_rate if rate > 0'});
    await item.locator('button', {hasText: 'Clear'}).click();
    await page.locator('#inspect .no-breakpoints').waitFor({state: 'visible'});
    assert.equal(await page.locator('#inspect .breakpoints li').count(), 0);
    assert.deepEqual((await api('adi.list', {session: env.session})).result.breakpoints, []);
    await page.locator('#inspect [data-nav=continue]').click();
    await waitText(page, '#inspect .nav-message', /breakpoint/i);
    await title(page, 'orders:line_total#3');
  });

  it('raised no error in the page', () => {
    assert.deepEqual(errors, []);
  });
});
