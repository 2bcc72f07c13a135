// The call tree at scale: a session of 10,000 calls under one caller (integration/
// browser_bench_test.go records it), measured in Debian's chromium. Not a test: it prints its
// measurements (and writes them to ADI_ARTIFACTS/bench-tree.json); docs/benchmarks.md says how to
// run it and what the bars are. Run it through `ADI_BROWSER_BENCH=1 go test ./integration -run
// TestBrowserBench -count=1 -v`.

import {writeFileSync, mkdirSync} from 'node:fs';
import {join} from 'node:path';
import {env, launch, open, waitText} from '../test/helpers.js';

const p95 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor(s.length * 0.95))].toFixed(1));
};

const browser = await launch();
const out = {};
try {
  const t0 = Date.now();
  const {page} = await open(browser, {url: `${env.viewer}&session=${env.session}`});
  await page.locator('#tree .root-calls [role=treeitem]').first().waitFor();
  out.first_row_ms = Date.now() - t0;

  // Open the caller of the 10,000 calls and show them all.
  let t = Date.now();
  for (const name of [/:<module>#1$/, /^main#1$/]) {
    const r = page.locator('#tree .root-calls [role=treeitem]', {has: page.locator('.open', {hasText: name})});
    await r.locator('.twisty').click();
    await r.locator('.twisty[aria-expanded="true"]').waitFor();
  }
  await page.locator('#tree .root-calls').focus();
  await page.keyboard.press('End');
  await page.locator('#tree .root-calls .show-all').click();
  await page.keyboard.press('End');
  await waitText(page, '#tree .root-calls .call.active .open', 'work#10000');
  out.open_all_ms = Date.now() - t;
  out.rows = await page.evaluate(() => document.querySelector('#tree .root-calls').style.height);
  out.rows_drawn = await page.locator('#tree .root-calls [role=treeitem]').count();

  // Scroll: 240 frames, the box moving 120 px a frame; p95 of the time between frames.
  out.scroll_frame_ms = await page.evaluate(() => new Promise((resolve) => {
    const box = document.querySelector('#tree .tree-scroll');
    box.scrollTop = 0;
    const gaps = [];
    let last = null;
    let n = 0;
    const step = (ts) => {
      if (last != null) gaps.push(ts - last);
      last = ts;
      box.scrollTop += 120;
      if (++n < 240) requestAnimationFrame(step);
      else resolve(gaps);
    };
    requestAnimationFrame(step);
  }));
  out.scroll_p95_ms = p95(out.scroll_frame_ms);
  out.scroll_max_ms = Number(Math.max(...out.scroll_frame_ms).toFixed(1));
  delete out.scroll_frame_ms;

  // Keys: ArrowDown 200 times, each timed from the key to the row drawn (a forced layout).
  out.key_ms = await page.evaluate(() => {
    const tree = document.querySelector('#tree .root-calls');
    tree.focus();
    const times = [];
    for (let k = 0; k < 200; k++) {
      const t = performance.now();
      tree.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowDown', bubbles: true, cancelable: true}));
      document.getElementById(tree.getAttribute('aria-activedescendant')).getBoundingClientRect();
      times.push(performance.now() - t);
    }
    return times;
  });
  out.key_p95_ms = p95(out.key_ms);
  out.key_max_ms = Number(Math.max(...out.key_ms).toFixed(1));
  delete out.key_ms;

  // Filter: from typing to the matches listed (the server's query included).
  t = Date.now();
  await page.locator('#tree .tree-filter').fill('work#9999');
  await waitText(page, '#tree .tree-status', /^1 call match/, 30000);
  out.filter_ms = Date.now() - t;
  t = Date.now();
  await page.locator('#tree .tree-filter').fill('i=');
  await waitText(page, '#tree .tree-status', /^10000 calls match/, 30000);
  out.filter_10000_ms = Date.now() - t;

  mkdirSync(env.artifacts, {recursive: true});
  writeFileSync(join(env.artifacts, 'bench-tree.json'), JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 2));
} finally {
  await browser.close();
}
