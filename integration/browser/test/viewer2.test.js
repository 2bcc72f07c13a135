// Viewer 2 (issue 16): errors shown where they happened and cleared, a run whose condition
// does not parse ends its progress, a breakpoint whose condition always fails is marked; the
// virtualised call tree (roles, one Tab stop, show all, deep recursion); search by exception
// with why a row matched; branch outcomes and change paths; the iteration slider and the
// variable charts; the call timeline; phone and tablet layouts; contrast; placeholders.

import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {api, env, launch, line, open, ready, row, shot, title, waitText} from './helpers.js';

export const V2 = `class Counter:
    def __init__(self):
        self.count = 0

    def bump(self):
        self.count = self.count + 1
        return self.count


def check(n):
    if n % 7 == 3:
        raise ValueError(f"bad n: {n}")
    return n


def leaf(i):
    return i * 2


def deep(n):
    if n == 0:
        return 0
    return deep(n - 1) + 1


def main():
    c = Counter()
    c.bump()
    rows = [1, 2]
    rows.append(16)
    rows = list(rows)
    total = 0
    for i in range(30):
        total = total + i
        try:
            check(i)
        except ValueError:
            pass
    for i in range(500):
        leaf(i)
    deep(40)
    return total


main()
`;

/** lineOf is the number of the first line of V2 that starts (after its indent) with text. */
const lineOf = (text) => V2.split('\n').findIndex((l) => l.trim().startsWith(text)) + 1;

/** contrast is the WCAG contrast ratio of an element's text on what is behind it. */
function contrast(page, selector) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    const rgb = (c) => c.match(/[\d.]+/g).map(Number);
    const lum = ([r, g, b]) => [r, g, b].map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }).reduce((s, c, i) => s + c * [0.2126, 0.7152, 0.0722][i], 0);
    let bg = null;
    for (let e = el; e && !bg; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length < 4 || c[3] > 0) bg = c;
    }
    bg ??= [255, 255, 255];
    const st = getComputedStyle(el);
    const a = lum(rgb(st.color));
    const b = lum(bg);
    return Number(((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) * Number(st.opacity)).toFixed(2));
  }, selector);
}

/** small lists the controls shown that are less than 24 px wide or high. */
function small(page) {
  return page.evaluate(() => [...document.querySelectorAll('button, input, select, summary, [role=tab]')]
    .filter((el) => el.offsetParent !== null && el.type !== 'hidden')
    .map((el) => ({el, r: el.getBoundingClientRect()}))
    .filter(({r}) => r.width > 0 && (r.width < 24 || r.height < 24))
    .map(({el, r}) => `${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 20)}" ${Math.round(r.width)}x${Math.round(r.height)}`));
}

describe('viewer 2', () => {
  let browser;
  let page;
  let errors;
  const url = `${env.viewer}&session=v2`;

  before(async () => {
    writeFileSync(join(env.dir, 'v2.py'), V2);
    await api('session.create', {command: 'python v2.py', dir: env.dir, id: 'v2'});
    browser = await launch();
    ({page, errors} = await open(browser, {url}));
    await ready(page);
  });

  after(async () => {
    await browser?.close();
  });

  it('renders only the rows in view of a node with 533 calls, as a tree with one Tab stop', async () => {
    for (const name of ['v2:<module>#1', 'main#1']) {
      const r = row(page, name);
      if ((await r.locator('.twisty').getAttribute('aria-expanded')) !== 'true') await r.locator('.twisty').click();
      await r.locator('.twisty[aria-expanded="true"]').waitFor();
    }
    const tree = page.locator('#tree .root-calls');
    assert.equal(await tree.getAttribute('role'), 'tree');
    const drawn = await tree.locator('[role=treeitem]').count();
    assert.ok(drawn < 60, `${drawn} rows drawn`);
    const check1 = tree.locator('[role=treeitem]', {has: page.locator('.open', {hasText: /^check#1$/})});
    assert.equal(await check1.getAttribute('aria-level'), '3');
    assert.equal(await check1.getAttribute('aria-setsize'), '200');
    assert.equal(await check1.getAttribute('aria-posinset'), '3');
    const main = tree.locator('[role=treeitem]', {has: page.locator('.open', {hasText: /^main#1$/})});
    assert.equal(await main.getAttribute('aria-expanded'), 'true');
    const tabStops = await page.evaluate(() => [...document.querySelectorAll('#tree button, #tree input, #tree [tabindex]')]
      .filter((el) => el.offsetParent !== null && el.tabIndex >= 0).map((el) => el.className));
    assert.deepEqual(tabStops, ['tree-filter', 'vtree root-calls']);
    // The sessions pane keeps its items beside the large tree.
    const s = await page.evaluate(() => {
      const el = document.querySelector('#sessions');
      return {height: el.offsetHeight, scroll: el.scrollHeight + 2, column: document.querySelector('.pane.left').clientHeight};
    });
    assert.ok(s.height >= Math.floor(Math.min(s.scroll, 0.4 * s.column)), JSON.stringify(s));
    await shot(page, '50-tree-533-children');

    await tree.focus();
    await page.keyboard.press('End'); // the last row: the one that shows more
    assert.equal((await tree.locator('.show-all').textContent()).trim(), 'Show all 333 left');
    await tree.locator('.show-all').click();
    await tree.focus();
    await page.keyboard.press('End');
    const active = () => page.evaluate(() => {
      const t = document.querySelector('#tree .root-calls');
      const el = document.getElementById(t.getAttribute('aria-activedescendant'));
      return `${el.querySelector('.open').textContent} ${el.getAttribute('aria-posinset')}/${el.getAttribute('aria-setsize')}`;
    });
    assert.equal(await active(), 'deep#1 533/533');
    await page.keyboard.press('ArrowUp');
    assert.equal(await active(), 'leaf#500 532/533');
    await page.keyboard.press('Enter');
    await title(page, 'v2:leaf#500');
    assert.equal(await tree.locator('.row.current .open').textContent(), 'leaf#500');
    await shot(page, '51-tree-end');
  });

  it('finds the calls that raised by their exception and says why each row matched', async () => {
    const filter = page.locator('#tree .tree-filter');
    await filter.fill('ValueError');
    const want = (await api('trace.frames', {session: 'v2', query: 'ValueError'})).frames;
    assert.equal(want.length, 4);
    await waitText(page, '#tree .tree-status', '4 calls match “ValueError”');
    assert.deepEqual(await page.locator('#tree .matches .open').allTextContents(), ['check#4', 'check#11', 'check#18', 'check#25']);
    assert.deepEqual(await page.locator('#tree .matches .why').allTextContents(), Array(4).fill('matched in the exception'));
    assert.deepEqual(await page.locator('#tree .matches .exc').allTextContents(), ['⚠ ValueError: bad n: 3', '⚠ ValueError: bad n: 10', '⚠ ValueError: bad n: 17', '⚠ ValueError: bad n: 24']);
    await shot(page, '52-search-exception');
    await filter.fill('i=499');
    await waitText(page, '#tree .tree-status', '1 call match “i=499”');
    assert.equal(await page.locator('#tree .matches .why').textContent(), 'matched in the argument i');
  });

  it('opens a deep recursion with the tree scrolling sideways', async () => {
    await page.locator('#tree .tree-filter').fill('deep#41');
    await waitText(page, '#tree .tree-status', '1 call match “deep#41”');
    await page.locator('#tree .matches .open').click();
    await title(page, 'v2:deep#41');
    await page.locator('#tree .tree-filter').fill('');
    const r = page.locator('#tree .root-calls [role=treeitem]', {has: page.locator('.open', {hasText: /^deep#41$/})});
    await r.waitFor();
    assert.equal(await r.getAttribute('aria-level'), '43');
    const box = await page.evaluate(() => {
      const el = document.querySelector('#tree .tree-scroll');
      return {scroll: el.scrollWidth, client: el.clientWidth};
    });
    assert.ok(box.scroll > box.client + 200, JSON.stringify(box));
    await shot(page, '53-deep-recursion');
  });

  it('shows branch outcomes on their lines and the paths of changes', async () => {
    const ifLine = lineOf('if n % 7 == 3:');
    for (const [fid, want] of [['check#4', '→ True: taken'], ['check#5', '→ False: not taken']]) {
      await page.locator('#tree .tree-filter').fill(fid);
      await waitText(page, '#tree .tree-status', `1 call match “${fid}”`);
      await page.locator('#tree .matches .open').click();
      await title(page, `v2:${fid}`);
      const flt = (await api('adi.flt', {session: 'v2', frame: fid})).result;
      assert.equal(flt.steps.find((s) => s.line === ifLine).test, want.includes('True'));
      await waitText(page, `#flt li.line[data-line="${ifLine}"] .branch`, want);
    }
    await shot(page, '54-branch-taken');
    await page.locator('#tree .tree-filter').fill('bump');
    await waitText(page, '#tree .tree-status', '1 call match “bump”');
    await page.locator('#tree .matches .open').click();
    await title(page, 'v2:Counter.bump#1');
    await waitText(page, `#flt li.line[data-line="${lineOf('self.count = self.count + 1')}"] .change-text`, 'self.count = 1 (was 0)');
    await page.locator('#flt button.caller').click();
    await title(page, 'v2:main#1');
    await waitText(page, `#flt li.line[data-line="${lineOf('rows.append(16)')}"] .change-text`, 'rows: appended 16');
    await waitText(page, `#flt li.line[data-line="${lineOf('rows = list(rows)')}"] .change-text`, 'rows = [1, 2, 16] (a new object, equal to the old)');
    assert.equal(await page.locator(`#flt li.line[data-line="${lineOf('rows = list(rows)')}"] .change .kind`).textContent(), 'new object');
    await page.locator('#tree .tree-filter').fill('');
  });

  it('picks an iteration with a slider or a variable\'s chart', async () => {
    const header = lineOf('for i in range(30):');
    const body = lineOf('total = total + i');
    const slider = line(page, header).locator('input.iter-slider');
    assert.equal(await slider.getAttribute('max'), '30');
    assert.equal(await line(page, header).locator('select').count(), 0);
    await slider.fill('9');
    await waitText(page, `#flt li.line[data-line="${body}"] .change-text`, 'total = 45 (was 36)');
    assert.equal(await line(page, header).locator('.iter-value').textContent(), '10');
    const chart = line(page, header).locator('svg.loop-chart[data-name="total"]');
    await chart.click({position: {x: 2 + (19 / 30) * 236, y: 18}});
    await waitText(page, `#flt li.line[data-line="${body}"] .change-text`, 'total = 190 (was 171)');
    assert.equal(await line(page, header).locator('input.iter-slider').inputValue(), '19');
    await shot(page, '55-loop-slider-chart');
  });

  it('draws the call timeline, marks what raised and opens a call', async () => {
    await page.locator('#flt .timeline summary').click();
    const svg = page.locator('#flt .timeline svg');
    await svg.waitFor();
    assert.equal(await svg.locator('rect.exc').count(), 4);
    const cur = (await api('adi.state', {session: 'v2'})).result.current_frame;
    assert.equal(await svg.locator('rect.cur').getAttribute('data-frame'), String(cur));
    const bump = (await api('trace.frames', {session: 'v2', query: 'bump'})).frames[0];
    await svg.locator(`rect[data-frame="${bump.index}"]`).dispatchEvent('click');
    await title(page, 'v2:Counter.bump#1');
    assert.equal(await svg.locator('rect.cur').getAttribute('data-frame'), String(bump.index));
    await shot(page, '56-timeline');
    await page.locator('#flt .timeline summary').click();
  });

  it('ends the progress of a condition that does not parse and shows its error at the form', async () => {
    const form = page.locator('#inspect .break-form');
    await form.locator('input[name=func]').fill('check');
    await form.locator('input[name=cond]').fill('n >');
    await form.locator('button[type=submit]').click();
    await waitText(page, '#inspect .break-error', /n >/);
    await page.locator('#progress').waitFor({state: 'hidden', timeout: 5000});
    assert.equal(await page.locator('#alert').isHidden(), true);
    assert.equal(await page.locator('#inspect .breakpoints li').count(), 0);
    await shot(page, '57-bad-condition');
    await page.locator('#inspect [data-nav=continue]').click();
    await page.locator('#inspect .break-error').waitFor({state: 'hidden'});
    assert.doesNotMatch(await page.locator('#inspect .nav-message').textContent(), /adi\./);
  });

  it('marks a breakpoint whose condition fails on every call, and the page does not grow', async () => {
    const form = page.locator('#inspect .break-form');
    await form.locator('input[name=func]').fill('check');
    await form.locator('input[name=cond]').fill('missing_name > 0');
    await form.locator('button[type=submit]').click();
    const bp = page.locator('#inspect .breakpoints li.breakpoint.broken');
    await bp.waitFor();
    assert.match(await bp.locator('.cond-error').textContent(), /^⚠ never stops: its condition failed: NameError/);
    const grown = await page.evaluate(() => document.documentElement.scrollHeight - innerHeight);
    assert.ok(grown <= 0, `the page is ${grown} px taller than the window`);
    await shot(page, '58-broken-breakpoint');
    // adi.state keeps the condition's error: the mark survives a reload of the page.
    const listed = (await api('adi.state', {session: 'v2'})).result.breakpoints;
    assert.match(listed[0].condition_error, /^NameError: name 'missing_name' is not defined/);
    assert.equal(listed[0].matches, undefined);
    await page.reload();
    await ready(page);
    await bp.waitFor();
    assert.match(await bp.locator('.cond-error').textContent(), /^⚠ never stops: its condition failed: NameError/);
    await shot(page, '59-broken-breakpoint-reloaded');
    await bp.locator('button', {hasText: 'Clear'}).click();
    await page.locator('#inspect .no-breakpoints').waitFor({state: 'visible'});
  });

  it('has no placeholder from another program and enough contrast', async () => {
    const holders = await page.locator('input[placeholder]').evaluateAll((els) => els.map((e) => e.placeholder));
    for (const p of holders) assert.doesNotMatch(p, /orders|bulk_rate|BULK|qty|rate > 0/, p);
    assert.equal(await page.locator('#inspect input[name=func]').getAttribute('placeholder'), 'function, e.g. Counter');
    await page.locator('#tree .tree-filter').fill('deep#41');
    await page.locator('#tree .matches .open').click();
    await title(page, 'v2:deep#41');
    const idle = `#flt li.line.idle[data-line="${lineOf('return deep(n - 1) + 1')}"] .code`;
    assert.ok(await contrast(page, idle) >= 4.5, `idle line: ${await contrast(page, idle)}`);
    for (const tag of ['.tag.open', '.tag.ok']) {
      const sel = `#sessions .session[aria-current="true"] ${tag}`;
      assert.ok(await contrast(page, sel) >= 4.5, `${tag}: ${await contrast(page, sel)}`);
    }
    await page.locator('#tree .tree-filter').fill('');
  });

  it('fits a phone: the frame first, Continue always in reach, no control under 24 px', async () => {
    const {context, page: p, errors: errs} = await open(browser, {url, viewport: {width: 390, height: 844}});
    await ready(p);
    assert.equal(await p.locator('.tabs [data-tab=flt]').getAttribute('aria-selected'), 'true');
    const top = await p.locator('#flt-title').evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(top < 160, `the frame starts ${top} px down`);
    const cont = await p.locator('#app > .quick-nav [data-nav=continue]').boundingBox();
    assert.ok(cont && cont.y + cont.height <= 844, JSON.stringify(cont));
    assert.deepEqual(await small(p), []);
    assert.equal(await p.evaluate(() => document.documentElement.scrollWidth > innerWidth), false);
    await shot(p, '60-phone-frame');
    await p.locator('.tabs [data-tab=left]').click();
    assert.deepEqual(await small(p), []);
    await shot(p, '61-phone-calls');
    // The calls tab opens at the frame under inspection (deep#41, opened by a test above).
    await p.locator('#tree .root-calls .row.current').waitFor();
    await p.locator('#tree .root-calls').focus();
    await p.keyboard.press('Home');
    await row(p, 'v2:<module>#1').locator('.open').click();
    await title(p, 'v2:<module>#1');
    assert.equal(await p.locator('.tabs [data-tab=flt]').getAttribute('aria-selected'), 'true');
    await p.locator('.tabs [data-tab=right]').click();
    assert.deepEqual(await small(p), []);
    await shot(p, '62-phone-inspect');
    await p.mouse.wheel(0, 2000);
    const after = await p.locator('#app > .quick-nav [data-nav=continue]').boundingBox();
    assert.ok(after && after.y + after.height <= 844 && after.y > 700, JSON.stringify(after));
    assert.deepEqual(errs, []);
    await context.close();
  });

  it('fits a 1024x768 window: a call tree of many rows beside the frame, Continue in reach', async () => {
    const {context, page: p, errors: errs} = await open(browser, {url, viewport: {width: 1024, height: 768}});
    await ready(p);
    const h = await p.locator('#tree .tree-scroll').evaluate((el) => el.clientHeight);
    assert.ok(h >= 5 * 44, `the call tree shows ${h} px`);
    const cont = await p.locator('#app > .quick-nav [data-nav=continue]').boundingBox();
    assert.ok(cont && cont.y >= 0 && cont.y + cont.height <= 768, JSON.stringify(cont));
    assert.equal(await p.evaluate(() => document.documentElement.scrollHeight <= innerHeight), true);
    await shot(p, '63-tablet-1024x768');
    await p.locator('.tabs [data-tab=right]').click();
    assert.equal(await p.locator('#inspect').isVisible(), true);
    assert.equal(await p.locator('#tree').isVisible(), false);
    await shot(p, '64-tablet-inspect');
    assert.deepEqual(errs, []);
    await context.close();
  });

  it('raised no error in the page', () => {
    assert.deepEqual(errors, []);
  });
});
