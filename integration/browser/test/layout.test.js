// The layout: three panes side by side at 1280x800 with nothing overflowing the window, and
// one pane at a time, picked with tabs, on a narrow window (600 px and less). Screenshots of both, and of the dark
// scheme, are kept as artifacts.

import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {launch, open, ready, shot} from './helpers.js';

/** boxes returns the page boxes of the three panes and whether the window scrolls sideways. */
function boxes(page) {
  return page.evaluate(() => {
    const box = (sel) => {
      const r = document.querySelector(sel).getBoundingClientRect();
      return {left: r.left, right: r.right, top: r.top + scrollY, bottom: r.bottom + scrollY, width: r.width};
    };
    return {
      left: box('.pane.left'), flt: box('#flt'), right: box('.pane.right'),
      sideways: document.documentElement.scrollWidth > innerWidth,
    };
  });
}

describe('the layout', () => {
  let browser;

  before(async () => {
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
  });

  it('puts the panes side by side at 1280x800', async () => {
    const {context, page, errors} = await open(browser);
    await ready(page);
    const b = await boxes(page);
    assert.equal(b.sideways, false);
    assert.ok(b.left.right <= b.flt.left && b.flt.right <= b.right.left, JSON.stringify(b));
    assert.ok(b.flt.width >= 500, `the FLT pane is ${b.flt.width} px wide`);
    assert.ok(b.right.right <= 1280);
    assert.deepEqual(errors, []);
    await shot(page, '20-wide-1280x800');
    await context.close();
  });

  it('shows one pane at a time on a narrow window, picked with tabs', async () => {
    const {context, page, errors} = await open(browser, {viewport: {width: 560, height: 900}});
    await ready(page);
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth > innerWidth);
    assert.equal(sideways, false, 'nothing scrolls sideways');
    for (const [tab, shown] of [['flt', '#flt'], ['left', '.pane.left'], ['right', '.pane.right']]) {
      await page.locator(`.tabs [data-tab=${tab}]`).click();
      const visible = await page.evaluate(() => ['.pane.left', '#flt', '.pane.right'].filter((s) => document.querySelector(s).offsetParent !== null));
      assert.deepEqual(visible, [shown]);
      const b = await boxes(page);
      const box = {'#flt': b.flt, '.pane.left': b.left, '.pane.right': b.right}[shown];
      assert.ok(box.width >= 500, JSON.stringify(box));
    }
    assert.deepEqual(errors, []);
    await page.locator('.tabs [data-tab=flt]').click();
    await shot(page, '21-narrow-560', true);
    await context.close();
  });

  it('follows the dark colour scheme', async () => {
    const {context, page} = await open(browser, {colorScheme: 'dark'});
    await ready(page);
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g).map(Number);
    assert.ok(r + g + b < 150, `the background is dark: ${bg}`);
    await shot(page, '22-dark');
    await context.close();
  });
});
