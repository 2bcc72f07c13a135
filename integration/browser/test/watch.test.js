// Watching a live program: a live session of the shop server (testdata/live/shop_server.py)
// with a watch on its request handler, started through the API, the program serving in the
// background. The viewer lists the session as live and shows each request's invocation in the
// call tree as the watch catches it, without a reload; clicking one shows its FLT.

import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {copyFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {api, env, launch, open, row, shot, title, waitText} from './helpers.js';

const SHOP = fileURLToPath(new URL('../../testdata/live/shop_server.py', import.meta.url));

/** shopPort reads the live session's output until the server says its port. */
async function shopPort(id) {
  let out = '';
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline) {
    out += (await api('live.status', {live: id})).output?.stdout ?? '';
    const m = out.match(/listening on port (\d+)/);
    if (m) return Number(m[1]);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the shop never said its port; output: ${JSON.stringify(out)}`);
}

describe('watching a live program', () => {
  let browser;
  let page;
  let errors;
  let port;
  const id = `shop-${Date.now()}`;

  before(async () => {
    copyFileSync(SHOP, join(env.dir, 'shop_server.py'));
    await api('live.start', {command: 'python shop_server.py', dir: env.dir, id, timeout_ms: 30000});
    await api('live.watch', {live: id, func: 'handle'});
    await api('live.continue', {live: id, background: true});
    port = await shopPort(id);
    browser = await launch();
    ({page, errors} = await open(browser, {url: `${env.viewer}&session=${id}`}));
  });

  after(async () => {
    await browser?.close();
    await api('live.close', {live: id}).catch(() => {});
  });

  it('shows each caught invocation as it arrives, and its FLT', async () => {
    const item = page.locator(`#sessions .session[data-session="${id}"]`);
    await waitText(page, '#sessions .session[aria-current="true"] .sid', id);
    await waitText(page, `#sessions .session[data-session="${id}"] .tag.live`, 'live · Running');
    await waitText(page, `#sessions .session[data-session="${id}"] .counts`, 'nothing caught yet (live.watch FUNC records its calls)');
    await waitText(page, '#tree .tree-status', '0 calls recorded');
    assert.equal(await page.locator('#alert').isVisible(), false, 'nothing caught is no error');

    const quotes = [['/quote/apple/2', 6], ['/quote/pear/4', 18], ['/quote/kiwi/1', 0]];
    for (const [n, [path, total]] of quotes.entries()) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      assert.equal((await res.json()).total, total);
      await row(page, `handle#${n + 1}`).waitFor({timeout: 10000}); // no reload: the events bring it
      assert.equal(await row(page, `handle#${n + 2}`).count(), 0);
    }
    await waitText(page, `#sessions .session[data-session="${id}"] .counts`, /^6 frames/);
    assert.equal(await page.locator('#tree .root-calls .row').count(), 3, 'the three caught invocations, nothing else');
    await shot(page, '40-live-watch');

    const second = row(page, 'handle#2');
    assert.equal((await second.locator('.ret').textContent()).trim(), "→ (200, {'item': 'pear', 'qty': 4, 'total': 18})");
    await second.locator('.open').click();
    await title(page, 'shop_server:handle#2');
    await waitText(page, '#flt .source li.line[data-line="21"]', /total = quote\(item, qty\)/);
    await waitText(page, '#flt .outcome', /\(200, \{'item': 'pear', 'qty': 4, 'total': 18\}\)/);
    await shot(page, '41-live-watch-flt');
    assert.ok(await item.isVisible());
    assert.equal(await page.locator('#alert').isVisible(), false, await page.locator('#alert').textContent());
    assert.deepEqual(errors, []);
  });
});
