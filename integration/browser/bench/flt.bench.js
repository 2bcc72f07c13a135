// A long FLT in the viewer: the frame under inspection ran 100,000 statements (a loop of 50,000
// iterations; integration/browser_bench_test.go records it). The viewer reads it a page at a time
// (adi.flt with steps): this measures the first paint of that frame (from opening it in the call
// tree of a viewer already loaded, and from loading the page with it under inspection, to the
// loop's slider drawn), the bytes the page received, its JS heap and DOM size, and picking an
// iteration. Not a
// test: it prints its measurements (and writes them to ADI_ARTIFACTS/bench-flt.json);
// docs/benchmarks.md says how to run it and what the bar is.

import {writeFileSync, mkdirSync} from 'node:fs';
import {join} from 'node:path';
import {api, env, launch, waitText} from '../test/helpers.js';

const session = process.env.ADI_FLT_SESSION ?? 'hk';
await api('adi.step_into', {session, frame: 'work#1', steps: {limit: 1}});
const whole = JSON.stringify((await api('adi.flt', {session, frame: 'work#1'})).result).length;

const browser = await launch();
const out = {steps: 0, whole_flt_json_bytes: whole};
try {
  const context = await browser.newContext({viewport: {width: 1280, height: 800}});
  const page = await context.newPage();
  let received = 0;
  page.on('websocket', (ws) => ws.on('framereceived', (f) => {
    received += typeof f.payload === 'string' ? Buffer.byteLength(f.payload) : f.payload.length;
  }));
  const t0 = Date.now();
  await page.goto(`${env.viewer}&session=${session}`);
  await page.locator('#flt .source li.line[data-line="3"] input.iter-slider').waitFor();
  out.first_paint_ms = Date.now() - t0;
  out.first_paint_in_page_ms = Math.round(await page.evaluate(() => performance.now()));
  out.received_bytes = received;
  out.steps = Number(await page.locator('#flt .source li.line[data-line="3"] input.iter-slider').getAttribute('max')) * 2 + 3;
  const cdp = await context.newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics').catch(async () => {
    await cdp.send('Performance.enable');
    return cdp.send('Performance.getMetrics');
  })).metrics.map((m) => [m.name, m.value]));
  if (metrics.JSHeapUsedSize == null) {
    await cdp.send('Performance.enable');
    Object.assign(metrics, Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value])));
  }
  out.js_heap_mb = Number((metrics.JSHeapUsedSize / 1e6).toFixed(1));
  out.dom_nodes = metrics.Nodes;

  // Pick iteration 25,000 with the slider: from the change to the line showing its values.
  const t = Date.now();
  await page.locator('#flt .source li.line[data-line="3"] input.iter-slider').fill('24999');
  await waitText(page, '#flt li.line[data-line="4"] .change-text', `total = ${(25000 * 24999) / 2} (was ${(24999 * 24998) / 2})`);
  out.pick_iteration_ms = Date.now() - t;
  out.received_bytes_after_pick = received;

  // Open the frame from the call tree of the loaded viewer (its caller shown first).
  await page.locator('#flt button.caller').click();
  await waitText(page, '#flt-title .fid', 'hundredk:<module>#1');
  const r = page.locator('#tree .root-calls [role=treeitem]', {has: page.locator('.open', {hasText: /^hundredk:<module>#1$/})});
  if ((await r.locator('.twisty').getAttribute('aria-expanded')) !== 'true') await r.locator('.twisty').click();
  const open = page.locator('#tree .root-calls .open', {hasText: /^work#1$/});
  await open.waitFor();
  const times = [];
  for (let k = 0; k < 5; k++) {
    const t1 = Date.now();
    await open.click();
    await page.locator('#flt .source li.line[data-line="3"] input.iter-slider').waitFor();
    times.push(Date.now() - t1);
    await page.locator('#flt button.caller').click();
    await waitText(page, '#flt-title .fid', 'hundredk:<module>#1');
  }
  out.open_frame_ms = times;
  out.open_frame_median_ms = [...times].sort((a, b) => a - b)[2];

  mkdirSync(env.artifacts, {recursive: true});
  writeFileSync(join(env.artifacts, 'bench-flt.json'), JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 2));
} finally {
  await browser.close();
}
